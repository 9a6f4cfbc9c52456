/** Updating a player: name, picture, the time zone of their calendar, or attributes. */
import { noEffects } from '../../domain/events/common';
import type { PlayerUpdated } from '../../domain/events/player-events';
import { MAX_ATTRIBUTES, withAttributes } from '../../domain/player/attributes';
import type { PlayerState } from '../../domain/player/state';
import { fail, ok } from '../../domain/result';
import { playerStream } from '../../domain/streams';
import { decision, type Decider } from '../decision';
import type { UseCase } from '../use-case';
import { playerOf } from '../player-reads';
import { ERRORS, refuse } from '../../domain/errors';
import { momentJobsInZone } from '../../domain/rules/moments';

export interface UpdatePlayerCommand {
  /** Canonical lowercase dashed uuid. */
  playerId: string;
  username?: string;
  /** null removes the picture. */
  imageName?: string | null;
  /** An IANA zone; null goes back to the catalog's settings.timezone. */
  timeZone?: string | null;
  /** A string sets an attribute, null removes it; the others stay. */
  attributes?: Record<string, string | null>;
}

/**
 * Changes what the command names and keeps the rest; 5003 for an unknown player. A new time zone
 * applies from the player's next action on: decisions already taken keep the periods they recorded.
 * So do new attributes: actions already processed stay on the leaderboard scopes they recorded.
 */
export const decideUpdatePlayer: Decider<UpdatePlayerCommand, PlayerState, PlayerUpdated> = (cmd, state, env) => {
  if (!state.registered) return refuse(ERRORS.PLAYER_DOES_NOT_EXIST);
  const attributes = cmd.attributes ? withAttributes(state.attributes, cmd.attributes) : state.attributes;
  if (Object.keys(attributes).length > MAX_ATTRIBUTES)
    return fail(1001, `attributes: a player has at most ${MAX_ATTRIBUTES} attributes`);
  const updated: PlayerUpdated = {
    playerId: cmd.playerId,
    username: cmd.username ?? state.username,
    imageName: cmd.imageName === undefined ? state.imageName : cmd.imageName,
    timeZone: cmd.timeZone === undefined ? state.timeZone : cmd.timeZone,
    attributes: { ...attributes },
    updatedAt: env.now,
    effects: noEffects(),
  };
  // The player's pending moments move to the new zone's local times (their jobs are replaced).
  const moved =
    updated.timeZone === state.timeZone
      ? []
      : momentJobsInZone(env.catalog, state, updated.timeZone ?? env.catalog.settings.timezone, env.now);
  return ok(
    decision(
      updated,
      [{ stream: playerStream(cmd.playerId), events: [{ type: 'PlayerUpdated', data: updated }] }],
      moved,
    ),
  );
};

/** player/update: decided on the player's state. */
export const updatePlayerDecider: UseCase<UpdatePlayerCommand, PlayerState, PlayerUpdated> = {
  read: (cmd) => playerOf(cmd.playerId),
  decide: decideUpdatePlayer,
};
