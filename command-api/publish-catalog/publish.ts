/**
 * Publishing a catalog version: from the file at start (the file seeds the game), or through the
 * API (POST /v1/admin/catalog/publish and revert: the way a running game changes). Each is a
 * CatalogPublished on the `catalog` stream, appended at the revision read, so two publications at
 * once cannot both pass: the loser reads again and finds the version it expected gone (9040).
 */
import type { PublishedCatalog } from '../../domain/catalog/published';
import { removedEntries } from '../../domain/catalog/removals';
import type { Catalog } from '../../domain/catalog/schema';
import {
  CATALOG_VERSIONS_FOLD,
  evolveCatalogVersions,
  lastFromFile,
  newestVersion,
  statusAt,
  versionInForceAt,
  versionNumbered,
  type CatalogVersions,
  type CatalogVersionStatus,
} from '../../domain/catalog/versions';
import type { EventMetadata, EventStore } from '../../shared/adapters/event-store/port';
import type { CatalogPublished } from '../../domain/events/operator-events';
import { ERRORS, refuse } from '../../domain/errors';
import { fail, ok, type ConflictFailure, type Failure, type Result } from '../../domain/result';
import { foldStream } from '../../domain/stream-fold';
import { CATALOG_STREAM } from '../../domain/streams';
import { runCommand, type CommandResult } from '../command';
import { decision, type DecideEnv, type Decider, type ScheduledJob } from '../decision';
import { mutableCopy, type DeepReadonly } from '../../domain/deep-readonly';
import type { CommandDeps, CommandOrigin } from '../deps';
import { folded, type Reads, type UseCase } from '../use-case';

/** The version in force at `now` (its number, hash and catalog), or null before the first publication. */
export async function catalogInForce(
  events: EventStore,
  now: number,
): Promise<{ version: number; hash: string; catalog: Catalog } | null> {
  const versions = foldStream(CATALOG_STREAM, CATALOG_VERSIONS_FOLD, await events.readStream(CATALOG_STREAM)).state;
  const inForce = versionInForceAt(versions, now);
  return inForce && { version: inForce.version, hash: inForce.hash, catalog: mutableCopy<Catalog>(inForce.catalog) };
}

/** What every decision on the catalog reads: the catalog stream's versions. */
export function* catalogVersions(): Reads<CatalogVersions> {
  return (yield* folded(CATALOG_STREAM, CATALOG_VERSIONS_FOLD)).state;
}

/** The job that records a version's start or end (in-force-job.ts). */
export const CATALOG_IN_FORCE = 'catalog-in-force';

/** The job at a moment a version starts or ends: one per version and moment. */
export const catalogInForceJob = (version: number, moment: 'start' | 'end', runAt: number): ScheduledJob => ({
  type: CATALOG_IN_FORCE,
  id: `catalog-v${version}-${moment}`,
  runAt,
  payload: { runAt },
});

/** The operator's catalog file and its content hash. */
export interface PublishCatalogCommand {
  catalog: Catalog;
  hash: string;
}

export type Publication = PublishedCatalog & { published: boolean };

/**
 * The file is published as the next version when it differs (by content hash) from the last
 * version published from the file: an unchanged file publishes nothing, so a restart keeps the
 * versions published through the API since. Answers the version in force.
 */
export const decideFilePublication: Decider<PublishCatalogCommand, CatalogVersions, Publication> = (
  cmd,
  versions,
  env,
) => {
  const inForce = versionInForceAt(versions, env.now);
  if (inForce && lastFromFile(versions)?.hash === cmd.hash)
    return ok(
      decision({ version: inForce.version, catalog: mutableCopy<Catalog>(inForce.catalog), published: false }, []),
    );
  const version = (newestVersion(versions)?.version ?? 0) + 1;
  const { catalog, hash } = cmd;
  const data: CatalogPublished = {
    version,
    hash,
    publishedAt: env.now,
    catalog,
    source: 'file',
    publishedBy: 'file',
    comment: null,
    effectiveAt: env.now,
    until: null,
  };
  return ok(
    decision({ version, catalog, published: true }, [
      { stream: CATALOG_STREAM, events: [{ type: 'CatalogPublished', data }] },
    ]),
  );
};

/** The file's publication at start: decided on the catalog's versions. */
export const filePublication: UseCase<PublishCatalogCommand, CatalogVersions, Publication> = {
  read: catalogVersions,
  decide: decideFilePublication,
};

/** A publication through the API (a revert is one, of an earlier version's content). */
export interface PublishVersionCommand {
  catalog: Catalog;
  hash: string;
  /** The newest version the caller saw. */
  expectedVersion: number;
  comment: string | null;
  /** Unix ms; absent or past: at once. */
  effectiveAt: number | null;
  until: number | null;
  /** Removing entries of the version it follows is refused without it, as at a restart. */
  confirmRemovals: boolean;
  /** The API key's name. */
  publishedBy: string;
  revertOf: number | null;
}

export interface VersionPublished {
  version: number;
  status: CatalogVersionStatus;
  effectiveAt: number;
  until: number | null;
  /** False when the content was the version in force's: nothing was published. */
  published: boolean;
}

/** The problems of a catalog that removes entries of `previous`, as a restart logs them. */
export function removalProblems(
  previous: { version: number; catalog: DeepReadonly<Catalog> },
  next: Catalog,
): string[] {
  return removedEntries(mutableCopy<Catalog>(previous.catalog), next).map(
    ({ section, uids }) =>
      `${section}: removes ${uids.join(', ')} of catalog version ${previous.version}; put them back, or publish with confirmRemovals: true (docs/catalog.md, "Changing the catalog")`,
  );
}

