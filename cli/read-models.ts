/** `rebuild` and `verify`: the read models replayed from the log, and checked against the live ones. */
import pino from 'pino';
import { ProjectorLease } from '../projections/lease';
import { LogCheckpointWatcher } from '../projections/log-checkpoint-watcher';
import { PROJECTORS } from '../projections/projectors';
import { CHECKPOINTS } from '../projections/runner';
import { replay, verifyReadModels } from '../projections/verify';
import type { Verification } from '../shared/read-models/verification';
import type { RunConfig } from '../shared/config/env';
import type { EventStore } from '../shared/event-store/port';
import { MemoryReadStore } from '../shared/read-store/memory';
import { MongoReadStore } from '../shared/read-store/mongo';
import type { ReadStore } from '../shared/read-store/port';
import { shown, UsageError, writeLine } from './output';
import { progressReporter, waitingReporter } from './progress';
import { askServer, type ServerOptions } from './server';


const LIVE_WAIT_MS = 10_000;

/** The CLI says what happened on its own lines; the lease's log lines are a service's. */
const silent = pino({ level: 'silent' });

/**
 * `rebuild`: replays the log into fresh read models and reports the rate. With MONGO_URL the
 * named projectors' collections are dropped and refilled (stop the projector role first); in
 * embedded mode the live read models are in the server's memory and rebuilt at each start, so
 * this replays into a fresh in-memory store: a dry run that times the replay.
 */
export async function rebuild(events: EventStore, config: RunConfig, names: string[]): Promise<number> {
  const unknown = names.filter((n) => !PROJECTORS.some((p) => p.name === n));
  if (unknown.length) throw new UsageError(`rebuild: unknown projector ${unknown.join(', ')}; the projectors are ${PROJECTORS.map((p) => p.name).join(', ')}`);
  const selected = names.length ? PROJECTORS.filter((p) => names.includes(p.name)) : PROJECTORS;
  const store: ReadStore = config.mongoUrl ? await MongoReadStore.connect(config.mongoUrl, config.mongoDatabase) : new MemoryReadStore();
  // A running projector's lease refuses the rebuild: both would write the same read models.
  const lease = config.mongoUrl ? new ProjectorLease(store, silent) : null;
  try {
    const holder = await lease?.take();
    if (holder) throw new UsageError(`rebuild: a projector (${holder.holder}) is writing the read models, its lease until ${new Date(holder.until).toISOString()}; stop the projector role first`);
    const head = await events.headPosition();
    if (config.mongoUrl) {
      for (const p of selected) {
        for (const c of [...p.collections, ...(p.retiredCollections ?? [])]) await store.dropCollection(c);
        await store.collection(CHECKPOINTS).deleteMany({ _id: p.name });
      }
    }
    const progress = progressReporter({ label: 'rebuild', to: head });
    const started = performance.now();
    const count = await replay(events, store, selected, { to: head, onProgress: progress.update });
    const seconds = Math.max(performance.now() - started, 1) / 1000;
    progress.done();
    if (config.mongoUrl) {
      // The projector role resumes from here instead of replaying again.
      for (const p of selected) await store.collection(CHECKPOINTS).updateOne({ _id: p.name }, { $set: { position: head } }, { upsert: true });
    }
    const where = config.mongoUrl ? `into MongoDB database ${config.mongoDatabase}` : 'into a fresh in-memory store (embedded mode: the server rebuilds its own read models at every start)';
    await writeLine(`rebuilt ${selected.map((p) => p.name).join(', ')} ${where}`);
    await writeLine(`${count} events in ${seconds.toFixed(2)} s: ${Math.round(count / seconds)} events/s`);
    return 0;
  } finally {
    await lease?.release();
    await store.close();
  }
}

/**
 * `verify`: compares the live read models with a fresh replay. With MONGO_URL they are read from
 * MongoDB here; in embedded mode they live in the server's memory, so the server compares them
 * (POST /v1/audit/verify). Exit 1 on any difference.
 */
export async function verify(openEvents: () => Promise<EventStore>, config: RunConfig, options: ServerOptions): Promise<number> {
  const result = config.mongoUrl ? await verifyMongo(await openEvents(), config) : await verifyOnServer(config, options);
  for (const d of result.differences) await writeLine(`${d.collection}  ${d._id}  ${d.path || '(document)'}: live ${shown(d.live)}, rebuilt ${shown(d.rebuilt)}`);
  const scope = `${result.collections.length} collections after replaying ${result.eventsReplayed} events (${(result.ms / 1000).toFixed(1)} s)`;
  const found = `${result.differences.length}${result.truncated ? ' (the first; the check stopped there)' : ''} difference(s)`;
  await writeLine(result.differences.length ? `${found} in ${scope}` : `read models match: ${scope}`);
  return result.differences.length ? 1 : 0;
}

async function verifyMongo(events: EventStore, config: RunConfig): Promise<Verification> {
  const store = await MongoReadStore.connect(config.mongoUrl!, config.mongoDatabase);
  try {
    const live = new LogCheckpointWatcher(store);
    const progress = progressReporter({ label: 'verify', to: await events.headPosition() });
    const result = await verifyReadModels(events, store, PROJECTORS, { waitForLive: (position) => live.waitFor(position, LIVE_WAIT_MS), onProgress: progress.update });
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
