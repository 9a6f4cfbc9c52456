import type { RecordedEvent } from '../events/recorded';
import { stockEventOf } from '../events';
import type { StreamFold } from '../stream-fold';

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

/** A limited stock's stream (`*-stock-*`, `trigger-limit-*`): nothing taken before its first event. */
export const STOCK_FOLD: StreamFold<StockState> = { initial: () => ({ taken: 0 }), evolve: evolveStock };
