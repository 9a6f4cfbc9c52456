/** Powerups: activating, deactivating, and the expiry of an activated one. */
import { noEffects } from '../../shared/events/common';
import type { PowerupActivated, PowerupDeactivated } from '../../shared/events/inventory-events';
import { isValidPowerup, type PlayerState } from '../../shared/player/state';
import { ok, type Result } from '../../shared/result';
import { playerStream } from '../../shared/streams';
import { decision, type Decision } from '../command';
import { powerupExpiry } from './expiry';
import { ERRORS, refuse } from '../../shared/errors';

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
  if (!state.registered) return refuse(ERRORS.PLAYER_NOT_FOUND);
  const owned = state.powerups.get(cmd.powerupUid);
  if (!owned) return refuse(ERRORS.POWERUP_NOT_OWNED);
  if (owned.activated) return refuse(ERRORS.POWERUP_ALREADY_ACTIVE);
  if (!isValidPowerup(owned, nowMs)) return refuse(ERRORS.POWERUP_EXPIRED);
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
  if (!state.registered) return refuse(ERRORS.PLAYER_NOT_FOUND);
  const owned = state.powerups.get(cmd.powerupUid);
  if (!owned) return refuse(ERRORS.POWERUP_NOT_OWNED_TO_DEACTIVATE);
  if (!owned.activated) return refuse(ERRORS.POWERUP_NOT_ACTIVE);
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
