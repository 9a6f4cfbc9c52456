import {
  StoreFaultError,
  StoreUnavailableError,
  type EventStore,
  type RecordedEvent,
  type Subscription,
} from '../shared/adapters/event-store/port';
import { domainEventOf } from '../domain/events';
import type { Logger } from '../shared/adapters/logging/logger';
import { BatchedReadStore } from '../shared/adapters/read-store/batched';
import type { ReadStore } from '../shared/adapters/read-store/port';
import { DuplicateKeyError } from '../shared/adapters/read-store/port';
import { PROJECTIONS_VERSION } from './version';
import { PositionWaiters } from './position-waiters';
import { LeaseLostError, type ProjectorLease } from './lease';
import { CHECKPOINTS, LOG_CHECKPOINT, ORIGIN, type Projector } from './projector';
import {
  dropGeneration,
  generationCollections,
  generationsOf,
  GenerationReadStore,
  hasReadModelsOfBefore,
  readGenerations,
  RETIRED_DROPPED_AFTER_MS,
} from './generations';

/** Read models of this origin were built by this version from the log starting with `logStart`. */
function sameOrigin(found: { logStart?: string | null; version?: number }, logStart: string | null): boolean {
  const sameLog = found.logStart === logStart || (found.logStart === null && logStart !== null);
  return sameLog && found.version === PROJECTIONS_VERSION;
}

/**
 * Checkpoints (the projectors' and the log's) are written together, at most this long after an
 * event is handled, so idle read models have theirs written within this time...
 */
const CHECKPOINT_EVERY_MS = 20;
/** ...and at least every this many handled events, which bounds the redelivery after a crash. */
const CHECKPOINT_EVERY_EVENTS = 1000;
/**
 * Events applied together: their documents are written to the read store at once, each once,
 * when this many are applied or the log has nothing more to deliver at the moment.
 */
const BATCH_EVENTS = 1000;
/** After a fault the subscription is tried again after this long, doubling with each fault in a row... */
const RETRY_AFTER_FAULT_MS = 1000;
/** ...up to this long. */
const MAX_RETRY_AFTER_FAULT_MS = 60_000;
/**
 * Faults in a row, other than a store being unreachable, after which the projections count as
 * failed (readiness and the `projection_failed` metric say so) while the runner keeps trying.
 */
const FAILED_AFTER_FAULTS = 5;

