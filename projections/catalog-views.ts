import { VIEW_COLLECTIONS } from '../shared/read-models/catalog-views';
import { catalogViews } from './catalog-view-documents';
import type { Projector } from './runner';

/**
 * The admin views of the latest published catalog. A new version replaces them whole, so an
 * entry removed from the catalog leaves the views.
 */
export const catalogViewsProjector: Projector = {
  name: 'catalog-views',
  collections: Object.values(VIEW_COLLECTIONS),
  handles: new Set(['CatalogPublished']),
  async apply(event, store) {
    if (event.type !== 'CatalogPublished') return;
    const published = event.data;
    const views = catalogViews(published.catalog, published.publishedAt);
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
