import type { EventStore, RecordedEvent, Subscription } from '../shared/event-store/port';
import type { Logger } from '../shared/logging/logger';
import type { ReadStore } from '../shared/read-store/port';

/**
 * Turns events into read models. Handlers are idempotent: delivery is at least once, and after a
 * restart the runner replays every event after the projector's last written checkpoint, which
 * may be some way behind what the read models already hold (checkpoints are written in batches).
 */
export interface Projector {
  name: string;
  /** Collections it owns: dropped on rebuild. */
  collections: readonly string[];
  /** Event types it handles; others are skipped without touching the read store. */
  handles: ReadonlySet<string>;
  apply(event: RecordedEvent, store: ReadStore): Promise<void>;
  /**
   * Event types that change how the projector applies the events after them (the leaderboards'
   * board definitions), so that replaying earlier events against the state they leave would not
   * be idempotent: the runner writes the projector's checkpoint just before applying one (the
   * redelivery after a crash then starts at it, never before it) and just after.
   */
  checkpointAround?: ReadonlySet<string>;
  /** Forgets what the projector remembers in memory about `store`: the runner has dropped its collections. */
  reset?(store: ReadStore): void;
}

export const CHECKPOINTS = 'checkpoints';
/** The checkpoint of the whole log: how far the runner got, for readers in other processes. */
export const LOG_CHECKPOINT = '$log';
/**
 * Checkpoints (the projectors' and the log's) are written together, at most this long after an
 * event is handled, so idle read models have theirs written within this time...
 */
const CHECKPOINT_EVERY_MS = 20;
/** ...and at least every this many handled events, which bounds the redelivery after a crash. */
const CHECKPOINT_EVERY_EVENTS = 1000;
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
  /** Position of the last event each projector has applied to the read models. */
  private checkpoints = new Map<string, number>();
  /** Checkpoints as last written to the read store. */
  private written = new Map<string, number>();
  private processed = 0;
  /** Events handled since the checkpoints were last written. */
  private sinceWrite = 0;
  /** Writes of checkpoints run one at a time, in order, so a checkpoint never moves back. */
  private writing: Promise<void> = Promise.resolve();
  private waiters: Waiter[] = [];
  private retryTimer: NodeJS.Timeout | null = null;
  private checkpointTimer: NodeJS.Timeout | null = null;
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
      this.written.set(p.name, doc?.position ?? 0);
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

  /**
   * Applies an event to the read models. Checkpoints are kept in memory and written in batches
   * (see writeCheckpoints): the projectors are idempotent under the redelivery that allows.
   */
  private async handle(event: RecordedEvent): Promise<void> {
    for (const projector of this.projectors) {
      if (!projector.handles.has(event.type)) continue;
      if (event.position <= (this.checkpoints.get(projector.name) ?? 0)) continue;
      const around = projector.checkpointAround?.has(event.type) ?? false;
      if (around) await this.writeCheckpoints(true);
      await projector.apply(event, this.store);
      this.checkpoints.set(projector.name, event.position);
      if (around) await this.writeCheckpoints(true);
    }
    this.processed = event.position;
    if (this.waiters.length) this.releaseWaiters();
    if (++this.sinceWrite >= CHECKPOINT_EVERY_EVENTS) void this.writeCheckpoints(false);
    else this.checkpointTimer ??= setTimeout(() => void this.writeCheckpoints(false), CHECKPOINT_EVERY_MS);
  }

  /**
   * Writes the projectors' checkpoints that moved since their last write, then the log
   * checkpoint: one write each per batch, however many events it covers. Queued behind a write
   * under way. A failure is logged, and the next batch retries; with `rethrow` it is also thrown.
   */
  private writeCheckpoints(rethrow: boolean): Promise<void> {
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    this.checkpointTimer = null;
    this.sinceWrite = 0;
    const write = this.writing.then(async () => {
      const checkpoints = this.store.collection(CHECKPOINTS);
      for (const [name, position] of this.checkpoints) {
        if (this.written.get(name) === position) continue;
        await checkpoints.updateOne({ _id: name }, { $set: { position } }, { upsert: true });
        this.written.set(name, position);
      }
      await checkpoints.updateOne({ _id: LOG_CHECKPOINT }, { $max: { position: this.processed } }, { upsert: true });
    });
    this.writing = write.catch((e: Error) => this.log.warn({ err: e.message }, 'checkpoints not written; the next event retries'));
    return rethrow ? write : this.writing;
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
      p.reset?.(this.store);
      await this.store.collection(CHECKPOINTS).deleteMany({ _id: p.name });
    }
    await this.store.collection(CHECKPOINTS).deleteMany({ _id: LOG_CHECKPOINT });
    this.processed = 0;
    await this.start();
  }

  /** Stops following the log (once the event being handled is applied) and writes the checkpoints. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const sub = this.subscription;
    this.subscription = null;
    if (sub) await sub.close();
    if (this.checkpointTimer || this.sinceWrite > 0) await this.writeCheckpoints(false);
    else await this.writing;
  }
}
