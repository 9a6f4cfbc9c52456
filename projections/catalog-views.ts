import { VIEW_COLLECTIONS } from '../shared/read-models/catalog-views';
import { catalogViews } from './catalog-view-documents';
import type { Projector } from './projector';
import { catalogPutInForce } from '../domain/catalog/versions';
import type { Catalog } from '../domain/catalog/schema';
import { mutableCopy } from '../domain/deep-readonly';

/**
 * The admin views of the catalog in force. A new version in force replaces them whole, so an
 * entry removed from the catalog leaves the views.
 */
export const catalogViewsProjector: Projector = {
  name: 'catalog-views',
  collections: Object.values(VIEW_COLLECTIONS),
  handles: new Set(['CatalogPublished', 'CatalogVersionInForce']),
  async apply(event, store) {
    // A version scheduled later changes the views when it comes into force (its CatalogVersionInForce).
    const published = catalogPutInForce(event);
    if (!published) return;
    const views = catalogViews(
      mutableCopy<Catalog>(published.catalog),
      'since' in published ? published.since : published.publishedAt,
    );
    for (const [kind, docs] of Object.entries(views) as [
      keyof typeof VIEW_COLLECTIONS,
      (typeof views)[keyof typeof views],
    ][]) {
      const collection = store.collection(VIEW_COLLECTIONS[kind]);
      const keep = docs.map((d) => d._id);
      await collection.bulkWrite([
        { deleteMany: { filter: { _id: { $nin: keep } } } },
        ...docs.map((d) => ({ replaceOne: { filter: { _id: d._id }, replacement: d, upsert: true } })),
      ]);
    }
  },
};
