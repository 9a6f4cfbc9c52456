/**
 * The projections' worker thread of the all-in-one process (app/projection-thread.ts starts it):
 * it holds the read models and runs the projectors over its own read-only connection to the
 * event log, which the main thread tells it of each commit. The read models are served to the
 * main thread over the port it is given (ForwardedReadStore).
 */
import path from 'node:path';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { RunConfig } from '../shared/adapters/config/env';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import type { Logger } from '../shared/adapters/logging/logger';
import { FileBackedReadStore } from '../shared/adapters/read-store/file-backed';
import { serveReadStore } from '../shared/adapters/read-store/forwarded';
import type { ReadStore } from '../shared/adapters/read-store/port';
import { PROJECTORS } from '../projections/projectors';
import { ProjectionRunner } from '../projections/runner';
import { openPlayerKeyStore, openReadStore, withPersonalData } from './adapters';
import type { FromWorker, ToWorker } from './projection-thread';

/** How often the projections' state is sent when no position moves it (a fault, a drop). */
const STATE_EVERY_MS = 250;

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;

const parent = parentPort!;
const { config, readStorePort } = (workerData as { data: { config: RunConfig; readStorePort: MessagePort } }).data;
const post = (message: FromWorker): void => parent.postMessage(message);

/** The service's logger is on the main thread: lines are sent there (the runner and the read store use these levels only). */
const log = Object.fromEntries(
  LEVELS.map((level) => [
    level,
    (fields: object, message?: string) =>
      post({ type: 'log', level, fields: JSON.parse(JSON.stringify(fields)) as object, message }),
  ]),
) as unknown as Logger;

async function main(): Promise<void> {
  // The read models are loaded and indexed at once, while the main thread opens and checks the
  // log; the log is opened when the projections first start (the main thread has created it by then).
  const readStore = await openReadStore(config, 'all', log);
  serveReadStore(readStore, readStorePort);
  let opening: Promise<Projecting> | null = null;
  let projecting: Projecting | null = null;
  parent.on('message', (message: ToWorker) => {
    // Before the start, nothing is woken: the runner reads the log from its checkpoint when it starts.
    if (message.type === 'appended') return projecting?.eventLog.appendedElsewhere();
    const done = (error?: unknown): void =>
      post({
        type: 'done',
        id: message.id,
        error: error === undefined ? undefined : String((error as Error).message ?? error),
      });
    if (message.type === 'start') {
      opening ??= openProjections(readStore).then((opened) => (projecting = opened));
      opening.then(
        (opened) =>
          opened.runner.start().then(() => {
            opened.sendState();
            void opened.follow();
            post({ type: 'started', id: message.id, keepsFile: readStore instanceof FileBackedReadStore });
          }, done),
        failed,
      );
    } else if (message.type === 'stop') (projecting?.runner.stop() ?? Promise.resolve()).then(() => done(), done);
    else if (message.type === 'close') {
      if (projecting) projecting.following = false;
      // The read models were closed through their port; the log's connection and the keys' go with the thread.
      void (projecting?.events.close() ?? Promise.resolve()).finally(() => process.exit(0));
    }
  });
}

type Projecting = Awaited<ReturnType<typeof openProjections>>;

/** The log's connection and the runner projecting it into `readStore`, with what sends the runner's state to the main thread. */
async function openProjections(readStore: ReadStore) {
  const eventLog = new SqliteEventStore(path.join(config.dataDir, 'events.sqlite'), {
    readonly: true,
    busyTimeoutMs: config.sqliteBusyTimeoutMs,
    onFault: (reason) => post({ type: 'fault', reason }),
  });
  // Not cached here: the main thread erases players, and a key kept in this thread would outlive its erasure.
  const events = withPersonalData(eventLog, await openPlayerKeyStore(config));
  /** Commit times of the events projected since the last message: the main thread measures their lag when it gets them. */
  let committedAt: number[] = [];
  const runner = new ProjectionRunner(events, readStore, PROJECTORS, log, (_position, createdAt) =>
    committedAt.push(createdAt),
  );
  let sent = { position: -1, problem: null as string | null, drops: 0, faulted: false };
  const sendState = (): void => {
    const state = {
      position: runner.position,
      problem: runner.problem(),
      drops: runner.drops,
      faulted: runner.faulted,
    };
    if (
      state.position === sent.position &&
      state.problem === sent.problem &&
      state.drops === sent.drops &&
      state.faulted === sent.faulted
    )
      return;
    post({ type: 'state', ...state, committedAt });
    committedAt = [];
    sent = state;
  };
  const projecting = {
    eventLog,
    events,
    runner,
    sendState,
    /** Cleared at close: each position the runner reaches is sent as it is reached (a write's answer waits for it). */
    following: true,
    async follow(): Promise<void> {
      while (projecting.following) {
        const reached = await runner.waitFor(runner.position + 1, STATE_EVERY_MS);
        // A faulted runner answers at once: its state is then sent now and then only.
        if (!reached && runner.faulted) await new Promise((resolve) => setTimeout(resolve, STATE_EVERY_MS));
        sendState();
      }
    },
  };
  return projecting;
}

const failed = (error: Error): void => post({ type: 'failed', name: error.name, message: error.message });

main().catch(failed);
