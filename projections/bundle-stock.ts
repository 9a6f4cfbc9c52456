import { BUNDLE_STOCK_COLLECTION, type BundleStockDoc } from '../shared/read-models/bundle-stock';
import { BUNDLE_STOCK } from '../domain/streams';
import type { Projector } from './projector';

/**
 * Stock taken per bundle, kept apart from the store views: a catalog republish replaces those
 * whole, and the store routes merge the two when read.
 */
export const bundleStockProjector: Projector = {
  name: 'bundle-stock',
  collections: [BUNDLE_STOCK_COLLECTION],
  handles: new Set([BUNDLE_STOCK.taken, BUNDLE_STOCK.returned]),
  async apply(event, store) {
    if (event.type !== BUNDLE_STOCK.taken && event.type !== BUNDLE_STOCK.returned) return;
    const data = event.data;
    const collection = store.collection<BundleStockDoc>(BUNDLE_STOCK_COLLECTION);
    const doc = (await collection.findOne({ _id: data.resourceUid })) ?? {
      _id: data.resourceUid,
      taken: 0,
      revision: -1,
    };
    if (event.revision <= doc.revision) return;
    const taken = doc.taken + (event.type === BUNDLE_STOCK.taken ? data.units : -data.units);
    await collection.replaceOne({ _id: doc._id }, { _id: doc._id, taken, revision: event.revision }, { upsert: true });
  },
};
