import { z } from 'zod';
import { ok } from '../../shared/result';
import { runCommand, type ScheduledJob } from '../command';
import { jobMetadata, type CommandDeps } from '../deps';
import { decideExpirePowerup } from './decider';

/**
 * `expire-powerup` appends PowerupExpired once an activated powerup's expiresAt has passed. It is
 * scheduled on activation, not on grant: instances are granted by several deciders (actions,
 * levels, purchases, chest openings), and validity is computed from expiresAt everywhere anyway,
 * so the event only records, for an activated powerup, the moment it stopped applying.
 */
export const EXPIRE_POWERUP = 'expire-powerup';
const expireJobId = (powerupUid: string): string => `expire-powerup-${powerupUid}`;

export const powerupExpiry = (playerId: string, powerupUid: string, runAt: number): ScheduledJob => ({
  type: EXPIRE_POWERUP,
  id: expireJobId(powerupUid),
  runAt,
  payload: { playerId, powerupUid },
});

/** The job; idempotent: it decides on the player's current state, so a rerun finds the powerup already expired. */
export async function expirePowerup(playerId: string, powerupUid: string, deps: CommandDeps): Promise<void> {
  const outcome = await runCommand(deps, jobMetadata(expireJobId(powerupUid), deps), async (read) => {
    const { state } = await read.player(playerId);
    return ok(decideExpirePowerup(playerId, powerupUid, state, deps.now()));
  });
  // Contended through every attempt: thrown, so that the job runs again.
  if (!outcome.ok) throw new Error(`expiring powerup ${powerupUid}: ${outcome.failure.message}`);
  const { dueAt } = outcome.value.answer;
  if (dueAt !== null) {
    const job = powerupExpiry(playerId, powerupUid, dueAt);
    await deps.jobs.schedule(job.type, job.id, job.runAt, job.payload);
  }
}

const expiryPayload = z.object({ playerId: z.string(), powerupUid: z.string() });

export function registerPowerupJobs(deps: CommandDeps): void {
  deps.jobs.handle(EXPIRE_POWERUP, async (payload) => {
    const { playerId, powerupUid } = expiryPayload.parse(payload);
    await expirePowerup(playerId, powerupUid, deps);
  });
}
