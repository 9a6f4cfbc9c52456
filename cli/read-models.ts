/** `rebuild` and `verify`: the read models replayed from the log, and checked against the live ones. */
import fs from 'node:fs';
import pino from 'pino';
import { openMongoReadStore, readModelsFile } from '../app/adapters';
import { ProjectorLease } from '../projections/lease';
import { LiveReadModels } from '../projections/generations';
import { LogCheckpointWatcher } from '../projections/log-checkpoint-watcher';
import { PROJECTORS } from '../projections/projectors';
import { ProjectionRunner } from '../projections/runner';
import { CHECKPOINTS, type Projector } from '../projections/projector';
import { replay, verifyReadModels } from '../projections/verify';
import type { Verification } from '../shared/read-models/verification';
import type { RunConfig } from '../shared/adapters/config/env';
import { StoreUnavailableError, type EventStore } from '../shared/adapters/event-store/port';
import { createLogger } from '../shared/adapters/logging/logger';
import { FileBackedReadStore } from '../shared/adapters/read-store/file-backed';
import { shown, UsageError, writeLine } from './output';
import { progressReporter, waitingReporter } from './progress';
import { askServer, type ServerOptions } from './server';

const LIVE_WAIT_MS = 10_000;
/** How long a replay here may take to reach the log's head (a long log takes minutes). */
const REPLAY_WAIT_MS = 60 * 60_000;

/** The CLI says what happened on its own lines; the lease's log lines are a service's. */
const silent = pino({ level: 'silent' });

/**
 * `rebuild`: replays the log into fresh read models and reports the rate. With MONGO_URL the
 * named projectors' collections are dropped and refilled (stop the projector role first). In
 * embedded mode the same is done to DATA_DIR/read-models.sqlite, which a start resumes: only
 * while no service holds that file, else it is refused.
 */
export async function rebuild(events: EventStore, config: RunConfig, names: string[]): Promise<number> {
  const unknown = names.filter((n) => !PROJECTORS.some((p) => p.name === n));
  if (unknown.length)
    throw new UsageError(
      `rebuild: unknown projector ${unknown.join(', ')}; the projectors are ${PROJECTORS.map((p) => p.name).join(', ')}`,
    );
  const selected = names.length ? PROJECTORS.filter((p) => names.includes(p.name)) : PROJECTORS;
  return config.mongoUrl ? rebuildMongo(events, config, selected) : rebuildFile(events, config, selected);
}

async function rebuildMongo(events: EventStore, config: RunConfig, selected: readonly Projector[]): Promise<number> {
  const connected = await openMongoReadStore(config);
  // A running projector's lease refuses the rebuild: both would write the same read models.
  const lease = new ProjectorLease(connected, silent);
  try {
    const holder = await lease.take();
    if (holder)
      throw new UsageError(
        `rebuild: a projector (${holder.holder}) is writing the read models, its lease until ${new Date(holder.until).toISOString()}; stop the projector role first`,
      );
    // The live generation's read models (projections/generations.ts); none yet: the projector role builds them.
    const live = new LiveReadModels(connected, PROJECTORS);
    await live.refresh();
    if (live.problem())
      throw new UsageError('rebuild: no read models are live yet; start the projector role, which builds them');
    const store = live.store;
    const head = await events.headPosition();
    for (const p of selected) {
      for (const c of [...p.collections, ...(p.retiredCollections ?? [])]) await store.dropCollection(c);
      await store.collection(CHECKPOINTS).deleteMany({ _id: p.name });
    }
    const progress = progressReporter({ label: 'rebuild', to: head });
    const started = performance.now();
    const count = await replay(events, store, selected, { to: head, onProgress: progress.update });
    progress.done();
    // The projector role resumes from here instead of replaying again.
    for (const p of selected)
      await store.collection(CHECKPOINTS).updateOne({ _id: p.name }, { $set: { position: head } }, { upsert: true });
    await reportRebuild(selected, `into MongoDB database ${config.mongoDatabase}`, count, started);
    return 0;
  } finally {
    await lease.release();
    await connected.close();
  }
}

/** The read models file, rebuilt by the service's own projection runner, as a start would resume it. */
async function rebuildFile(events: EventStore, config: RunConfig, selected: readonly Projector[]): Promise<number> {
  const file = readModelsFile(config);
  const store = openReadModelsFile(file);
  if (!store)
    throw new Error(
      `rebuild: a running service holds ${file}; stop it first, then rebuild (its next start resumes the rebuilt file)`,
    );
  try {
    const head = await events.headPosition();
    const progress = progressReporter({ label: 'rebuild', to: head });
    let count = 0;
    const runner = new ProjectionRunner(events, store, PROJECTORS, stderrLog(), (position) =>
      progress.update(++count, position),
    );
    const started = performance.now();
    await runner.rebuild(selected.map((p) => p.name));
    const reached = await runner.waitFor(head, REPLAY_WAIT_MS);
    await runner.stop();
    progress.done();
    if (!reached)
      throw new Error(
        `rebuild: the replay stopped before position ${head}; ${file} is left to the next start, which replays what is missing`,
      );
    await reportRebuild(selected, `into ${file}`, count, started);
    return 0;
  } finally {
    await store.close();
  }
}