export interface ProjectionRunnerOptions {
  /** The first wait before resubscribing after a fault. Default RETRY_AFTER_FAULT_MS. */
  retryAfterFaultMs?: number;
  /**
   * Deep-freezes the documents projectors read and write (see BatchedReadStore), so that a
   * projector changing one it read throws instead of changing the batch's own: for tests.
   */
  frozenDocuments?: boolean;
  /**
   * The lease under which this runner writes shared read models (projections/lease.ts): each
   * write waits for its fence, and each checkpoint is written with its epoch, in the same write.
   */
  lease?: Pick<ProjectorLease, 'epoch' | 'fenced'>;
  /**
   * Other processes serve the read models meanwhile (MongoDB): read models of another version or
   * log are not rebuilt in place but as a new generation beside them, made live once caught up
   * with the log's head of the start (projections/generations.ts).
   */
  buildAside?: boolean;
  /** How long after a switch the replaced generation is dropped. Default RETIRED_DROPPED_AFTER_MS. */
  retiredDroppedAfterMs?: number;
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
  /** The projectors' writes, gathered per batch of events (see endBatch). */
  private readonly store: BatchedReadStore;
  /**
   * The position and commit time (createdAt) of each event applied whose documents the next flush
   * writes, one after the other: not yet visible, not yet `processed`. Numbers, not the events: a
   * batch kept a thousand parsed events alive across young-generation collections, which copied
   * them again and again.
   */
  private batch: number[] = [];
  /**
   * How far the subscription has read the log, events no projector handles included (the store
   * leaves those out): `processed` moves up to it once the events before it are written.
   */
  private reached = 0;
  /** The event types some projector handles: the only ones the subscription delivers. */
  private readonly eventTypes: ReadonlySet<string>;
  private batchEnd: NodeJS.Immediate | null = null;
  /** A batch whose write failed is tried again after this timer, unless events end it first. */
  private batchRetry: NodeJS.Timeout | null = null;
  /** Ends of batches run one at a time, in order. */
  private ending: Promise<void> = Promise.resolve();
  /** Events handled since the checkpoints were last written. */
  private sinceWrite = 0;
  /** Writes of checkpoints run one at a time, in order, so a checkpoint never moves back. */
  private writing: Promise<void> = Promise.resolve();
  private readonly waiters = new PositionWaiters();
  private retryTimer: NodeJS.Timeout | null = null;
  private checkpointTimer: NodeJS.Timeout | null = null;
  private stopped = true;
  /** The store's lasting fault that ended the subscription: nothing more will be projected. */
  private fault: StoreFaultError | null = null;
  /** Faults in a row since an event was last handled, and how many of them were not a store out of reach. */
  private faults = { inRow: 0, notConnection: 0, last: '' };
  /** The log had no event at the start: the first one delivered names it (see rebuildIfOfAnotherOrigin). */
  private originPending = false;
  /** Subscriptions dropped or failed since the start: the `projection_drops_total` metric. */
  private dropCount = 0;
  /** Writes outside any generation (which one is live), fenced as the rest. */
  private readonly shared: ReadStore;
  /** The collections of a generation. */
  private readonly generation: ReadonlySet<string>;
  /** The prefix of the generation written (buildAside): '' before generations, or in place. */
  private prefix = '';
  /** The generation written is being built: made live once `processed` reaches this position. */
  private switchAt: number | null = null;
  private retiring: NodeJS.Timeout | null = null;

  constructor(
    private readonly events: EventStore,
    readStore: ReadStore,
    readonly projectors: readonly Projector[],
    private readonly log: Logger,
    /** Told of each event's position and commit time once every projector has it (the service's projection-lag metric). */
    private readonly onProjected?: (position: number, createdAt: number) => void,
    private readonly options: ProjectionRunnerOptions = {},
  ) {
    this.shared = options.lease ? options.lease.fenced(readStore) : readStore;
    this.generation = generationCollections(projectors);
    const written = options.buildAside
      ? new GenerationReadStore(this.shared, this.generation, () => this.prefix)
      : this.shared;
    this.store = new BatchedReadStore(written, { frozen: options.frozenDocuments });
    this.eventTypes = new Set(projectors.flatMap((p) => [...p.handles]));
  }

  /** Subscriptions to the log dropped or failed since the start (each is retried). */
  get drops(): number {
    return this.dropCount;
  }

  /**
   * Why the read models are not being kept up to date, or null: the store's lasting fault, or
   * FAILED_AFTER_FAULTS faults in a row that were not a store out of reach (a projector's bug, a
   * request the event store refuses every time). Cleared by the next event handled.
   */
  problem(): string | null {
    if (this.fault) return `event store fault: ${this.fault.message}`;
    if (this.faults.notConnection >= FAILED_AFTER_FAULTS)
      return `projections failed ${this.faults.inRow} times in a row, still retrying: ${this.faults.last}`;
    return null;
  }

  /** The store reported a lasting fault: nothing more will be projected (waitFor answers false at once). */
  get faulted(): boolean {
    return this.fault !== null;
  }

  /** Position up to which every projector has handled the log. */
  get position(): number {
    return this.processed;
  }

