import { join } from 'node:path';
import { indexCatalog } from './catalog-index';
import { loadCatalogFile } from './load';
import type { Catalog } from './types';

let catalog: Catalog;

beforeAll(async () => {
  const result = await loadCatalogFile(join(__dirname, '../../catalog/demo-catalog.yaml'));
  if (!result.ok) throw new Error(result.problems.join('\n'));
  catalog = result.catalog;
});

it('looks entries up by uid and actions by identifier', () => {
  const index = indexCatalog(catalog);
  expect(index.deliverableByUid.get('chest-silver')?.kind).toBe('Chest');
  expect(index.actionByIdentifier.get('purchase')?.uid).toBe('act-purchase');
  expect(index.actionByUid.get('act-spin')?.identifier).toBe('spin');
  expect(index.badgeByUid.get('b-vip')?.requiredBadge).toBe('b-first-purchase');
  expect(index.triggerByUid.get('t-lucky')?.limit).toBe(100);
  expect(index.rankSetByUid.get('rs-shopper')?.ranks).toHaveLength(3);
  expect(index.leaderboardByUid.get('lb-weekly')?.season).toBe('weekly');
  expect(index.storeByUid.get('st-main')?.bundles).toHaveLength(3);
  expect(index.deliverableByUid.get('nope')).toBeUndefined();
});

it('finds a bundle with its store', () => {
  const { bundle, store } = indexCatalog(catalog).bundleByUid.get('bd-hoodie')!;
  expect(bundle.requiresFulfillment).toBe(true);
  expect(store.uid).toBe('st-main');
});

it('sorts levels by number', () => {
  const reversed: Catalog = { ...catalog, levels: [...catalog.levels].reverse() };
  expect(indexCatalog(reversed).levelsSorted.map((l) => l.level)).toEqual([1, 2, 3, 4]);
});

it('lists the badges and triggers with a condition on each action, each once, in catalog order', () => {
  const index = indexCatalog(catalog);
  expect(index.badgesByAction.get('purchase')?.map((b) => b.uid)).toEqual([
    'b-first-purchase',
    'b-vip',
    'b-electronics-fan',
    'b-shopper',
  ]);
  expect(index.triggersByAction.get('login')?.map((t) => t.uid)).toEqual(['t-lucky']);
  expect(index.triggersByAction.get('deposit_failed')?.map((t) => t.uid)).toEqual(['t-risk']);
  expect(index.badgesByAction.get('login')).toBeUndefined();

  const twice: Catalog = {
    ...catalog,
    badges: [{ ...catalog.badges[0], conditions: [...catalog.badges[0].conditions, ...catalog.badges[0].conditions] }],
  };
  expect(indexCatalog(twice).badgesByAction.get('purchase')).toHaveLength(1);
});

it('is built once per catalog object', () => {
  expect(indexCatalog(catalog)).toBe(indexCatalog(catalog));
});
