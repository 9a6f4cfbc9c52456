import type { EventMetadata } from '../../shared/event-store/port';
import { ok, type Result } from '../../shared/http/envelope';
import { jobMetadata, type CommandDeps } from '../deps';
import { retryOnConflict } from '../retry';
import { decideActivatePowerup, decideDeactivatePowerup, decideExpirePowerup, type PowerupCommand } from './decider';

/**
 * `expire-powerup` appends PowerupExpired once an activated powerup's expiresAt has passed. It is
 * scheduled on activation, not on grant: instances are granted inside several deciders (actions,
 * levels, purchases, chest openings), and validity is computed from expiresAt everywhere anyway,
 * so the event only records, for an activated powerup, the moment it stopped applying.
 */
export const EXPIRE_POWERUP = 'expire-powerup';
export const expireJobId = (powerupUid: string): string => `expire-powerup-${powerupUid}`;

export async function activatePowerup(cmd: PowerupCommand, metadata: EventMetadata, deps: CommandDeps): Promise<Result<{ position: number }>> {
  return retryOnConflict(async () => {
    const { state, revision } = await deps.players.load(cmd.playerId);
    const decision = decideActivatePowerup(cmd, state, deps.now());
    if (!decision.ok) return decision;
    const { instance } = state.powerups.get(cmd.powerupUid)!;
    // Scheduled before the append: a crash in between leaves a job that finds nothing to do or expires it on time.
    if (!instance.neverExpires) await deps.jobs.schedule(EXPIRE_POWERUP, expireJobId(cmd.powerupUid), instance.expiresAt * 1000, { playerId: cmd.playerId, powerupUid: cmd.powerupUid });
    const appended = await deps.players.append(cmd.playerId, [{ type: 'PowerupActivated', data: decision.value }], revision, metadata);
    return ok({ position: appended.position });
  });
}

export async function deactivatePowerup(cmd: PowerupCommand, metadata: EventMetadata, deps: CommandDeps): Promise<Result<{ position: number }>> {
  return retryOnConflict(async () => {
    const { state, revision } = await deps.players.load(cmd.playerId);
    const decision = decideDeactivatePowerup(cmd, state, deps.now());
    if (!decision.ok) return decision;
    const appended = await deps.players.append(cmd.playerId, [{ type: 'PowerupDeactivated', data: decision.value }], revision, metadata);
    return ok({ position: appended.position });
  });
}

/** The job; idempotent: it decides on the player's current state, so a rerun finds the powerup already expired. */
export async function expirePowerup(playerId: string, powerupUid: string, deps: CommandDeps): Promise<void> {
  await retryOnConflict(async () => {
    const { state, revision } = await deps.players.load(playerId);
    const decision = decideExpirePowerup(playerId, powerupUid, state, deps.now());
    if (decision.kind === 'wait') await deps.jobs.schedule(EXPIRE_POWERUP, expireJobId(powerupUid), decision.untilMs, { playerId, powerupUid });
    if (decision.kind === 'expire') await deps.players.append(playerId, [{ type: 'PowerupExpired', data: decision.event }], revision, jobMetadata(expireJobId(powerupUid), deps));
  });
}

export function registerPowerupJobs(deps: CommandDeps): void {
  deps.jobs.handle(EXPIRE_POWERUP, async (payload) => expirePowerup(payload.playerId as string, payload.powerupUid as string, deps));
}
