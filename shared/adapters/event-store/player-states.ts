import type { EventStore, RecordedEvent } from './port';
import { StreamStateCache, type CachedState } from './state-cache';
import { PLAYER_EVENTS, playerEventOf, type DomainEvent, type PlayerEvent } from '../../domain/events';
import type { Failure } from '../../domain/result';
import { playerIdOfStream, playerStream } from '../../domain/streams';
import { evolveInPlace, holdingsOutOfRange, initialPlayerState, type PlayerState } from '../../domain/player/state';

/**
 * Player states by default kept in memory by each process that loads them (PLAYER_CACHE_SIZE).
 * A state takes about 2 KiB; a player not cached costs one read of their stream on their next
 * action. 10,000 holds every player active at once in the benchmarks while keeping the cache
 * near 20 MiB whatever the number of players.
 */
export const DEFAULT_CACHED_PLAYERS = 10_000;

/** Loads players' states (cached, see StreamStateCache) and single events of their streams. */
export class PlayerStates {
  private readonly cache: StreamStateCache<PlayerState>;

  constructor(
    private readonly events: EventStore,
    maxCached = DEFAULT_CACHED_PLAYERS,
  ) {
    this.cache = new StreamStateCache(
      events,
      {
        initial: (stream) => initialPlayerState(playerIdOfStream(stream)!),
        // The cache's own states, handed out read-only: folded in place (evolveInPlace).
        evolve(state, event) {
          const e = playerEventOf(event);
          return e ? evolveInPlace(state, e) : state;
        },
      },
      maxCached,
    );
  }

  /** The player's state and its stream revision (-1 for a player never seen). */
  load(playerId: string): Promise<CachedState<PlayerState>> {
    return this.cache.load(playerStream(playerId));
  }

  /**
   * The last check of a decision's amounts before they are stored: no player's points or balance
   * may leave the range the engine holds exactly (MAX_AMOUNT). Refused like bad input (1001): it
   * is what the request asked for (a multiplier, a detail value) that drives a total that high.
   */
  check(state: PlayerState, events: readonly DomainEvent[]): Failure | null {
    const effects = events
      .filter((e): e is PlayerEvent => Object.prototype.hasOwnProperty.call(PLAYER_EVENTS, e.type))
      .map((e) => e.data.effects);
    const problem = holdingsOutOfRange(state, effects);
    return problem ? { code: 1001, message: problem } : null;
  }

  /** Events just appended to a player stream (see StreamStateCache.absorb). */
  absorb(stream: string, appended: readonly RecordedEvent[]): void {
    if (playerIdOfStream(stream) !== null) this.cache.absorb(stream, appended);
  }

  /** The event at a revision of the player's stream (the original of a reversal, an action's result). */
  async eventAt(playerId: string, revision: number): Promise<RecordedEvent | null> {
    const [event] = await this.events.readStream(playerStream(playerId), { fromRevision: revision, maxCount: 1 });
    return event && event.revision === revision ? event : null;
  }
}
