/** O(1) lookups into a catalog, built once per catalog object. */
import type { Action, Badge, Bundle, Catalog, Deliverable, Leaderboard, Level, RankSet, Store, Trigger } from './types';

export interface CatalogIndex {
  readonly catalog: Catalog;
  readonly deliverableByUid: ReadonlyMap<string, Deliverable>;
  readonly actionByIdentifier: ReadonlyMap<string, Action>;
  readonly actionByUid: ReadonlyMap<string, Action>;
  readonly badgeByUid: ReadonlyMap<string, Badge>;
  readonly triggerByUid: ReadonlyMap<string, Trigger>;
  readonly rankSetByUid: ReadonlyMap<string, RankSet>;
  /** Ascending by level number. */
  readonly levelsSorted: readonly Level[];
  readonly leaderboardByUid: ReadonlyMap<string, Leaderboard>;
  readonly storeByUid: ReadonlyMap<string, Store>;
  readonly bundleByUid: ReadonlyMap<string, { bundle: Bundle; store: Store }>;
  /** Action identifier -> badges with at least one condition on it, in catalog order, each once. */
  readonly badgesByAction: ReadonlyMap<string, readonly Badge[]>;
  /** Action identifier -> triggers with at least one condition on it, in catalog order, each once. */
  readonly triggersByAction: ReadonlyMap<string, readonly Trigger[]>;
}

const indexes = new WeakMap<Catalog, CatalogIndex>();

/**
 * The index of a validated catalog (uids and identifiers are then unique). Inactive entries are
 * included: callers decide what isActive means for them. Cached per catalog object, which must
 * therefore not be mutated.
 */
export function indexCatalog(catalog: Catalog): CatalogIndex {
  const cached = indexes.get(catalog);
  if (cached) return cached;
  const byUid = <T extends { uid: string }>(entries: readonly T[]) => new Map(entries.map((e) => [e.uid, e]));
  const index: CatalogIndex = {
    catalog,
    deliverableByUid: byUid(catalog.deliverables),
    actionByIdentifier: new Map(catalog.actions.map((a) => [a.identifier, a])),
    actionByUid: byUid(catalog.actions),
    badgeByUid: byUid(catalog.badges),
    triggerByUid: byUid(catalog.triggers),
    rankSetByUid: byUid(catalog.rankSets),
    levelsSorted: [...catalog.levels].sort((a, b) => a.level - b.level),
    leaderboardByUid: byUid(catalog.leaderboards),
    storeByUid: byUid(catalog.stores),
    bundleByUid: new Map(
      catalog.stores.flatMap((store) => store.bundles.map((bundle) => [bundle.uid, { bundle, store }] as const)),
    ),
    badgesByAction: byConditionAction(catalog.badges),
    triggersByAction: byConditionAction(catalog.triggers),
  };
  indexes.set(catalog, index);
  return index;
}

function byConditionAction<T extends Badge | Trigger>(rules: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const rule of rules) {
    for (const action of new Set(rule.conditions.map((c) => c.action))) {
      const list = out.get(action);
      if (list) list.push(rule);
      else out.set(action, [rule]);
    }
  }
  return out;
}
