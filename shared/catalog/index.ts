export * from './schema';
export { type CatalogParseResult, canonicalJson, catalogHash, loadCatalogFile, parseCatalog } from './load';
export { type CatalogIndex, indexCatalog } from './catalog-index';
