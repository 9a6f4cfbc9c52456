import type { EventStore, RecordedEvent } from './port';
import { StreamStateCache, type CachedState } from './state-cache';
import { stockEventOf } from '../../domain/events';
import { stockStream, type LimitedStock } from '../../domain/streams';
import { evolveStock, type StockState } from '../../domain/stock/stock';

/** Limited stocks are few (one per limited trigger, bundle and chest prize): all are kept. */
const MAX_CACHED_STOCKS = 100_000;

/** The states of limited stocks, cached by revision: a hot stock is read on every qualifying action. */
export class StockStates {
  private readonly cache: StreamStateCache<StockState>;

  constructor(events: EventStore) {
    this.cache = new StreamStateCache(
      events,
      {
        initial: () => ({ taken: 0 }),
        evolve: evolveStock,
      },
      MAX_CACHED_STOCKS,
    );
  }

  load(kind: LimitedStock, resourceUid: string): Promise<CachedState<StockState>> {
    return this.cache.load(stockStream(kind, resourceUid));
  }

  absorb(stream: string, appended: readonly RecordedEvent[]): void {
    if (appended.length && stockEventOf(appended[0])) this.cache.absorb(stream, appended);
  }
}
