import type { RecordedEvent } from '../events/recorded';
import { stockEventOf } from '../events';

/** A limited stock: units held by what took them and did not give them back. */
export interface StockState {
  taken: number;
}

/** A stock after one event of its stream: units taken, or given back. */
export function evolveStock(state: StockState, event: RecordedEvent): StockState {
  const e = stockEventOf(event);
  if (!e) return state;
  return { taken: e.type.endsWith('Taken') ? state.taken + e.data.units : state.taken - e.data.units };
}
