import type { PublishedCatalog } from '../domain/catalog/published';
import type { EventStore } from '../shared/adapters/event-store/port';
import type { PlayerStates } from '../shared/adapters/event-store/player-states';
import type { StockStates } from '../shared/adapters/event-store/stock-states';
import type { ReadStore } from '../shared/adapters/read-store/port';

/** What the reads over streams need: a player's state, a limited stock, the catalog in force, the clock. */
export interface StreamReadDeps {
  events: EventStore;
  players: PlayerStates;
  stocks: StockStates;
  catalog(): PublishedCatalog;
  now(): number;
}

/** What the reads over the read models need (the admin views and the experiments' results): the store, the clock. */
export interface ReadDeps {
  store: ReadStore;
  now(): number;
}
