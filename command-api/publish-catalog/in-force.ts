import type { PublishedCatalog } from '../../domain/catalog/published';
import type { Catalog } from '../../domain/catalog/schema';
import {
  CATALOG_VERSIONS_FOLD,
  noCatalogVersions,
  versionInForceAt,
  type CatalogVersions,
} from '../../domain/catalog/versions';
import type { EventStore } from '../../shared/adapters/event-store/port';
import { CATALOG_STREAM } from '../../domain/streams';

/**
 * A process's copy of the catalog's versions, and the version in force at its clock. The version
 * in force is worked out from the list at each call, so a scheduled version starts and ends at
 * its times with no request then; the list is read again on `refresh` (after a publication here,
 * and every second for those of other processes), only its new events.
 */
export class CatalogInForce {
  private state: CatalogVersions = noCatalogVersions;
  /** The catalog stream's last revision folded into `state` (its events are not all publications). */
  private revision = -1;
  /** The last one worked out, kept while the clock stays before the next start or end of a version. */
  private cached: { from: number; to: number; published: PublishedCatalog } | null = null;
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly events: EventStore,
    private readonly now: () => number,
    /** In force before the first version is published (the file being published at start). */
    private readonly beforeFirst: Catalog,
  ) {}

  versions(): CatalogVersions {
    return this.state;
  }

  /** The version in force now; version 0, the file's content, before the first publication. */
  current(): PublishedCatalog {
    const t = this.now();
    if (this.cached && t >= this.cached.from && t < this.cached.to) return this.cached.published;
    const inForce = versionInForceAt(this.state, t);
    // The event's own catalog, as the service always used it: one object per version, which the
    // caches keyed by catalog (its index, its boards) keep finding; nothing changes it.
    const published = inForce
      ? { version: inForce.version, catalog: inForce.catalog as Catalog }
      : { version: 0, catalog: this.beforeFirst };
    this.cached = { from: t, to: this.nextChangeAfter(t), published };
    return published;
  }

  /** Reads the versions published since the last read; concurrent calls share one read. */
  refresh(): Promise<void> {
    this.refreshing ??= this.readNew().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  private async readNew(): Promise<void> {
    if ((await this.events.streamRevision(CATALOG_STREAM)) <= this.revision) return;
    const read = await this.events.readStream(CATALOG_STREAM, { fromRevision: this.revision + 1 });
    if (read.length === 0) return;
    this.state = read.reduce(CATALOG_VERSIONS_FOLD.evolve, this.state);
    this.revision = read[read.length - 1].revision;
    this.cached = null;
  }

  /** The first moment after `t` when a version starts or ends: the one in force cannot change before. */
  private nextChangeAfter(t: number): number {
    let next = Infinity;
    for (const v of this.state.versions) {
      if (v.effectiveAt > t) next = Math.min(next, v.effectiveAt);
      if (v.until !== null && v.until > t) next = Math.min(next, v.until);
    }
    return next;
  }
}