  async start(): Promise<void> {
    this.stopped = false;
    if (this.options.buildAside) await this.chooseGeneration();
    await this.rebuildIfOfAnotherOrigin();
    this.fault = null;
    this.faults = { inRow: 0, notConnection: 0, last: '' };
    for (const p of this.projectors)
      for (const { collection, keys } of p.indexes ?? []) await this.store.ensureIndex(collection, keys);
    const checkpoints = this.store.collection<{ _id: string; position: number }>(CHECKPOINTS);
    // The log checkpoint is written after the projectors' of its batch: every event up to it was
    // applied by each projector that handles it, so none resumes before it (a projector that
    // handles few events would otherwise have the runner read everything after its last one).
    const log = (await checkpoints.findOne({ _id: LOG_CHECKPOINT }))?.position ?? 0;
    for (const p of this.projectors) {
      const doc = await checkpoints.findOne({ _id: p.name });
      this.checkpoints.set(p.name, Math.max(doc?.position ?? 0, log));
      this.written.set(p.name, doc?.position ?? 0);
    }
    const from = Math.min(...this.projectors.map((p) => this.checkpoints.get(p.name) ?? 0));
    this.processed = Math.max(this.processed, from);
    this.subscribe(from);
    await this.switchIfCaughtUp();
  }

  /**
   * The generation to write: the live one when this version built it from this log; else the one
   * being built, when it is of this version and log (a projector stopped while building it); else
   * a new one. Generations replaced earlier and not dropped yet are dropped first.
   */
  private async chooseGeneration(): Promise<void> {
    const generations = await readGenerations(this.shared);
    for (const retired of generations?.retired ?? []) await this.dropRetired(retired);
    const [first] = await this.events.readAll({ maxCount: 1 });
    const logStart = first?.id ?? null;
    const live = generations ? generations.live : (await hasReadModelsOfBefore(this.shared)) ? '' : null;
    this.switchAt = null;
    if (live !== null && (await this.builtHere(live, logStart))) {
      this.prefix = live;
      if (generations?.building) await this.dropBuilding(generations.building);
      return;
    }
    let building = generations?.building ?? null;
    if (building === null || !(await this.builtHere(building, logStart))) {
      if (building !== null) await dropGeneration(this.shared, building, this.generation);
      const next = generations?.next ?? 1;
      building = `g${next}_`;
      await generationsOf(this.shared).updateOne(
        { _id: 'generations' },
        { $set: { building, next: next + 1 }, $setOnInsert: { live, retired: [] } },
        { upsert: true },
      );
    }
    this.log.warn(
      { live, building, version: PROJECTIONS_VERSION },
      'read models of another log or version: building new ones beside those served, switched to once caught up',
    );
    this.prefix = building;
    this.switchAt = await this.events.headPosition();
  }

  /** Whether the generation's read models were built by this version from this log. */
  private async builtHere(prefix: string, logStart: string | null): Promise<boolean> {
    const found = await this.shared
      .collection<{ _id: string; logStart?: string | null; version?: number }>(prefix + CHECKPOINTS)
      .findOne({ _id: ORIGIN });
    return found !== null && sameOrigin(found, logStart);
  }

  private async dropBuilding(prefix: string): Promise<void> {
    await dropGeneration(this.shared, prefix, this.generation);
    await generationsOf(this.shared).updateOne({ _id: 'generations', building: prefix }, { $set: { building: null } });
  }

  private async dropRetired(prefix: string): Promise<void> {
    await dropGeneration(this.shared, prefix, this.generation);
    await generationsOf(this.shared).updateOne({ _id: 'generations' }, { $pull: { retired: prefix } });
  }

