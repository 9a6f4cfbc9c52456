import type { EventMetadata, EventStore } from '../../shared/event-store/port';
import { newEventId } from '../../shared/ids';
import { retryOnConflict } from '../retry';

/**
 * A resource shared by all players and limited in number: activations of a limited trigger,
 * the stock of a limited bundle, a limited chest prize. Each has its own stream of units taken
 * and returned, keyed by holder (the action, purchase or opening that holds them). A take is an
 * append at the expected revision, so concurrent takes can never exceed the limit.
 */
export interface LimitedStock {
  /** The resource's stream: `<prefix>-<uid>`. */
  prefix: string;
  taken: string;
  returned: string;
}

export const TRIGGER_ACTIVATIONS: LimitedStock = { prefix: 'trigger-limit', taken: 'TriggerActivationTaken', returned: 'TriggerActivationReturned' };
export const BUNDLE_STOCK: LimitedStock = { prefix: 'bundle-stock', taken: 'BundleStockTaken', returned: 'BundleStockReturned' };
/** One stock per limited chest pool entry; a draw of the entry takes one unit. */
export const CHEST_STOCK: LimitedStock = { prefix: 'chest-stock', taken: 'ChestStockTaken', returned: 'ChestStockReturned' };

export const stockStream = (kind: LimitedStock, resourceUid: string): string => `${kind.prefix}-${resourceUid}`;

export interface StockUnitsEvent {
  resourceUid: string;
  /** The referenceId, provisionUid or opening that holds the units. */
  holder: string;
  playerId: string;
  units: number;
}

export interface StockState {
  /** Units per holder: read it, never change it (it is the cached state). */
  held: ReadonlyMap<string, number>;
  total: number;
  /** Stream revision the state was read at; -1 for a stream not yet written. */
  revision: number;
}

/**
 * States by store and stream, caught up by reading only the events appended since: a limited
 * trigger is checked on every qualifying action, long after its stream has grown.
 */
const cache = new WeakMap<EventStore, Map<string, { held: Map<string, number>; total: number; revision: number }>>();

/** Units held per holder, and the stream revision they were read at. */
export async function readStock(events: EventStore, kind: LimitedStock, resourceUid: string): Promise<StockState> {
  const stream = stockStream(kind, resourceUid);
  let streams = cache.get(events);
  if (!streams) cache.set(events, (streams = new Map()));
  const known = streams.get(stream);
  const fresh = await events.readStream(stream, { fromRevision: (known?.revision ?? -1) + 1 });
  // Another read may have caught the same entry up while this one awaited.
  const state = streams.get(stream) ?? known ?? { held: new Map<string, number>(), total: 0, revision: -1 };
  for (const e of fresh) {
    if (e.revision <= state.revision) continue;
    const d = e.data as StockUnitsEvent;
    if (e.type === kind.taken) {
      state.held.set(d.holder, (state.held.get(d.holder) ?? 0) + d.units);
      state.total += d.units;
    } else if (e.type === kind.returned) {
      state.total -= state.held.get(d.holder) ?? 0;
      state.held.delete(d.holder);
    }
    state.revision = e.revision;
  }
  streams.set(stream, state);
  return state;
}

/** Takes `units` for a holder, all or none (idempotent per holder); false when not enough are left. */
export function takeStock(events: EventStore, kind: LimitedStock, resourceUid: string, limit: number, holder: string, playerId: string, metadata: EventMetadata, units = 1): Promise<boolean> {
  return retryOnConflict(async () => {
    const { held, total, revision } = await readStock(events, kind, resourceUid);
    if (held.has(holder)) return true;
    if (total + units > limit) return false;
    const data: StockUnitsEvent = { resourceUid, holder, playerId, units };
    await events.appendToStream(stockStream(kind, resourceUid), [{ id: newEventId(), type: kind.taken, data, metadata }], revision === -1 ? 'no_stream' : revision);
    return true;
  });
}

/** Returns everything a holder took (a reversal, a refund, a decision that was not written); idempotent. */
export function returnStock(events: EventStore, kind: LimitedStock, resourceUid: string, holder: string, playerId: string, metadata: EventMetadata): Promise<void> {
  return retryOnConflict(async () => {
    const { held, revision } = await readStock(events, kind, resourceUid);
    const units = held.get(holder);
    if (units === undefined) return;
    const data: StockUnitsEvent = { resourceUid, holder, playerId, units };
    await events.appendToStream(stockStream(kind, resourceUid), [{ id: newEventId(), type: kind.returned, data, metadata }], revision);
  });
}