/**
 * The next version, unless another was published since the one the caller saw (9040). Content
 * equal to the version in force, published at once and for good, publishes nothing. A version
 * that removes entries of the one it takes over from (in force at its effectiveAt) needs
 * confirmRemovals, as a restart needs CATALOG_CONFIRM_REMOVALS.
 */
export const decideVersionPublication: Decider<PublishVersionCommand, CatalogVersions, VersionPublished> = (
  cmd,
  versions,
  env,
) => {
  const newest = newestVersion(versions)?.version ?? 0;
  if (cmd.expectedVersion !== newest)
    return refuse(ERRORS.CATALOG_CHANGED, `version ${cmd.expectedVersion}; the newest is version ${newest}`);
  const effectiveAt = cmd.effectiveAt !== null && cmd.effectiveAt > env.now ? cmd.effectiveAt : env.now;
  if (cmd.until !== null && cmd.until <= effectiveAt)
    return fail(1001, 'until: must be after effectiveAt (or after now for a version in force at once)');
  const inForce = versionInForceAt(versions, env.now);
  if (inForce && effectiveAt === env.now && cmd.until === null && inForce.hash === cmd.hash)
    return ok(
      decision(
        {
          version: inForce.version,
          status: 'Active' as const,
          effectiveAt: inForce.effectiveAt,
          until: inForce.until,
          published: false,
        },
        [],
      ),
    );
  const replaced = versionInForceAt(versions, effectiveAt);
  const removals = replaced && !cmd.confirmRemovals ? removalProblems(replaced, cmd.catalog) : [];
  if (removals.length > 0) return fail(1001, removals.join('; '));
  const data: CatalogPublished = {
    version: newest + 1,
    hash: cmd.hash,
    publishedAt: env.now,
    catalog: cmd.catalog,
    source: 'api',
    publishedBy: cmd.publishedBy,
    comment: cmd.comment,
    effectiveAt,
    until: cmd.until,
    ...(cmd.revertOf !== null ? { revertOf: cmd.revertOf } : {}),
  };
  const after = evolveCatalogVersions(versions, { type: 'CatalogPublished', data });
  const status = statusAt(after, newestVersion(after)!, env.now);
  // Its start and end go on the record when they come (in-force-job.ts).
  const jobs = [
    ...(effectiveAt > env.now ? [catalogInForceJob(data.version, 'start', effectiveAt)] : []),
    ...(cmd.until !== null ? [catalogInForceJob(data.version, 'end', cmd.until)] : []),
  ];
  return ok(
    decision(
      { version: data.version, status, effectiveAt, until: cmd.until, published: true },
      [{ stream: CATALOG_STREAM, events: [{ type: 'CatalogPublished', data }] }],
      jobs,
    ),
  );
};

/** admin/catalog/publish: decided on the catalog's versions. */
export const versionPublication: UseCase<PublishVersionCommand, CatalogVersions, VersionPublished> = {
  read: catalogVersions,
  decide: decideVersionPublication,
};

/** A revert: version `version`'s content published again as the next version. */
export interface RevertVersionCommand {
  version: number;
  expectedVersion: number;
  comment: string | null;
  publishedBy: string;
}

export const decideRevert: Decider<RevertVersionCommand, CatalogVersions, VersionPublished> = (cmd, versions, env) => {
  const reverted = versionNumbered(versions, cmd.version);
  if (!reverted) return refuse(ERRORS.CATALOG_VERSION_NOT_FOUND, `version ${cmd.version}`);
  return decideVersionPublication(
    {
      catalog: mutableCopy<Catalog>(reverted.catalog),
      hash: reverted.hash,
      expectedVersion: cmd.expectedVersion,
      comment: cmd.comment,
      effectiveAt: null,
      until: null,
      // Its entries were in the game before: bringing the game back to them is what a revert is for.
      confirmRemovals: true,
      publishedBy: cmd.publishedBy,
      revertOf: reverted.version,
    },
    versions,
    env,
  );
};

/** admin/catalog/revert: decided on the catalog's versions. */
export const revertPublication: UseCase<RevertVersionCommand, CatalogVersions, VersionPublished> = {
  read: catalogVersions,
  decide: decideRevert,
};

/** Runs a publication through the API: read the catalog stream, decide, append at the revision read. */
export function publishVersion<Command>(
  useCase: UseCase<Command, CatalogVersions, VersionPublished>,
  cmd: Command,
  origin: CommandOrigin,
  deps: CommandDeps,
): Promise<CommandResult<VersionPublished>> {
  return runCommand<VersionPublished>(
    deps,
    // A CatalogPublished is recorded under the version it publishes (a refusal under the one in force).
    (published) => ({ ...origin.metadata, catalogVersion: published?.version ?? origin.metadata.catalogVersion }),
    async (read) => {
      const env: DecideEnv = {
        now: deps.now(),
        random: deps.random,
        newUid: deps.newUid,
        catalog: deps.catalog().catalog,
      };
      return useCase.decide(cmd, await read.run(useCase.read(cmd, env)), env);
    },
    origin.idempotency,
  );
}

/**
 * Publishes the operator's catalog file at start. Two processes starting at once both succeed: the
 * one that loses the race reads the winner's version and, if it is the same file, uses it.
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
    // A CatalogPublished is recorded under the version it publishes (or, unchanged, the one in force).
    (publication) => ({ ...origin, catalogVersion: publication?.version ?? deps.catalog().version }),
    async (read) => {
      const env: DecideEnv = { now, random: deps.random, newUid: deps.newUid, catalog };
      const command = { catalog, hash };
      return filePublication.decide(command, await read.run(filePublication.read(command, env)), env);
    },
  );
  return outcome.ok ? ok(outcome.value.answer) : outcome;
}