  /**
   * Makes the generation built live once it has caught up (its checkpoints written first, so that
   * readers waiting for a position find it), and drops the one it replaces a grace period later.
   * A failure is logged, and the next batch tries again.
   */
  private async switchIfCaughtUp(): Promise<void> {
    if (this.switchAt === null || this.processed < this.switchAt) return;
    this.switchAt = null;
    try {
      await this.writeCheckpoints(true);
      const built = this.prefix;
      const replaced = (await readGenerations(this.shared))?.live ?? null;
      const retired = replaced !== null && replaced !== built;
      await generationsOf(this.shared).updateOne(
        { _id: 'generations' },
        { $set: { live: built, building: null }, ...(retired ? { $push: { retired: replaced } } : {}) },
        { upsert: true },
      );
      this.log.info({ live: built, replaced, version: PROJECTIONS_VERSION }, 'new read models caught up: serving them');
      if (!retired) return;
      this.retiring = setTimeout(() => {
        this.retiring = null;
        this.dropRetired(replaced).catch((e: Error) =>
          this.log.warn({ err: e.message }, 'replaced read models not dropped; the next start drops them'),
        );
      }, this.options.retiredDroppedAfterMs ?? RETIRED_DROPPED_AFTER_MS);
      this.retiring.unref();
    } catch (error) {
      this.switchAt = this.processed;
      this.log.warn({ err: (error as Error).message }, 'new read models not made live; retrying');
      if (!this.stopped)
        setTimeout(() => void this.switchIfCaughtUp(), this.options.retryAfterFaultMs ?? RETRY_AFTER_FAULT_MS).unref();
    }
  }

  private subscribe(from: number): void {
    this.subscription = this.events.subscribeToAll({
      fromPosition: from,
      eventTypes: this.eventTypes,
      // No projector reads an action's details, so they are not decrypted for it (verify, whose
      // replay reads them decrypted, would show a projector that did).
      sealedDetails: true,
      onEvent: (event) => this.handle(event),
      onPositionReached: (position) => this.reach(position),
      onDrop: (error, retryInMs) => {
        this.dropCount++;
        this.log.warn({ err: error.message, retryInMs }, 'event store subscription lost its connection; resubscribing');
      },
      onError: (error) => {
        this.subscription = null;
        // The store itself reported its lasting fault, once: retrying would only repeat it.
        if (error instanceof StoreFaultError) {
          this.fault = error;
          this.waiters.fail();
          return;
        }
        // A fault (store down, projector bug) must not stop the read side for good: resubscribe
        // from the checkpoints, re-handling idempotently, after a wait that doubles with each
        // fault in a row. A store out of reach is waited for; anything else, repeated, fails the projections.
        this.dropCount++;
        this.faults.inRow++;
        if (!(error instanceof StoreUnavailableError)) this.faults.notConnection++;
        this.faults.last = error.message;
        const first = this.options.retryAfterFaultMs ?? RETRY_AFTER_FAULT_MS;
        const retryInMs = Math.min(first * 2 ** (this.faults.inRow - 1), MAX_RETRY_AFTER_FAULT_MS);
        const message = this.problem()
          ? 'projections failed; resubscribing'
          : 'projection subscription dropped; resubscribing';
        this.log.error({ err: error.message, errorClass: error.name, faults: this.faults.inRow, retryInMs }, message);
        if (this.stopped) return;
        this.retryTimer = setTimeout(() => {
          this.retryTimer = null;
          if (!this.stopped) this.subscribe(this.processed);
        }, retryInMs);
      },
    });
  }

  /**
   * Applies an event to the read models. Checkpoints are kept in memory and written in batches
   * (see writeCheckpoints): the projectors are idempotent under the redelivery that allows.
   */
  private async handle(recorded: RecordedEvent): Promise<void> {
    if (this.originPending) await this.storeFirstOrigin();
    // A type this version does not know (written by a newer one) moves no read model here.
    const event = domainEventOf(recorded);
    for (const projector of this.projectors) {
      if (!event || !projector.handles.has(event.type)) continue;
      if (event.position <= (this.checkpoints.get(projector.name) ?? 0)) continue;
      const around = projector.checkpointAround?.has(event.type) ?? false;
      if (around) await this.writeCheckpoints(true);
      await projector.apply(event, this.store, this.events);
      this.checkpoints.set(projector.name, event.position);
      if (around) await this.writeCheckpoints(true);
    }
    this.batch.push(recorded.position, recorded.createdAt);
    this.reached = recorded.position;
    if (this.batch.length >= 2 * BATCH_EVENTS) return this.endBatch();
    // The log delivers what it has back to back: the batch ends once it pauses.
    this.batchEnd ??= setImmediate(() => void this.endBatchOrRetry());
  }

