import type { AppendResult, EventMetadata, EventStore, RecordedEvent } from '../../shared/event-store/port';
import { newEventId } from '../../shared/ids';
import { evolve, initialPlayerState, type PlayerState } from './state';

export const playerStream = (playerId: string): string => `player-${playerId}`;

interface Cached {
  state: PlayerState;
  revision: number;
}

/**
 * Loads player states, caching each by stream revision: a load reads only the events appended
 * since the cached revision, so the cost of a decision does not grow with the player's history.
 */
export class PlayerRepository {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly events: EventStore,
    private readonly maxCached = 100_000,
  ) {}

  /**
   * The player's state and its stream revision (-1 for a new player). The state is shared with
   * the cache: deciders read it and never mutate it.
   */
  async load(playerId: string): Promise<Cached> {
    const stream = playerStream(playerId);
    let cached = this.cache.get(playerId);
    const fresh = await this.events.readStream(stream, { fromRevision: (cached?.revision ?? -1) + 1 });
    // Another load may have caught the same entry up while this one awaited.
    cached = this.cache.get(playerId) ?? cached ?? { state: initialPlayerState(playerId), revision: -1 };
    for (const e of fresh) {
      if (e.revision <= cached.revision) continue;
      evolve(cached.state, e);
      cached.revision = e.revision;
    }
    this.remember(playerId, cached);
    return cached;
  }

  /** The recorded event at a revision of the player's stream (the original of a reversal). */
  async eventAt(playerId: string, revision: number): Promise<RecordedEvent | null> {
    const [event] = await this.events.readStream(playerStream(playerId), { fromRevision: revision, maxCount: 1 });
    return event && event.revision === revision ? event : null;
  }

  async append(playerId: string, events: { type: string; data: unknown }[], expectedRevision: number, metadata: EventMetadata): Promise<AppendResult> {
    const stream = playerStream(playerId);
    const recorded = events.map((e) => ({ id: newEventId(), type: e.type, data: e.data, metadata }));
    const result = await this.events.appendToStream(stream, recorded, expectedRevision === -1 ? 'no_stream' : expectedRevision);
    // What was just written need not be read back: fold it into the cached state, if that state
    // is the one the append followed (the expected revision held, so nothing came in between).
    const cached = this.cache.get(playerId);
    if (cached && cached.revision === expectedRevision) {
      const first = result.nextExpectedRevision - recorded.length + 1;
      recorded.forEach((e, i) => evolve(cached.state, { ...e, streamName: stream, revision: first + i, position: result.position, createdAt: Date.now() }));
      cached.revision = result.nextExpectedRevision;
    }
    return result;
  }

  private remember(playerId: string, entry: Cached): void {
    // Map order is insertion order: re-inserting marks the entry as recently used.
    this.cache.delete(playerId);
    this.cache.set(playerId, entry);
    if (this.cache.size > this.maxCached) this.cache.delete(this.cache.keys().next().value!);
  }
}
