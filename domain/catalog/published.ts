import type { Catalog } from './schema';

/** The catalog in force: the latest published version and its content. */
export interface PublishedCatalog {
  version: number;
  catalog: Catalog;
}
