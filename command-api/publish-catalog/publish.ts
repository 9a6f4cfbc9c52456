import type { PublishedCatalog } from '../../shared/domain/catalog/published';
import type { Catalog } from '../../shared/domain/catalog/schema';
import type { EventMetadata, EventStore, RecordedEvent } from '../../shared/adapters/event-store/port';
import { operatorEventOf } from '../../shared/domain/events';
import type { CatalogPublished } from '../../shared/domain/events/operator-events';
import { ok, type ConflictFailure, type Failure, type Result } from '../../shared/domain/result';
import { CATALOG_STREAM } from '../../shared/domain/streams';
import { runCommand } from '../command';
import { decision, type Decider } from '../decision';
import { mutableCopy } from '../../shared/domain/deep-readonly';
import type { CommandDeps } from '../deps';

/** The latest published catalog, or null before the first publication. */
export async function latestCatalog(events: EventStore): Promise<CatalogPublished | null> {
  const revision = await events.streamRevision(CATALOG_STREAM);
  if (revision < 0) return null;
  const [last] = await events.readStream(CATALOG_STREAM, { fromRevision: revision, maxCount: 1 });
  const e = operatorEventOf(last);
  return e?.type === 'CatalogPublished' ? e.data : null;
}

/** The operator's catalog and its content hash. */
export interface PublishCatalogCommand {
  catalog: Catalog;
  hash: string;
}

/** The latest published version, or null before the first publication. */
export interface PublicationState {
  latest: CatalogPublished | null;
}

export type Publication = PublishedCatalog & { published: boolean };

/**
 * A catalog that differs from the latest published version (by content hash) is published as
 * the next version, so every change of rules is on the record; an unchanged file publishes
 * nothing. Answers the version in force.
 */
export const decidePublication: Decider<PublishCatalogCommand, PublicationState, Publication> = (
  cmd,
  { latest },
  env,
) => {
  if (latest && latest.hash === cmd.hash)
    return ok(
      decision({ version: latest.version, catalog: mutableCopy<Catalog>(latest.catalog), published: false }, []),
    );
  const version = (latest?.version ?? 0) + 1;
  const { catalog, hash } = cmd;
  return ok(
    decision({ version, catalog, published: true }, [
      {
        stream: CATALOG_STREAM,
        events: [{ type: 'CatalogPublished', data: { version, hash, publishedAt: env.now, catalog } }],
      },
    ]),
  );
};

/** The state a publication decides on: the catalog stream's last event, when it is a publication. */
export function publicationStateOf(events: readonly RecordedEvent[]): PublicationState {
  const last = events.length ? operatorEventOf(events[events.length - 1]) : null;
  return { latest: last?.type === 'CatalogPublished' ? last.data : null };
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
): Promise<Result<Publication, Failure | ConflictFailure>> {
  const outcome = await runCommand<Publication>(
    deps,
    // A CatalogPublished is recorded under the version it publishes.
    (publication) => ({ ...origin, catalogVersion: publication.version }),
    async (read) => {
      const state = publicationStateOf(await read.stream(CATALOG_STREAM));
      // The env's catalog is the one this publication puts in force: no other is in force yet at start.
      return decidePublication({ catalog, hash }, state, { now, random: deps.random, newUid: deps.newUid, catalog });
    },
  );
  return outcome.ok ? ok(outcome.value.answer) : outcome;
}
