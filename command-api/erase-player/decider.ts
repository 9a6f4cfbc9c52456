import { noEffects } from '../../domain/events/common';
import type { PlayerErased } from '../../domain/events/player-events';
import type { PlayerState } from '../../domain/player/state';
import { ok } from '../../domain/result';
import { playerStream } from '../../domain/streams';
import { ERRORS, refuse } from '../../domain/errors';
import { decision, type Decider } from '../decision';
import type { UseCase } from '../use-case';
import { playerOf } from '../player-reads';

export interface ErasePlayerCommand {
  playerId: string;
}

/**
 * Erases a registered player: `PlayerErased` on their stream (no personal data, no effects: the
 * amounts stay). An unknown or already erased player is 5003, as every request naming them.
 */
export const decideErasePlayer: Decider<ErasePlayerCommand, PlayerState, PlayerErased> = (cmd, state, env) => {
  if (!state.registered) return refuse(ERRORS.PLAYER_DOES_NOT_EXIST);
  const erased: PlayerErased = { playerId: cmd.playerId, erasedAt: env.now, effects: noEffects() };
  return ok(
    decision(erased, [{ stream: playerStream(cmd.playerId), events: [{ type: 'PlayerErased', data: erased }] }]),
  );
};

/** An erasure: decided on the player's state. */
export const erasePlayerDecider: UseCase<ErasePlayerCommand, PlayerState, PlayerErased> = {
  read: (cmd) => playerOf(cmd.playerId),
  decide: decideErasePlayer,
};
