/**
 * `recompute`: the store's history re-decided under the published catalog (command-api/recompute),
 * here on the store. It reports first and asks before applying, unless --yes or --dry-run.
 */
import { StreamStates } from '../shared/adapters/event-store/stream-states';
import { newUid, secureRandom } from '../domain/ids';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline/promises';
import { catalogInForce } from '../command-api/publish-catalog/publish';
import { recompute } from '../command-api/recompute/run';
import type { EventStore } from '../shared/adapters/event-store/port';
import { localIsoToEpochMs, parseLocalIso } from '../domain/time/local-time';
import { UsageError, writeLine } from './output';
import { progressReporter, type ProgressWriter } from './progress';
import { summary } from './simulate';

export interface RecomputeCliOptions {
  /** A local date-time in the catalog's zone. */
  from?: string;
  dryRun: boolean;
  yes: boolean;
  /** Answers the question (stdin by default). */
  ask?(question: string): Promise<string>;
  progressTo?: ProgressWriter;
}

const TOP = 100;

/** Exit 1 when no catalog is published or the question is answered no, else 0. */
export async function runRecompute(events: EventStore, options: RecomputeCliOptions): Promise<number> {
  if (options.from !== undefined && !parseLocalIso(options.from))
    throw new UsageError(`recompute: --from must be a local date-time YYYY-MM-DDTHH:mm:ss, got "${options.from}"`);
  const published = await catalogInForce(events, Date.now());
  if (!published) {
    process.stderr.write('recompute: no catalog is published in this store\n');
    return 1;
  }
  const deps = {
    events,
    // One pass over the log: no state cache is worth keeping.
    states: new StreamStates(events, []),
    catalog: () => ({ version: published.version, catalog: published.catalog }),
    now: () => Date.now(),
    random: secureRandom,
    newUid,
  };
  const from =
    options.from === undefined ? undefined : localIsoToEpochMs(options.from, published.catalog.settings.timezone);
  const recomputeUid = randomUUID();
  const metadata = {
    correlationId: recomputeUid,
    causationId: recomputeUid,
    keyName: 'cli',
    catalogVersion: published.version,
  };
  const pass = async (dryRun: boolean) => {
    const progress = progressReporter({
      label: 'recompute',
      to: await events.headPosition(),
      writer: options.progressTo,
    });
    const done = await recompute(deps, {
      recomputeUid,
      from,
      dryRun,
      top: TOP,
      metadata,
      onProgress: (position) => progress.update(position, position),
    });
    progress.done();
    return done;
  };
  const { report } = await pass(true);
  const under = `catalog version ${published.version}`;
  if (options.dryRun || report.playersAffected === 0) {
    for (const line of summary(report, under, options.dryRun ? 'Dry run: nothing was written.' : 'Nothing to change.'))
      await writeLine(line);
    return 0;
  }
  for (const line of summary(report, under, 'Not applied yet.')) await writeLine(line);
  if (!options.yes) {
    const answer = await (options.ask ?? askStdin)(`Apply to ${report.playersAffected} players? [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) {
      await writeLine('Not applied: nothing was written.');
      return 1;
    }
  }
  await pass(false);
  await writeLine(`Applied: ${report.playersAffected} players recomputed (recompute ${recomputeUid}).`);
  return 0;
}

async function askStdin(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    // An input that ends unanswered (closed or empty) says no: the question would otherwise never settle.
    return await new Promise<string>((resolve, reject) => {
      rl.once('close', () => resolve(''));
      rl.question(question).then(resolve, reject);
    });
  } finally {
    rl.close();
  }
}
