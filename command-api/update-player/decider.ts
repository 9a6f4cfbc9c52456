/** Updating a player: name, picture, or the time zone of their calendar. */
import { noEffects } from '../../shared/events/common';
import type { PlayerUpdated } from '../../shared/events/player-events';
import type { PlayerState } from '../../shared/player/state';
import { fail, ok, type Result } from '../../shared/result';
import { playerStream } from '../../shared/streams';
import { decision, type Decision } from '../command';

export interface UpdatePlayerCommand {
  /** Canonical lowercase dashed uuid. */
  playerId: string;
  username?: string;
  /** null removes the picture. */
  imageName?: string | null;
  /** An IANA zone; null goes back to the catalog's settings.timezone. */
  timeZone?: string | null;
}

/**
 * Changes what the command names and keeps the rest; 5003 for an unknown player. A new time zone
 * applies from the player's next action on: decisions already taken keep the periods they recorded.
 */
export function decideUpdatePlayer(cmd: UpdatePlayerCommand, state: PlayerState, env: { now: number }): Result<Decision<PlayerUpdated>> {
  if (!state.registered) return fail(5003, 'PlayerId does not exist');
  const updated: PlayerUpdated = {
    playerId: cmd.playerId,
    username: cmd.username ?? state.username,
    imageName: cmd.imageName === undefined ? state.imageName : cmd.imageName,
    timeZone: cmd.timeZone === undefined ? state.timeZone : cmd.timeZone,
    updatedAt: env.now,
    effects: noEffects(),
  };
  return ok(decision(updated, [{ stream: playerStream(cmd.playerId), events: [{ type: 'PlayerUpdated', data: updated }] }]));
}
