import { Worker } from 'node:worker_threads';

/** How often the checkpointer copies committed WAL pages into the database file. */
const CHECKPOINT_EVERY_MS = 100;

/**
 * Runs in the worker thread, on its own connection. A PASSIVE checkpoint never waits for the
 * writer nor blocks it: it copies what it can and is repeated on the next tick. Plain CommonJS
 * evaluated from a string, so it runs the same under tsx, ts-jest and compiled code.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqliteModule);
const db = new Database(workerData.file, { timeout: 0 });
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const timer = setInterval(() => checkpoint.get(), workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Checkpoints the WAL of an event store file from a worker thread. SQLite's own automatic
 * checkpoint runs inside a commit, on the thread that commits: every few thousand pages an
 * append would wait for the copy and the database file's sync (the p99 of an action). Commits
 * stay durable either way: they are synced to the WAL before they are acknowledged.
 */
export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly stopped: Promise<void>;
  private stopping = false;

  /**
   * `onFailure` runs once if the worker ends other than by `stop` (an error, or killed): the
   * caller then goes back to automatic checkpoints.
   */
  constructor(file: string, onFailure: (error: Error) => void) {
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file, sqliteModule: require.resolve('better-sqlite3'), everyMs: CHECKPOINT_EVERY_MS },
    });
    // A store someone forgot to close must not keep the process alive.
    this.worker.unref();
    let failure: Error | undefined;
    this.worker.on('error', (error) => (failure = error));
    this.stopped = new Promise((resolve) =>
      this.worker.once('exit', (code) => {
        if (!this.stopping) onFailure(failure ?? new Error(`the checkpoint worker exited with code ${code}`));
        resolve();
      }),
    );
  }

  async stop(): Promise<void> {
    this.stopping = true;
    // Unreferenced, the worker would let a process with nothing else to do exit before it ends.
    this.worker.ref();
    this.worker.postMessage('stop');
    await this.stopped;
  }
}
