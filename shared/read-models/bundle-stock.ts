/** Units of each limited bundle held by purchases: written by the bundle-stock projector, read by the store routes. */
export const BUNDLE_STOCK_COLLECTION = 'bundle_stock';

/** Units of a limited bundle held by purchases; `revision` guards against a redelivered event. */
export interface BundleStockDoc extends Record<string, unknown> {
  _id: string;
  taken: number;
  revision: number;
}
