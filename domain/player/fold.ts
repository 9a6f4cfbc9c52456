/** The player's stream as the command pipeline and the tests fold it. */
import { PLAYER_EVENTS, playerEventOf, type DomainEvent, type PlayerEvent } from '../events';
import type { Failure } from '../result';
import { playerIdOfStream } from '../streams';
import type { StreamFold } from '../stream-fold';
import { evolve, holdingsOutOfRange, initialPlayerState, type PlayerState } from './state';

/**
 * The last check of a decision's amounts before they are stored: no player's points or balance
 * may leave the range the engine holds exactly (MAX_AMOUNT). Refused like bad input (1001): it
 * is what the request asked for (a multiplier, a detail value) that drives a total that high.
 */
export function amountsCheck(state: PlayerState, events: readonly DomainEvent[]): Failure | null {
  const effects = events
    .filter((e): e is PlayerEvent => Object.prototype.hasOwnProperty.call(PLAYER_EVENTS, e.type))
    .map((e) => e.data.effects);
  const problem = holdingsOutOfRange(state, effects);
  return problem ? { code: 1001, message: problem } : null;
}

/** A player's stream (`player-<playerId>`): a player never seen before its first event. */
export const PLAYER_FOLD: StreamFold<PlayerState> = {
  initial: (stream) => initialPlayerState(playerIdOfStream(stream)!),
  evolve(state, recorded) {
    const e = playerEventOf(recorded);
    return e ? evolve(state, e) : state;
  },
  check: amountsCheck,
};
