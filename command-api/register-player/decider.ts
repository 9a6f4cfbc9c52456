/** Registering a player: by /v1/player/create, or with the first action. */
import type { Catalog } from '../../domain/catalog/schema';
import { noEffects } from '../../domain/events/common';
import type { PlayerRegistered } from '../../domain/events/player-events';
import type { PlayerState, PlayerView } from '../../domain/player/state';
import { ok, type Result } from '../../domain/result';
import type { DecisionEnv } from '../../domain/rules/decision-env';
import { withAttributes } from '../../domain/player/attributes';
import { effectsOfGrants } from '../../domain/rules/grants';
import { currencyExpiryJobs } from '../currency-expiry/decider';
import { levelsReachedAt } from '../../domain/rules/levels';
import { playerStream } from '../../domain/streams';
import { decision, type Decider } from '../decision';
import type { UseCase } from '../use-case';
import { playerOf } from '../player-reads';
import { ERRORS, refuse } from '../../domain/errors';

export interface RegisterPlayerCommand {
  /** Canonical lowercase dashed uuid. */
  playerId: string;
  username?: string;
  imageName?: string | null;
  /** IANA zone of the player's calendar; absent: the catalog's settings.timezone. */
  timeZone?: string;
  /** null values are left out (there is nothing to remove yet). */
  attributes?: Record<string, string | null>;
}

/**
 * A player known to the rules from now on: named (by default by the playerId), at the levels a
 * player with no points reaches, with what those levels grant. Registration happens here, or with
 * a player's first action when the catalog registers players automatically.
 */
export function registrationOf(
  catalog: Catalog,
  state: PlayerView,
  playerId: string,
  env: DecisionEnv,
  username?: string,
  imageName?: string | null,
  timeZone?: string,
  attributes?: Record<string, string | null>,
): Result<PlayerRegistered> {
  // An erased player's id is never registered again: it answers as an unknown player.
  if (state.erased) return refuse(ERRORS.PLAYER_DOES_NOT_EXIST);
  const levels = levelsReachedAt(catalog, state, 0);
  const clock = { timestamp: env.now, timeZone: timeZone ?? catalog.settings.timezone };
  const effects = effectsOfGrants(
    catalog,
    levels.flatMap((l) => l.grants),
    env,
    noEffects(),
    clock,
  );
  if (!effects.ok) return effects;
  const set = withAttributes({}, attributes ?? {});
  return ok({
    playerId,
    username: username ?? playerId,
    imageName: imageName ?? null,
    registeredAt: env.now,
    ...(timeZone ? { timeZone } : {}),
    ...(Object.keys(set).length ? { attributes: set } : {}),
    levels,
    effects: effects.value,
  });
}

/** Registers a player ahead of their first action; 5002 when the player exists. */
export const decideRegisterPlayer: Decider<RegisterPlayerCommand, PlayerState, PlayerRegistered> = (
  cmd,
  state,
  env,
) => {
  if (state.registered) return refuse(ERRORS.PLAYER_ALREADY_EXISTS);
  const registered = registrationOf(
    env.catalog,
    state,
    cmd.playerId,
    env,
    cmd.username,
    cmd.imageName,
    cmd.timeZone,
    cmd.attributes,
  );
  if (!registered.ok) return registered;
  return ok(
    decision(
      registered.value,
      [{ stream: playerStream(cmd.playerId), events: [{ type: 'PlayerRegistered', data: registered.value }] }],
      currencyExpiryJobs(cmd.playerId, registered.value.effects.lots),
    ),
  );
};

/** player/create: decided on the player's state. */
export const registerPlayerDecider: UseCase<RegisterPlayerCommand, PlayerState, PlayerRegistered> = {
  read: (cmd) => playerOf(cmd.playerId),
  decide: decideRegisterPlayer,
};