  /** The log is read up to `position`: the events after the last one handled were of types no projector handles. */
  private async reach(position: number): Promise<void> {
    if (this.originPending) await this.storeFirstOrigin();
    this.reached = position;
    this.batchEnd ??= setImmediate(() => void this.endBatchOrRetry());
  }

  private async endBatchOrRetry(): Promise<void> {
    this.batchEnd = null;
    try {
      await this.endBatch();
    } catch (error) {
      this.log.warn({ err: (error as Error).message }, 'read models not written; retrying');
      if (!this.stopped)
        this.batchRetry ??= setTimeout(
          () => void this.endBatchOrRetry(),
          this.options.retryAfterFaultMs ?? RETRY_AFTER_FAULT_MS,
        );
    }
  }

  /**
   * Writes the documents of the batch's events to the read store, then makes them visible: the
   * position moves past them and waiters are released (a write is acknowledged only once its
   * read models are written). On a failure the batch stays, to be written by the next end.
   */
  private endBatch(): Promise<void> {
    const end = this.ending.then(async () => {
      if (this.batchEnd) clearImmediate(this.batchEnd);
      if (this.batchRetry) clearTimeout(this.batchRetry);
      this.batchEnd = null;
      this.batchRetry = null;
      const committed = this.batch;
      // Events handled while this batch is written are the next batch's.
      const reached = this.reached;
      this.batch = [];
      try {
        await this.flushProjectors();
        // Also what the runner itself wrote outside events (the log's origin).
        await this.store.flush();
      } catch (error) {
        this.batch = [...committed, ...this.batch];
        throw error;
      }
      if (reached <= this.processed) return;
      this.processed = reached;
      if (this.faults.inRow > 0) this.faults = { inRow: 0, notConnection: 0, last: '' };
      if (this.onProjected)
        for (let i = 0; i < committed.length; i += 2) this.onProjected(committed[i], committed[i + 1]);
      if (this.waiters.waiting) this.waiters.release(this.processed);
      this.sinceWrite += committed.length / 2;
      if (this.sinceWrite >= CHECKPOINT_EVERY_EVENTS) void this.writeCheckpoints(false);
      else this.checkpointTimer ??= setTimeout(() => void this.writeCheckpoints(false), CHECKPOINT_EVERY_MS);
      if (this.switchAt !== null) void this.switchIfCaughtUp();
    });
    this.ending = end.catch(() => undefined);
    return end;
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
      // The positions of events applied whole: what the projectors gathered of them is written first.
      const applied = [...this.checkpoints];
      await this.flushProjectors();
      for (const [name, position] of applied) {
        if (this.written.get(name) === position) continue;
        await this.writeCheckpoint(name, { $set: { position } });
        this.written.set(name, position);
      }
      await this.writeCheckpoint(LOG_CHECKPOINT, { $max: { position: this.processed } });
    });
    this.writing = write.catch((e: Error) =>
      this.log.warn({ err: e.message }, 'checkpoints not written; the next event retries'),
    );
    return rethrow ? write : this.writing;
  }

  /**
   * Writes one checkpoint. Under a lease, the filter holds the lease's epoch: a checkpoint written
   * under a later lease does not match, and the upsert fails on its _id, so a projector that lost
   * its lease never moves a checkpoint, even if its write was under way when it lost it.
   */
  private async writeCheckpoint(id: string, update: Record<string, unknown>): Promise<void> {
    const checkpoints = this.store.collection(CHECKPOINTS);
    const lease = this.options.lease;
    if (!lease) {
      await checkpoints.updateOne({ _id: id }, update, { upsert: true });
      return;
    }
    const epoch = lease.epoch;
    try {
      await checkpoints.updateOne(
        { _id: id, $or: [{ epoch: { $exists: false } }, { epoch: { $lte: epoch } }] },
        { ...update, $set: { ...(update.$set as object | undefined), epoch } },
        { upsert: true },
      );
    } catch (error) {
      if (error instanceof DuplicateKeyError) throw new LeaseLostError(`a projector of a later lease than ${epoch}`);
      throw error;
    }
  }

  /** Has each projector write what it gathered into the batch. */
  private async flushProjectors(): Promise<void> {
    for (const p of this.projectors) await p.flush?.(this.store);
  }

  /** Resolves true once `position` is projected, or false after `timeoutMs` (at once when the store has a lasting fault). */
  waitFor(position: number, timeoutMs: number): Promise<boolean> {
    if (position <= this.processed) return Promise.resolve(true);
    if (this.fault) return Promise.resolve(false);
    return this.waiters.wait(position, timeoutMs);
  }

  /**
   * Rebuilds the read models when they were built from another log or by another version. The
   * origin is stored only once the log has a first event (see storeOrigin): one stored while it
   * was empty would name no log, and every later start would take the read models for another
   * log's. An origin without a first event (stored so by earlier versions) is taken as this log's.
   */
  private async rebuildIfOfAnotherOrigin(): Promise<void> {
    const checkpoints = this.store.collection<{ _id: string; logStart?: string | null; version?: number }>(CHECKPOINTS);
    const [first] = await this.events.readAll({ maxCount: 1 });
    const logStart = first?.id ?? null;
    const found = await checkpoints.findOne({ _id: ORIGIN });
    if (found && sameOrigin(found, logStart)) {
      this.originPending = logStart === null;
      if (logStart !== null && found.logStart !== logStart) await this.storeOrigin(logStart);
      return;
    }
    if (found || (await checkpoints.countDocuments({})) > 0) {
      this.log.warn(
        { was: found ?? null, now: { logStart, version: PROJECTIONS_VERSION } },
        'read models of another log or version: rebuilding them',
      );
      await this.drop(this.projectors);
      await checkpoints.deleteMany({});
    }
    this.originPending = logStart === null;
    if (logStart !== null) await this.storeOrigin(logStart);
  }

  /** The log was empty at the start: it has events now, the first of which names it (not the first delivered: see eventTypes). */
  private async storeFirstOrigin(): Promise<void> {
    const [first] = await this.events.readAll({ maxCount: 1 });
    await this.storeOrigin(first.id);
  }

  private async storeOrigin(logStart: string): Promise<void> {
    await this.store
      .collection(CHECKPOINTS)
      .replaceOne({ _id: ORIGIN }, { _id: ORIGIN, logStart, version: PROJECTIONS_VERSION }, { upsert: true });
    this.originPending = false;
  }

  private async drop(projectors: readonly Projector[]): Promise<void> {
    for (const p of projectors) {
      for (const c of [...p.collections, ...(p.retiredCollections ?? [])]) await this.store.dropCollection(c);
      p.reset?.(this.store);
      await this.store.collection(CHECKPOINTS).deleteMany({ _id: p.name });
    }
  }

  /** Drops the named projectors' read models and checkpoints and replays the log into them. */
  async rebuild(names: readonly string[] = this.projectors.map((p) => p.name)): Promise<void> {
    const unknown = names.filter((n) => !this.projectors.some((p) => p.name === n));
    if (unknown.length) throw new Error(`unknown projector: ${unknown.join(', ')}`);
    await this.stop();
    await this.drop(this.projectors.filter((x) => names.includes(x.name)));
    await this.store.collection(CHECKPOINTS).deleteMany({ _id: LOG_CHECKPOINT });
    this.processed = 0;
    this.reached = 0;
    await this.start();
  }

  /** Stops following the log (once the event being handled is applied) and writes the checkpoints. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retiring) clearTimeout(this.retiring);
    this.retiring = null;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const sub = this.subscription;
    this.subscription = null;
    if (sub) await sub.close();
    await this.endBatch().catch((e: Error) =>
      this.log.warn({ err: e.message }, 'read models not written at stop; the next start replays them'),
    );
    if (this.checkpointTimer || this.sinceWrite > 0) await this.writeCheckpoints(false);
    else await this.writing;
  }
}
