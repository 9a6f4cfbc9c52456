/**
 * The start of a scheduled version and the end of a live event, put on the record: a job at each
 * effectiveAt and until appends a CatalogVersionInForce when the version in force then is not the
 * one the log last put in force. What follows the log (read models, replays, the feed, webhooks)
 * changes catalog on it; decisions never wait for it (each process works out the version in force
 * at its own clock), and a job run late (the service was down then) records what is in force
 * when it runs.
 */
import { z } from 'zod';
import { versionInForceAt, type CatalogVersions } from '../../domain/catalog/versions';
import { mutableCopy } from '../../domain/deep-readonly';
import type { Catalog } from '../../domain/catalog/schema';
import { ok } from '../../domain/result';
import { runCommand } from '../command';
import { CATALOG_STREAM } from '../../domain/streams';
import { decision, type Decider } from '../decision';
import type { UseCase } from '../use-case';
import { decisionEnv, jobMetadata, type CommandDeps } from '../deps';
import { CATALOG_IN_FORCE, catalogVersions } from './publish';

/** The version in force now, on the record when the log last put another in force; nothing otherwise. */
export const decideVersionInForce: Decider<Record<string, never>, CatalogVersions, number | null> = (
  _cmd,
  versions,
  env,
) => {
  const inForce = versionInForceAt(versions, env.now);
  if (!inForce || inForce.version === versions.announced) return ok(decision(inForce?.version ?? null, []));
  const data = {
    version: inForce.version,
    hash: inForce.hash,
    since: env.now,
    catalog: mutableCopy<Catalog>(inForce.catalog),
  };
  return ok(decision(inForce.version, [{ stream: CATALOG_STREAM, events: [{ type: 'CatalogVersionInForce', data }] }]));
};

/** The catalog-in-force job's command: decided on the catalog's versions. */
export const versionInForce: UseCase<Record<string, never>, CatalogVersions, number | null> = {
  read: catalogVersions,
  decide: decideVersionInForce,
};

const payloadSchema = z.object({ runAt: z.number() });

export function registerCatalogJobs(deps: CommandDeps): void {
  deps.jobs.handle(CATALOG_IN_FORCE, async (payload, jobId) => {
    const { runAt } = payloadSchema.parse(payload);
    // Found early (another clock): run again when it is time.
    if (deps.now() < runAt) return deps.jobs.schedule(CATALOG_IN_FORCE, jobId, runAt, payload);
    const outcome = await runCommand(deps, jobMetadata(jobId, deps), async (read) => {
      const env = decisionEnv(deps);
      return versionInForce.decide({}, await read.run(versionInForce.read({}, env)), env);
    });
    // Contended through every attempt: thrown, so that the job runs again.
    if (!outcome.ok) throw new Error(`recording the catalog version in force: ${outcome.failure.message}`);
  });
}
