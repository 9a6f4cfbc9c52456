/** Powerups: activating, deactivating, and the expiry of an activated one. */
import { noEffects } from '../../shared/events/common';
import type { PowerupActivated, PowerupDeactivated } from '../../shared/events/inventory-events';
import { isValidPowerup, type PlayerState } from '../../shared/player/state';
import { fail, ok, type Result } from '../../shared/result';
import { playerStream } from '../../shared/streams';
import { decision, type Decision } from '../command';
import { powerupExpiry } from './expiry';

export interface PowerupCommand {
  /** Canonical lowercase dashed uuid. */
  playerId: string;
  powerupUid: string;
}

const seconds = (ms: number): number => Math.floor(ms / 1000);

/**
 * Activates an owned instance that is valid and not already activated; else 9021. An instance
 * that expires gets its expiry job, scheduled before the append.
 */
export function decideActivatePowerup(
  cmd: PowerupCommand,
  state: PlayerState,
  nowMs: number,
): Result<Decision<PowerupActivated>> {
  if (!state.registered) return fail(9020, 'Player not found');
  const owned = state.powerups.get(cmd.powerupUid);
  if (!owned) return fail(9021, 'Powerup not found or not owned');
  if (owned.activated) return fail(9021, 'Powerup is already active');
  if (!isValidPowerup(owned, nowMs)) return fail(9021, 'Powerup is expired or used up');
  const activated: PowerupActivated = {
    playerId: cmd.playerId,
    powerupUid: cmd.powerupUid,
    activatedAt: seconds(nowMs),
    effects: noEffects(),
  };
  const { instance } = owned;
  const jobs = instance.neverExpires ? [] : [powerupExpiry(cmd.playerId, cmd.powerupUid, instance.expiresAt * 1000)];
  return ok(
    decision(
      activated,
      [{ stream: playerStream(cmd.playerId), events: [{ type: 'PowerupActivated', data: activated }] }],
      jobs,
    ),
  );
}

/** Deactivates an owned, activated instance (expired or used up included); else 9023. */
export function decideDeactivatePowerup(
  cmd: PowerupCommand,
  state: PlayerState,
  nowMs: number,
): Result<Decision<PowerupDeactivated>> {
  if (!state.registered) return fail(9020, 'Player not found');
  const owned = state.powerups.get(cmd.powerupUid);
  if (!owned) return fail(9023, 'Powerup not found or not owned');
  if (!owned.activated) return fail(9023, 'Powerup is not active');
  const deactivated: PowerupDeactivated = {
    playerId: cmd.playerId,
    powerupUid: cmd.powerupUid,
    deactivatedAt: seconds(nowMs),
    effects: noEffects(),
  };
  return ok(
    decision(deactivated, [
      { stream: playerStream(cmd.playerId), events: [{ type: 'PowerupDeactivated', data: deactivated }] },
    ]),
  );
}

/**
 * The expiry job's decision: nothing (gone, never expires, already expired), not yet due (it
 * says when), or PowerupExpired now.
 */
export function decideExpirePowerup(
  playerId: string,
  powerupUid: string,
  state: PlayerState,
  nowMs: number,
): Decision<{ dueAt: number | null }> {
  const owned = state.powerups.get(powerupUid);
  if (!owned || owned.expired || owned.instance.neverExpires) return decision({ dueAt: null }, []);
  if (seconds(nowMs) < owned.instance.expiresAt) return decision({ dueAt: owned.instance.expiresAt * 1000 }, []);
  const expired = { playerId, powerupUid, expiredAt: owned.instance.expiresAt, effects: noEffects() };
  return decision({ dueAt: null }, [
    { stream: playerStream(playerId), events: [{ type: 'PowerupExpired', data: expired }] },
  ]);
}
