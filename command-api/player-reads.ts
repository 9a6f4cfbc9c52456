/** The read most use cases start with: the player's state, folded from their stream. */
import { PLAYER_FOLD } from '../shared/domain/player/fold';
import type { PlayerState } from '../shared/domain/player/state';
import { playerStream } from '../shared/domain/streams';
import { folded, type Reads } from './use-case';

export function* playerOf(playerId: string): Reads<PlayerState> {
  return (yield* folded(playerStream(playerId), PLAYER_FOLD)).state;
}
