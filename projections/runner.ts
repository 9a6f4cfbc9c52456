import type { EventStore, RecordedEvent, Subscription } from '../shared/event-store/port';
import type { Logger } from '../shared/logging/logger';
import type { ReadStore } from '../shared/read-store/port';

/** Turns events into read models. Handlers are idempotent: delivery is at least once. */
export interface Projector {
  name: string;
  /** Collections it owns: dropped on rebuild. */
  collections: readonly string[];
  /** Event types it handles; others are skipped without touching the read store. */
  handles: ReadonlySet<string>;
  apply(event: RecordedEvent, store: ReadStore): Promise<void>;
}

export const CHECKPOINTS = 'checkpoints';
/** The checkpoint of the whole log: how far the runner got, for readers in other processes. */
export const LOG_CHECKPOINT = '$log';
const LOG_CHECKPOINT_EVERY_MS = 20;
const RETRY_AFTER_FAULT_MS = 1000;

interface Waiter {
  position: number;
  resolve(): void;
}

/**
 * Runs projectors from one catch-up subscription to the global log. Each projector keeps its
 * own checkpoint (last handled position), so one can be rebuilt while the others keep theirs.
 */
export class ProjectionRunner {
  private subscription: Subscription | null = null;
  private checkpoints = new Map<string, number>();
  private processed = 0;
  private waiters: Waiter[] = [];
  private retryTimer: NodeJS.Timeout | null = null;
  private logCheckpointTimer: NodeJS.Timeout | null = null;
  private stopped = true;

  constructor(
    private readonly events: EventStore,
    private readonly store: ReadStore,
    readonly projectors: readonly Projector[],
    private readonly log: Logger,
  ) {}

  /** Position up to which every projector has handled the log. */
  get position(): number {
    return this.processed;
  }

  async start(): Promise<void> {
    this.stopped = false;
    const checkpoints = this.store.collection<{ _id: string; position: number }>(CHECKPOINTS);
    for (const p of this.projectors) {
      const doc = await checkpoints.findOne({ _id: p.name });
      this.checkpoints.set(p.name, doc?.position ?? 0);
    }
    const from = Math.min(...this.projectors.map((p) => this.checkpoints.get(p.name) ?? 0));
    this.processed = Math.max(this.processed, from);
    this.subscribe(from);
  }

  private subscribe(from: number): void {
    this.subscription = this.events.subscribeToAll({
      fromPosition: from,
      onEvent: (event) => this.handle(event),
      onError: (error) => {
        // A fault (store down, projector bug) must not stop the read side for good:
        // resubscribe from the checkpoints, re-handling idempotently.
        this.log.error({ err: error.message }, 'projection subscription dropped; resubscribing');
        this.subscription = null;
        if (this.stopped) return;
        this.retryTimer = setTimeout(() => {
          this.retryTimer = null;
          if (!this.stopped) this.subscribe(this.processed);
        }, RETRY_AFTER_FAULT_MS);
      },
    });
  }

  private async handle(event: RecordedEvent): Promise<void> {
    for (const projector of this.projectors) {
      if (!projector.handles.has(event.type)) continue;
      if (event.position <= (this.checkpoints.get(projector.name) ?? 0)) continue;
      await projector.apply(event, this.store);
      await this.store.collection(CHECKPOINTS).updateOne({ _id: projector.name }, { $set: { position: event.position } }, { upsert: true });
      this.checkpoints.set(projector.name, event.position);
    }
    this.processed = event.position;
    if (this.waiters.length) this.releaseWaiters();
    this.logCheckpointTimer ??= setTimeout(() => void this.writeLogCheckpoint(), LOG_CHECKPOINT_EVERY_MS);
  }

  /** Batched: one write per interval, however many events it covers. */
  private async writeLogCheckpoint(): Promise<void> {
    this.logCheckpointTimer = null;
    try {
      await this.store.collection(CHECKPOINTS).updateOne({ _id: LOG_CHECKPOINT }, { $max: { position: this.processed } }, { upsert: true });
    } catch (e) {
      this.log.warn({ err: (e as Error).message }, 'log checkpoint not written; the next event retries');
    }
  }

  private releaseWaiters(): void {
    const still: Waiter[] = [];
    for (const w of this.waiters) (w.position <= this.processed ? w.resolve() : still.push(w));
    this.waiters = still;
  }

  /** Resolves true once `position` is projected, or false after `timeoutMs`. */
  waitFor(position: number, timeoutMs: number): Promise<boolean> {
    if (position <= this.processed) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        position,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Drops the named projectors' read models and checkpoints and replays the log into them. */
  async rebuild(names: readonly string[] = this.projectors.map((p) => p.name)): Promise<void> {
    const unknown = names.filter((n) => !this.projectors.some((p) => p.name === n));
    if (unknown.length) throw new Error(`unknown projector: ${unknown.join(', ')}`);
    await this.stop();
    for (const p of this.projectors.filter((x) => names.includes(x.name))) {
      for (const c of p.collections) await this.store.dropCollection(c);
      await this.store.collection(CHECKPOINTS).deleteMany({ _id: p.name });
    }
    await this.store.collection(CHECKPOINTS).deleteMany({ _id: LOG_CHECKPOINT });
    this.processed = 0;
    await this.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.logCheckpointTimer) {
      clearTimeout(this.logCheckpointTimer);
      await this.writeLogCheckpoint();
    }
    const sub = this.subscription;
    this.subscription = null;
    if (sub) await sub.close();
  }
}
