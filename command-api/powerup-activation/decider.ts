import { noEffects } from '../../shared/events/common';
import type { PowerupActivated, PowerupDeactivated, PowerupExpired } from '../../shared/events/inventory-events';
import { fail, ok, type Result } from '../../shared/http/envelope';
import { isValidPowerup, type PlayerState } from '../player/state';

export interface PowerupCommand {
  /** Canonical lowercase dashed uuid. */
  playerId: string;
  powerupUid: string;
}

const seconds = (ms: number): number => Math.floor(ms / 1000);

/** Activates an owned instance that is valid and not already activated; else 9021. */
export function decideActivatePowerup(cmd: PowerupCommand, state: PlayerState, nowMs: number): Result<PowerupActivated> {
  if (!state.registered) return fail(9020, 'Player not found');
  const owned = state.powerups.get(cmd.powerupUid);
  if (!owned) return fail(9021, 'Powerup not found or not owned');
  if (owned.activated) return fail(9021, 'Powerup is already active');
  if (!isValidPowerup(owned, nowMs)) return fail(9021, 'Powerup is expired or used up');
  return ok({ playerId: cmd.playerId, powerupUid: cmd.powerupUid, activatedAt: seconds(nowMs), effects: noEffects() });
}

/** Deactivates an owned, activated instance (expired or used up included); else 9023. */
export function decideDeactivatePowerup(cmd: PowerupCommand, state: PlayerState, nowMs: number): Result<PowerupDeactivated> {
  if (!state.registered) return fail(9020, 'Player not found');
  const owned = state.powerups.get(cmd.powerupUid);
  if (!owned) return fail(9023, 'Powerup not found or not owned');
  if (!owned.activated) return fail(9023, 'Powerup is not active');
  return ok({ playerId: cmd.playerId, powerupUid: cmd.powerupUid, deactivatedAt: seconds(nowMs), effects: noEffects() });
}

/** What the expiry job does: nothing (gone, never expires, already expired), wait until expiresAt, or expire now. */
export type ExpiryDecision = { kind: 'nothing' } | { kind: 'wait'; untilMs: number } | { kind: 'expire'; event: PowerupExpired };

export function decideExpirePowerup(playerId: string, powerupUid: string, state: PlayerState, nowMs: number): ExpiryDecision {
  const owned = state.powerups.get(powerupUid);
  if (!owned || owned.expired || owned.instance.neverExpires) return { kind: 'nothing' };
  if (seconds(nowMs) < owned.instance.expiresAt) return { kind: 'wait', untilMs: owned.instance.expiresAt * 1000 };
  return { kind: 'expire', event: { playerId, powerupUid, expiredAt: owned.instance.expiresAt, effects: noEffects() } };
}
