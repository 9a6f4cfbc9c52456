/**
 * The states of streams a command reads, each folded by the fold it names: from a state cache when
 * one holds that fold's states (the players', the limited stocks'), else from the whole stream.
 */
import type { EventStore, RecordedEvent } from './port';
import { foldStream, type Folded, type StreamFold } from '../../../domain/stream-fold';

/** A cache of the states of one fold's streams. */
export interface FoldCache<S> {
  readonly of: StreamFold<S>;
  loadStream(stream: string): Promise<Folded<S>>;
  /** Events this process has just appended to a stream (the cache keeps only those of its own streams). */
  absorb(stream: string, appended: readonly RecordedEvent[]): void;
}

export class StreamStates {
  constructor(
    private readonly events: EventStore,
    private readonly caches: readonly FoldCache<unknown>[],
  ) {}

  async load<S>(stream: string, fold: StreamFold<S>): Promise<Folded<S>> {
    const cache = this.caches.find((c) => (c.of as unknown) === fold) as FoldCache<S> | undefined;
    if (cache) return cache.loadStream(stream);
    return foldStream(stream, fold, await this.events.readStream(stream));
  }

  /** One event of a stream, at its revision (null: the stream has none there). */
  async eventAt(stream: string, revision: number): Promise<RecordedEvent | null> {
    const [event] = await this.events.readStream(stream, { fromRevision: revision, maxCount: 1 });
    return event && event.revision === revision ? event : null;
  }

  absorb(stream: string, appended: readonly RecordedEvent[]): void {
    for (const cache of this.caches) cache.absorb(stream, appended);
  }
}
