/** Powerups: activating, deactivating, and the expiry of an activated one. */
import { noEffects } from '../../domain/events/common';
import type { PowerupActivated, PowerupDeactivated } from '../../domain/events/inventory-events';
import { isValidPowerup, type PlayerState } from '../../domain/player/state';
import { ok } from '../../domain/result';
import { playerStream } from '../../domain/streams';
import { decision, type Decider, type ScheduledJob } from '../decision';
import type { UseCase } from '../use-case';
import { playerOf } from '../player-reads';
import { ERRORS, refuse } from '../../domain/errors';

export interface PowerupCommand {
  /** Canonical lowercase dashed uuid. */
  playerId: string;
  powerupUid: string;
}

const seconds = (ms: number): number => Math.floor(ms / 1000);

/**
 * `expire-powerup` appends PowerupExpired once an activated powerup's expiresAt has passed. It is
 * scheduled on activation, not on grant: instances are granted by several deciders (actions,
 * levels, purchases, chest openings), and validity is computed from expiresAt everywhere anyway,
 * so the event only records, for an activated powerup, the moment it stopped applying.
 */
export const EXPIRE_POWERUP = 'expire-powerup';
export const expireJobId = (powerupUid: string): string => `expire-powerup-${powerupUid}`;

export const powerupExpiry = (playerId: string, powerupUid: string, runAt: number): ScheduledJob => ({
  type: EXPIRE_POWERUP,
  id: expireJobId(powerupUid),
  runAt,
  payload: { playerId, powerupUid },
});

/**
 * Activates an owned instance that is valid and not already activated; else 9021. An instance
 * that expires gets its expiry job, scheduled before the append.
 */
export const decideActivatePowerup: Decider<PowerupCommand, PlayerState, PowerupActivated> = (cmd, state, env) => {
  if (!state.registered) return refuse(ERRORS.PLAYER_NOT_FOUND);
  const owned = state.powerups.get(cmd.powerupUid);
  if (!owned) return refuse(ERRORS.POWERUP_NOT_OWNED);
  if (owned.activated) return refuse(ERRORS.POWERUP_ALREADY_ACTIVE);
  if (!isValidPowerup(owned, env.now)) return refuse(ERRORS.POWERUP_EXPIRED);
  const activated: PowerupActivated = {
    playerId: cmd.playerId,
    powerupUid: cmd.powerupUid,
    activatedAt: seconds(env.now),
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
};

/** Deactivates an owned, activated instance (expired or used up included); else 9023. */
export const decideDeactivatePowerup: Decider<PowerupCommand, PlayerState, PowerupDeactivated> = (cmd, state, env) => {
  if (!state.registered) return refuse(ERRORS.PLAYER_NOT_FOUND);
  const owned = state.powerups.get(cmd.powerupUid);
  if (!owned) return refuse(ERRORS.POWERUP_NOT_OWNED_TO_DEACTIVATE);
  if (!owned.activated) return refuse(ERRORS.POWERUP_NOT_ACTIVE);
  const deactivated: PowerupDeactivated = {
    playerId: cmd.playerId,
    powerupUid: cmd.powerupUid,
    deactivatedAt: seconds(env.now),
    effects: noEffects(),
  };
  return ok(
    decision(deactivated, [
      { stream: playerStream(cmd.playerId), events: [{ type: 'PowerupDeactivated', data: deactivated }] },
    ]),
  );
};

/**
 * The expiry job's decision: nothing (gone, never expires, already expired), not yet due (it
 * says when), or PowerupExpired now.
 */
export const decideExpirePowerup: Decider<PowerupCommand, PlayerState, { dueAt: number | null }> = (
  cmd,
  state,
  env,
) => {
  const owned = state.powerups.get(cmd.powerupUid);
  if (!owned || owned.expired || owned.instance.neverExpires) return ok(decision({ dueAt: null }, []));
  if (seconds(env.now) < owned.instance.expiresAt) return ok(decision({ dueAt: owned.instance.expiresAt * 1000 }, []));
  const expired = {
    playerId: cmd.playerId,
    powerupUid: cmd.powerupUid,
    expiredAt: owned.instance.expiresAt,
    effects: noEffects(),
  };
  return ok(
    decision({ dueAt: null }, [
      { stream: playerStream(cmd.playerId), events: [{ type: 'PowerupExpired', data: expired }] },
    ]),
  );
};

/** The three moves of an owned powerup: each decided on the player's state. */
export const activatePowerupDecider: UseCase<PowerupCommand, PlayerState, PowerupActivated> = {
  read: (cmd) => playerOf(cmd.playerId),
  decide: decideActivatePowerup,
};
export const deactivatePowerupDecider: UseCase<PowerupCommand, PlayerState, PowerupDeactivated> = {
  read: (cmd) => playerOf(cmd.playerId),
  decide: decideDeactivatePowerup,
};
export const expirePowerupDecider: UseCase<PowerupCommand, PlayerState, { dueAt: number | null }> = {
  read: (cmd) => playerOf(cmd.playerId),
  decide: decideExpirePowerup,
};
