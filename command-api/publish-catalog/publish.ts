import type { Catalog } from '../../shared/catalog/schema';
import type { EventMetadata, EventStore } from '../../shared/event-store/port';
import { newEventId } from '../../shared/ids';
import type { PublishedCatalog } from '../deps';

export const CATALOG_STREAM = 'catalog';

export interface CatalogPublished {
  version: number;
  hash: string;
  /** Unix ms. */
  publishedAt: number;
  catalog: Catalog;
}

/** The latest published catalog, or null before the first publication. */
export async function latestCatalog(events: EventStore): Promise<CatalogPublished | null> {
  const revision = await events.streamRevision(CATALOG_STREAM);
  if (revision < 0) return null;
  const [last] = await events.readStream(CATALOG_STREAM, { fromRevision: revision, maxCount: 1 });
  return last.data as CatalogPublished;
}

/**
 * Publishes the catalog as a new version when it differs from the latest one (by content hash),
 * so every change of rules is on the record; an unchanged file publishes nothing.
 */
export async function publishCatalog(events: EventStore, catalog: Catalog, hash: string, now: number, metadata: Pick<EventMetadata, 'correlationId' | 'causationId' | 'keyName'>): Promise<PublishedCatalog & { published: boolean }> {
  const latest = await latestCatalog(events);
  if (latest && latest.hash === hash) return { version: latest.version, catalog: latest.catalog, published: false };
  const version = (latest?.version ?? 0) + 1;
  const data: CatalogPublished = { version, hash, publishedAt: now, catalog };
  await events.appendToStream(CATALOG_STREAM, [{ id: newEventId(), type: 'CatalogPublished', data, metadata: { ...metadata, catalogVersion: version } }], latest ? version - 2 : 'no_stream');
  return { version, catalog, published: true };
}
