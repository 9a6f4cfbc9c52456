import type { EventStore, RecordedEvent } from './port';
import { StreamStateCache, type CachedState } from './state-cache';
import { playerEventOf } from '../../../domain/events';
import { playerIdOfStream, playerStream } from '../../../domain/streams';
import { evolveInPlace, type PlayerState } from '../../../domain/player/state';
import { PLAYER_FOLD } from '../../../domain/player/fold';

/**
 * Player states by default kept in memory by each process that loads them (PLAYER_CACHE_SIZE).
 * A state takes about 2 KiB; a player not cached costs one read of their stream on their next
 * action. 10,000 holds every player active at once in the benchmarks while keeping the cache
 * near 20 MiB whatever the number of players.
 */
export const DEFAULT_CACHED_PLAYERS = 10_000;

/** Loads players' states (cached, see StreamStateCache) and single events of their streams. */
export class PlayerStates {
  /** The fold whose states this cache holds (it folds them its own, faster, way). */
  readonly of = PLAYER_FOLD;
  private readonly cache: StreamStateCache<PlayerState>;

  constructor(
    private readonly events: EventStore,
    maxCached = DEFAULT_CACHED_PLAYERS,
  ) {
    this.cache = new StreamStateCache(
      events,
      {
        initial: PLAYER_FOLD.initial,
        // The cache's own states, handed out read-only: folded in place (evolveInPlace), as PLAYER_FOLD folds them.
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

  /** The state of a player's stream, by the stream's name (through load, as every read of a player). */
  loadStream(stream: string): Promise<CachedState<PlayerState>> {
    const playerId = playerIdOfStream(stream);
    if (playerId === null) throw new Error(`${stream} is not a player's stream`);
    return this.load(playerId);
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
