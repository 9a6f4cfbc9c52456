/** The read most use cases start with: the player's state, folded from their stream. */
import { PLAYER_FOLD } from '../domain/player/fold';
import type { PlayerState } from '../domain/player/state';
import { playerStream } from '../domain/streams';
import { folded, type Reads } from './use-case';

export function* playerOf(playerId: string): Reads<PlayerState> {
  return (yield* folded(playerStream(playerId), PLAYER_FOLD)).state;
}
