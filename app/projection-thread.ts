import path from 'node:path';
import { MessageChannel, type Worker } from 'node:worker_threads';
import type { RunConfig } from '../shared/adapters/config/env';
import { StoreFaultError, StoreUnavailableError } from '../shared/adapters/event-store/port';
import type { Logger } from '../shared/adapters/logging/logger';
import { ForwardedReadStore } from '../shared/adapters/read-store/forwarded';
import { startWorker } from '../shared/adapters/worker-thread';
import { PROJECTORS } from '../projections/projectors';
import { PositionWaiters } from '../projections/position-waiters';

export type ToWorker = { type: 'appended' } | { type: 'start' | 'stop' | 'close'; id: number };

export type FromWorker =
  | {
      type: 'state';
      position: number;
      problem: string | null;
      drops: number;
      faulted: boolean;
      /** Commit times of the events projected since the last state. */
      committedAt: number[];
    }
  | { type: 'log'; level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal'; fields: object; message?: string }
  | { type: 'started'; id: number; keepsFile: boolean }
  /** The worker's connection found the log damaged (sent before the runner's state says it is faulted). */
  | { type: 'fault'; reason: string }
  | { type: 'done'; id: number; error?: string }
  | { type: 'failed'; name: string; message: string };

/**
 * The all-in-one process's projections, run in a worker thread (app/projection-worker.ts) so
 * that the main thread only answers requests and decides: the worker holds the read models and
 * projects the log into them; this side serves the read models through `readStore` (each call
 * a message), tells the worker of each commit, and knows how far it has projected, so that a
 * write is answered once its events are projected (read-your-writes) as with the runner in-process.
 */
export class ProjectionThread {
  readonly readStore: ForwardedReadStore;
  readonly projectors = PROJECTORS;
  /** Whether the worker holds the read models file (false: another process does, they are kept in memory only). */
  keepsFile = false;
  private readonly worker: Worker;
  private state = { position: 0, problem: null as string | null, drops: 0, faulted: false };
  /** Why the worker ended, when it did other than by close, and the error calls get since. */
  private ended: string | null = null;
  private endError: Error | null = null;
  private closing = false;
  private readonly waiters = new PositionWaiters();
  private nextId = 0;
  private readonly calls = new Map<number, { resolve(message: FromWorker): void; reject(error: Error): void }>();
  private readonly exited: Promise<void>;

  constructor(
    config: RunConfig,
    private readonly log: Logger,
    /** Told the lag of each event projected, as this thread learns of it (the projection-lag metric). */
    private readonly onProjected: (lagSeconds: number) => void,
    /** Told when the worker finds the log damaged: the main thread's connection refuses writes as if it had. */
    private readonly onLogFault: (reason: string) => void,
  ) {
    const { port1, port2 } = new MessageChannel();
    this.worker = startWorker(
      path.join(__dirname, `projection-worker${path.extname(__filename)}`),
      { config, readStorePort: port2 },
      [port2],
    );
    // The service keeps the process alive while it runs; the worker alone must not (a start that failed).
    this.worker.unref();
    this.readStore = new ForwardedReadStore(port1);
    this.worker.on('message', (message: FromWorker) => this.received(message));
    let failure: Error | undefined;
    this.worker.on('error', (error) => (failure = error));
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', (code) => {
        if (!this.closing) this.end(failure?.message ?? `the projections worker exited with code ${code}`);
        resolve();
      }),
    );
  }

  /** The worker's thread id (diagnostics: the projections are not on the main thread). */
  get threadId(): number {
    return this.worker.threadId;
  }

  /** Subscriptions to the log dropped or failed in the worker (each is retried). */
  get drops(): number {
    return this.state.drops;
  }

  /** Position up to which every projector has handled the log, as last told by the worker. */
  get position(): number {
    return this.state.position;
  }

  problem(): string | null {
    if (this.ended) return `projections stopped: ${this.ended}`;
    return this.state.problem;
  }

  /** The main thread committed: the worker reads the new events now rather than at its next poll. */
  appended(): void {
    if (!this.ended && !this.closing) this.worker.postMessage({ type: 'appended' } satisfies ToWorker);
  }

  async start(): Promise<void> {
    const started = await this.call('start');
    if (started.type === 'started') this.keepsFile = started.keepsFile;
  }

  async stop(): Promise<void> {
    if (!this.ended) await this.call('stop');
  }

  /** Ends the worker; the read models are closed first, through `readStore`. */
  async close(): Promise<void> {
    this.closing = true;
    // A write waiting for its projection is answered now, not when its wait runs out.
    this.waiters.fail();
    // Unreferenced, the worker would let a process with nothing else to do exit before it ends.
    this.worker.ref();
    if (!this.ended) this.worker.postMessage({ type: 'close', id: 0 } satisfies ToWorker);
    await this.exited;
  }

  /** Resolves true once `position` is projected, or false after `timeoutMs` (at once when it never will be). */
  waitFor(position: number, timeoutMs: number): Promise<boolean> {
    if (position <= this.state.position) return Promise.resolve(true);
    if (this.state.faulted || this.ended) return Promise.resolve(false);
    return this.waiters.wait(position, timeoutMs);
  }

  private call(type: 'start' | 'stop'): Promise<FromWorker> {
    if (this.endError) return Promise.reject(this.endError);
    const id = ++this.nextId;
    // A call under way keeps the process alive (a start awaited by nothing else would let it exit).
    this.worker.ref();
    return new Promise<FromWorker>((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      this.worker.postMessage({ type, id } satisfies ToWorker);
    }).finally(() => {
      if (this.calls.size === 0) this.worker.unref();
    });
  }

  private received(message: FromWorker): void {
    switch (message.type) {
      case 'state': {
        const now = Date.now();
        for (const at of message.committedAt) this.onProjected((now - at) / 1000);
        const { committedAt: _, type: __, ...state } = message;
        this.state = state;
        this.waiters.release(state.position);
        if (state.faulted) this.waiters.fail();
        return;
      }
      case 'fault':
        this.onLogFault(message.reason);
        return;
      case 'log':
        this.log[message.level](message.fields, message.message);
        return;
      case 'started':
      case 'done': {
        const call = this.calls.get(message.id);
        this.calls.delete(message.id);
        if (message.type === 'done' && message.error) call?.reject(new Error(message.error));
        else call?.resolve(message);
        return;
      }
      case 'failed': {
        // Opening the log or the read models failed: the start fails as it would in-process.
        const error =
          message.name === 'StoreFaultError'
            ? new StoreFaultError(message.message)
            : message.name === 'StoreUnavailableError'
              ? new StoreUnavailableError(message.message)
              : Object.assign(new Error(message.message), { name: message.name });
        this.end(error.message, error);
        void this.worker.terminate();
      }
    }
  }

  /** The worker is gone: nothing more is projected or read from it. */
  private end(reason: string, error: Error = new StoreUnavailableError(`projections stopped: ${reason}`)): void {
    if (this.ended) return;
    this.ended = reason;
    this.endError = error;
    this.readStore.fail(error);
    for (const call of this.calls.values()) call.reject(error);
    this.calls.clear();
    this.waiters.fail();
    if (!this.closing) this.log.error({ reason }, 'projections worker ended');
  }
}
