import { z } from 'zod';
import { runUseCase } from '../command';
import { jobMetadata, type CommandDeps } from '../deps';
import { EXPIRE_POWERUP, expireJobId, expirePowerupDecider, powerupExpiry } from './decider';

/** The job; idempotent: it decides on the player's current state, so a rerun finds the powerup already expired. */
export async function expirePowerup(playerId: string, powerupUid: string, deps: CommandDeps): Promise<void> {
  const origin = { metadata: jobMetadata(expireJobId(powerupUid), deps), idempotency: null };
  const outcome = await runUseCase(deps, expirePowerupDecider, { playerId, powerupUid }, origin);
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
