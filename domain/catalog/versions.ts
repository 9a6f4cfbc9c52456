/**
 * The catalog's versions, folded from the `catalog` stream, and which one is in force at a moment.
 * A version may be published in force at once or scheduled (effectiveAt later, until to end it):
 * the version in force at t is, among those with effectiveAt <= t and until null or > t, the one
 * with the latest effectiveAt, the higher version on a tie. So when a live event ends, the version
 * in force before it applies again, and a version published while a scheduled one is pending does
 * not cancel it. Every process computes it at its own clock from the same list: no event is needed
 * at the moment a scheduled version starts or ends.
 */
import type { DeepReadonly } from '../deep-readonly';
import { operatorEventOf } from '../events';
import type { CatalogPublished, CatalogVersionInForce } from '../events/operator-events';
import type { StreamFold } from '../stream-fold';
import type { Catalog } from './schema';

export type CatalogVersionSource = 'file' | 'api';
export type CatalogVersionStatus = 'Active' | 'Scheduled' | 'Ended' | 'Superseded';

/** One version as published, its content included. */
export interface CatalogVersion {
  version: number;
  source: CatalogVersionSource;
  publishedAt: number;
  /** The API key's name, or `file`. */
  publishedBy: string;
  comment: string | null;
  effectiveAt: number;
  until: number | null;
  hash: string;
  /** The version whose content a revert published again. */
  revertOf: number | null;
  catalog: DeepReadonly<Catalog>;
}

/** Every version published, oldest first (version n at index n - 1). */
export interface CatalogVersions {
  readonly versions: readonly CatalogVersion[];
  /**
   * The version the log last put in force (a publication in force at once, or a
   * CatalogVersionInForce): what the read models follow; null before the first.
   */
  readonly announced: number | null;
}

export const noCatalogVersions: CatalogVersions = { versions: [], announced: null };

/** The catalog stream's fold: every version published (its other events leave them as they were). */
export const CATALOG_VERSIONS_FOLD: StreamFold<CatalogVersions> = {
  initial: () => noCatalogVersions,
  evolve(state, recorded) {
    const e = operatorEventOf(recorded);
    return e ? evolveCatalogVersions(state, e) : state;
  },
};

/**
 * The catalog an event of the catalog stream puts in force for what follows the log (read
 * models, replays): a publication in force at once, or a scheduled version's start or a live
 * event's end; null for a publication scheduled later (its CatalogVersionInForce comes then).
 */
export function catalogPutInForce(event: {
  type: string;
  data: unknown;
}): DeepReadonly<CatalogPublished | CatalogVersionInForce> | null {
  if (event.type === 'CatalogVersionInForce') return event.data as DeepReadonly<CatalogVersionInForce>;
  if (event.type !== 'CatalogPublished') return null;
  const e = event.data as DeepReadonly<CatalogPublished>;
  return e.effectiveAt === undefined || e.effectiveAt <= e.publishedAt ? e : null;
}

/**
 * The versions with one more event of the catalog stream; a new state, the given one unchanged.
 * A publication recorded before scheduling existed reads as published from the file, in force
 * from its publication, for good.
 */
export function evolveCatalogVersions(
  state: CatalogVersions,
  event: { type: string; data: DeepReadonly<CatalogPublished> | unknown },
): CatalogVersions {
  if (event.type === 'CatalogVersionInForce')
    return { ...state, announced: (event.data as DeepReadonly<CatalogVersionInForce>).version };
  if (event.type !== 'CatalogPublished') return state;
  const e = event.data as DeepReadonly<CatalogPublished>;
  const version: CatalogVersion = {
    version: e.version,
    source: e.source ?? 'file',
    publishedAt: e.publishedAt,
    publishedBy: e.publishedBy ?? 'file',
    comment: e.comment ?? null,
    effectiveAt: e.effectiveAt ?? e.publishedAt,
    until: e.until ?? null,
    hash: e.hash,
    revertOf: e.revertOf ?? null,
    catalog: e.catalog,
  };
  const announced = catalogPutInForce(event) ? version.version : state.announced;
  return { versions: [...state.versions, version], announced };
}

/** The newest version published, or null before the first. */
export const newestVersion = (state: CatalogVersions): CatalogVersion | null => state.versions.at(-1) ?? null;

/** A version by number, or null when there is none. */
export const versionNumbered = (state: CatalogVersions, version: number): CatalogVersion | null =>
  Number.isInteger(version) && version >= 1 ? (state.versions[version - 1] ?? null) : null;

/** The last version published from the file: a start publishes the file only when it differs from it. */
export const lastFromFile = (state: CatalogVersions): CatalogVersion | null =>
  [...state.versions].reverse().find((v) => v.source === 'file') ?? null;

/**
 * The version in force at `t`: among the versions with effectiveAt <= t and until null or > t,
 * the latest effectiveAt, the higher version on a tie; null when none is (before the first).
 */
export function versionInForceAt(state: CatalogVersions, t: number): CatalogVersion | null {
  let inForce: CatalogVersion | null = null;
  for (const v of state.versions) {
    if (v.effectiveAt > t || (v.until !== null && v.until <= t)) continue;
    // Versions are in ascending order: an equal effectiveAt later in the list is the higher version.
    if (!inForce || v.effectiveAt >= inForce.effectiveAt) inForce = v;
  }
  return inForce;
}

/**
 * A version's status at `t`: Active (in force), Scheduled (in force later), Ended (its until has
 * passed) or Superseded (another is in force, and it will not come back on its own schedule).
 */
export function statusAt(state: CatalogVersions, version: CatalogVersion, t: number): CatalogVersionStatus {
  if (versionInForceAt(state, t)?.version === version.version) return 'Active';
  if (version.until !== null && version.until <= t) return 'Ended';
  if (version.effectiveAt > t) return 'Scheduled';
  return 'Superseded';
}
