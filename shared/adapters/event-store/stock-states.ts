import type { EventStore, RecordedEvent } from './port';
import { StreamStateCache, type CachedState } from './state-cache';
import { stockEventOf } from '../../../domain/events';
import { stockStream, type LimitedStock } from '../../../domain/streams';
import { STOCK_FOLD, type StockState } from '../../../domain/stock/stock';

/** Limited stocks are few (one per limited trigger, bundle and chest prize): all are kept. */
const MAX_CACHED_STOCKS = 100_000;

/** The states of limited stocks, cached by revision: a hot stock is read on every qualifying action. */
export class StockStates {
  /** The fold whose states this cache holds. */
  readonly of = STOCK_FOLD;
  private readonly cache: StreamStateCache<StockState>;

  constructor(events: EventStore) {
    this.cache = new StreamStateCache(events, STOCK_FOLD, MAX_CACHED_STOCKS);
  }

  load(kind: LimitedStock, resourceUid: string): Promise<CachedState<StockState>> {
    return this.cache.load(stockStream(kind, resourceUid));
  }

  /** The state of a stock's stream, by the stream's name. */
  loadStream(stream: string): Promise<CachedState<StockState>> {
    return this.cache.load(stream);
  }

  absorb(stream: string, appended: readonly RecordedEvent[]): void {
    if (appended.length && stockEventOf(appended[0])) this.cache.absorb(stream, appended);
  }
}
