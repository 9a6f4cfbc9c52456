/** The catalog model: its schema, loading and validation, and the index of its entries. */
export * from './schema';
export { type CatalogParseResult, catalogHash, loadCatalogFile, parseCatalog, parseCatalogData } from './load';
export { type CatalogIndex, indexCatalog } from './catalog-index';
