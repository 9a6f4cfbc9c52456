import type { PublishedCatalog } from '../../shared/domain/catalog/published';
import type { Catalog } from '../../shared/domain/catalog/schema';
import type { EventMetadata, EventStore } from '../../shared/adapters/event-store/port';
import { operatorEventOf } from '../../shared/domain/events';
import type { CatalogPublished } from '../../shared/domain/events/operator-events';
import { ok, type ConflictFailure, type Failure, type Result } from '../../shared/domain/result';
import { CATALOG_STREAM } from '../../shared/domain/streams';
import { runCommand } from '../command';
import { decision, type Decision } from '../decision';
import type { CommandDeps } from '../deps';

/** The latest published catalog, or null before the first publication. */
export async function latestCatalog(events: EventStore): Promise<CatalogPublished | null> {
  const revision = await events.streamRevision(CATALOG_STREAM);
  if (revision < 0) return null;
  const [last] = await events.readStream(CATALOG_STREAM, { fromRevision: revision, maxCount: 1 });
  const e = operatorEventOf(last);
  return e?.type === 'CatalogPublished' ? e.data : null;
}

/**
 * A catalog that differs from the latest published version (by content hash) is published as
 * the next version, so every change of rules is on the record; an unchanged file publishes
 * nothing. Answers the version in force.
 */
export function decidePublication(
  catalog: Catalog,
  hash: string,
  latest: CatalogPublished | null,
  now: number,
): Decision<PublishedCatalog & { published: boolean }> {
  if (latest && latest.hash === hash)
    return decision({ version: latest.version, catalog: latest.catalog, published: false }, []);
  const version = (latest?.version ?? 0) + 1;
  return decision({ version, catalog, published: true }, [
    {
      stream: CATALOG_STREAM,
      events: [{ type: 'CatalogPublished', data: { version, hash, publishedAt: now, catalog } }],
    },
  ]);
}

/**
 * Publishes the operator's catalog at start. Two processes starting at once both succeed: the one
 * that loses the race reads the winner's version and, if it is the same catalog, uses it.
 */
export async function publishCatalog(
  deps: CommandDeps,
  catalog: Catalog,
  hash: string,
  now: number,
  origin: Pick<EventMetadata, 'correlationId' | 'causationId' | 'keyName'>,
): Promise<Result<PublishedCatalog & { published: boolean }, Failure | ConflictFailure>> {
  type Publication = PublishedCatalog & { published: boolean };
  const outcome = await runCommand<Publication>(
    deps,
    // A CatalogPublished is recorded under the version it publishes.
    (publication) => ({ ...origin, catalogVersion: publication.version }),
    async (read) => {
      const events = await read.stream(CATALOG_STREAM);
      const last = events.length ? operatorEventOf(events[events.length - 1]) : null;
      return ok(decidePublication(catalog, hash, last?.type === 'CatalogPublished' ? last.data : null, now));
    },
  );
  return outcome.ok ? ok(outcome.value.answer) : outcome;
}
