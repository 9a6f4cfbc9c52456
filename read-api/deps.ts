import type { PublishedCatalog } from '../domain/catalog/published';
import type { EventStore } from '../shared/adapters/event-store/port';
import type { PlayerStates } from '../shared/adapters/event-store/player-states';
import type { StockStates } from '../shared/adapters/event-store/stock-states';

/** What the reads over streams need: a player's state, a limited stock, the catalog in force, the clock. */
export interface StreamReadDeps {
  events: EventStore;
  players: PlayerStates;
  stocks: StockStates;
  catalog(): PublishedCatalog;
  now(): number;
}
