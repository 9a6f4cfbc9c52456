import type { EventStore, RecordedEvent } from './port';
import type { StreamFold } from '../../../domain/stream-fold';

/**
 * How the cache folds a kind of stream: as its StreamFold does, and it may change the state it is
 * given, the cache's own (the player's cache does, for speed: see PlayerStates).
 */
export type CacheFold<S> = Pick<StreamFold<S>, 'initial' | 'evolve'>;

export interface CachedState<S> {
  /** Shared with the cache: read it, never change it. */
  state: S;
  /** Revision of the stream the state is folded up to; -1 for a stream with no events. */
  revision: number;
}

/**
 * States folded from streams, cached by stream revision: a load reads only the events appended
 * since the cached revision, so the cost of a decision does not grow with the stream's history.
 * At most `maxCached` states are kept; the least recently used go first.
 */
export class StreamStateCache<S> {
  private readonly cache = new Map<string, CachedState<S>>();

  constructor(
    private readonly events: EventStore,
    private readonly fold: CacheFold<S>,
    private readonly maxCached: number,
  ) {}

  async load(stream: string): Promise<CachedState<S>> {
    let cached = this.cache.get(stream);
    const fresh = await this.events.readStream(stream, { fromRevision: (cached?.revision ?? -1) + 1 });
    // Another load may have caught the same entry up while this one awaited.
    cached = this.cache.get(stream) ?? cached ?? { state: this.fold.initial(stream), revision: -1 };
    for (const e of fresh) {
      if (e.revision <= cached.revision) continue;
      cached.state = this.fold.evolve(cached.state, e);
      cached.revision = e.revision;
    }
    this.remember(stream, cached);
    return cached;
  }

  /**
   * Folds events this process has just appended to a stream, so the next load need not read them
   * back; only when the cached state is the one the append followed (nothing came in between).
   */
  absorb(stream: string, appended: readonly RecordedEvent[]): void {
    const cached = this.cache.get(stream);
    if (!cached || appended.length === 0 || cached.revision !== appended[0].revision - 1) return;
    for (const e of appended) cached.state = this.fold.evolve(cached.state, e);
    cached.revision = appended[appended.length - 1].revision;
  }

  private remember(stream: string, entry: CachedState<S>): void {
    // Map order is insertion order: re-inserting marks the entry as recently used.
    this.cache.delete(stream);
    this.cache.set(stream, entry);
    if (this.cache.size > this.maxCached) this.cache.delete(this.cache.keys().next().value!);
  }
}