async function reportRebuild(
  selected: readonly Projector[],
  where: string,
  count: number,
  started: number,
): Promise<void> {
  const seconds = Math.max(performance.now() - started, 1) / 1000;
  await writeLine(`rebuilt ${selected.map((p) => p.name).join(', ')} ${where}`);
  await writeLine(`${count} events in ${seconds.toFixed(2)} s: ${Math.round(count / seconds)} events/s`);
}

/** The read models file for this process alone; null when another process (a running service) holds it. */
function openReadModelsFile(file: string): FileBackedReadStore | null {
  try {
    // A write that fails here is written again, and thrown, by close().
    return new FileBackedReadStore(file, () => undefined);
  } catch (error) {
    if (error instanceof StoreUnavailableError) return null;
    throw error;
  }
}

const stderrLog = () => createLogger('warn', process.stderr);

/**
 * `verify`: compares the live read models with a fresh replay. With MONGO_URL they are read from
 * MongoDB here. In embedded mode they are the running server's, so the server compares them (POST
 * /v1/audit/verify, also with --url); with no service running, those of DATA_DIR/read-models.sqlite,
 * brought up to the log's head first as a start would. Exit 1 on any difference.
 */
export async function verify(
  openEvents: () => Promise<EventStore>,
  config: RunConfig,
  options: ServerOptions,
): Promise<number> {
  const result = config.mongoUrl
    ? await verifyMongo(await openEvents(), config)
    : (!options.url && (await verifyFile(openEvents, config))) || (await verifyOnServer(config, options));
  for (const d of result.differences)
    await writeLine(
      `${d.collection}  ${d._id}  ${d.path || '(document)'}: live ${shown(d.live)}, rebuilt ${shown(d.rebuilt)}`,
    );
  const scope = `${result.collections.length} collections after replaying ${result.eventsReplayed} events (${(result.ms / 1000).toFixed(1)} s)`;
  const found = `${result.differences.length}${result.truncated ? ' (the first; the check stopped there)' : ''} difference(s)`;
  const verdict = result.differences.length
    ? `${found} in ${scope}`
    : result.unsettled
      ? `no difference found in ${scope}`
      : `read models match: ${scope}`;
  await writeLine(verdict);
  if (result.unsettled)
    await writeLine(`${result.unsettled} document(s) kept changing under writes during the check: verify again`);
  return result.differences.length ? 1 : 0;
}

/** The read models file checked here; null when a running service holds it (it is asked instead). */
async function verifyFile(openEvents: () => Promise<EventStore>, config: RunConfig): Promise<Verification | null> {
  const file = readModelsFile(config);
  if (!fs.existsSync(file))
    throw new Error(
      `verify: no read models file at ${file} and no service holding one: start the service, or pass --url`,
    );
  const store = openReadModelsFile(file);
  if (!store) return null;
  const events = await openEvents();
  try {
    const runner = new ProjectionRunner(events, store, PROJECTORS, stderrLog());
    await runner.start();
    try {
      const progress = progressReporter({ label: 'verify', to: await events.headPosition() });
      const result = await verifyReadModels(events, store, PROJECTORS, {
        waitForLive: (position) => runner.waitFor(position, REPLAY_WAIT_MS),
        onProgress: progress.update,
      });
      progress.done();
      return result;
    } finally {
      await runner.stop();
    }
  } finally {
    await store.close();
    await events.close();
  }
}

async function verifyMongo(events: EventStore, config: RunConfig): Promise<Verification> {
  const connected = await openMongoReadStore(config);
  const generation = new LiveReadModels(connected, PROJECTORS);
  const store = generation.store;
  try {
    await generation.refresh();
    const live = new LogCheckpointWatcher(store);
    const progress = progressReporter({ label: 'verify', to: await events.headPosition() });
    const result = await verifyReadModels(events, store, PROJECTORS, {
      waitForLive: (position) => live.waitFor(position, LIVE_WAIT_MS),
      onProgress: progress.update,
    });
    progress.done();
    return result;
  } finally {
    await store.close();
    await events.close();
  }
}

async function verifyOnServer(config: RunConfig, options: ServerOptions): Promise<Verification> {
  // The server answers once it has replayed and compared everything: only the time waited can be shown.
  const stop = waitingReporter('verify: the server is replaying the log and comparing');
  try {
    return await askServer<Verification>('verify', config, options, { method: 'POST', path: '/v1/audit/verify' });
  } finally {
    stop();
  }
}
