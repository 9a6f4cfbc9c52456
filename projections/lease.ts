import { randomUUID } from 'node:crypto';
import type { Logger } from '../shared/adapters/logging/logger';
import {
  DuplicateKeyError,
  type Collection,
  type Document,
  type Filter,
  type FindOptions,
  type IndexKeys,
  type ReadStore,
  type Update,
  type UpdateOptions,
  type WriteOperation,
} from '../shared/adapters/read-store/port';

/**
 * One projector at a time writes read models that several processes share (MongoDB): its
 * handlers read a document and write it back unconditionally, so two would lose each other's
 * counts. The one that writes holds a lease, a document with an expiry that it renews; another
 * waits until the holder releases it (it stops) or lets it expire (it died), then takes over.
 *
 * Each takeover raises the lease's epoch. The holder's writes are fenced (FencedReadStore): each
 * begins only while the lease has a third of its lifetime left as last confirmed, else after
 * confirming it with a write conditional on holder and epoch; and each checkpoint is written with
 * the epoch in the same write (projections/runner.ts), which a checkpoint of a later epoch refuses.
 * A holder that stalled past its expiry thus writes nothing once it resumes.
 */
export const LEASES = 'leases';
const PROJECTOR = 'projector';
/** A holder that has not renewed for this long is taken for dead... */
export const LEASE_TTL_MS = 30_000;

type LeaseDocument = {
  _id: string;
  holder: string;
  /** Unix ms, on the holder's clock: the machines' clocks must agree within a few seconds. */
  until: number;
  /** Raised by each takeover; a released lease keeps it (expired, not deleted), so it never goes back. */
  epoch?: number;
};

/** This process no longer holds the lease: its write was refused before it began. */
export class LeaseLostError extends Error {
  constructor(by: string) {
    super(`the projector lease is held by ${by}: this projector's write was refused`);
    this.name = 'LeaseLostError';
  }
}

/** Who holds the lease, when it is not this process. */
export interface HeldElsewhere {
  holder: string;
  until: number;
}

export interface ProjectorLeaseOptions {
  ttlMs?: number;
  now?: () => number;
  /** This process's name in the lease (default: a fresh uuid). */
  holder?: string;
  /** Another took the lease over (this process stalled past its expiry): it must stop projecting. */
  onLost?: (by: HeldElsewhere) => void;
}

export class ProjectorLease {
  readonly holder: string;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private renewal: NodeJS.Timeout | null = null;
  private lost: HeldElsewhere | null = null;
  /** The epoch of this process's lease, and the expiry it last wrote: 0 until taken. */
  private held = { epoch: 0, until: 0 };

  constructor(
    private readonly store: ReadStore,
    private readonly log: Logger,
    private readonly options: ProjectorLeaseOptions = {},
  ) {
    this.holder = options.holder ?? randomUUID();
    this.ttlMs = options.ttlMs ?? LEASE_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  /** The epoch of the lease this process holds (0 before it took it): checkpoints are written with it. */
  get epoch(): number {
    return this.held.epoch;
  }

  /** Takes or renews the lease when it is free, expired or this process's own; else says who holds it. */
  async take(): Promise<HeldElsewhere | null> {
    if (this.held.epoch > 0 && (await this.confirm())) return null;
    const leases = this.store.collection<LeaseDocument>(LEASES);
    const now = this.now();
    try {
      // The filter misses a lease that another holds and has not let expire: the upsert then
      // tries to insert a second document with its _id, and fails on the duplicate key.
      await leases.updateOne(
        { _id: PROJECTOR, until: { $lt: now } },
        { $set: { holder: this.holder, until: now + this.ttlMs }, $inc: { epoch: 1 } },
        { upsert: true },
      );
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
    }
    const lease = await leases.findOne({ _id: PROJECTOR });
    // Released between the two calls: free now.
    if (!lease) return this.take();
    if (lease.holder !== this.holder) return { holder: lease.holder, until: lease.until };
    this.held = { epoch: lease.epoch ?? 0, until: lease.until };
    return null;
  }

  /** Extends the lease if this process still holds it, at the epoch it took it with. */
  private async confirm(): Promise<boolean> {
    const now = this.now();
    const until = now + this.ttlMs;
    const { matchedCount } = await this.store
      .collection<LeaseDocument>(LEASES)
      .updateOne({ _id: PROJECTOR, holder: this.holder, epoch: this.held.epoch }, { $set: { until } });
    if (matchedCount === 0) return false;
    this.held = { ...this.held, until };
    return true;
  }

  /**
   * Resolves when this process may begin a write to the read models: its lease has at least a
   * third of its lifetime left (no other can take it before the write ends, unless it stalls that
   * long), confirmed by a conditional write when the last confirmation is older. Rejects with
   * LeaseLostError once another holds it.
   */
  async fence(): Promise<void> {
    if (!this.lost && this.held.epoch > 0 && this.now() <= this.held.until - this.ttlMs / 3) return;
    if (!this.lost && this.held.epoch > 0 && (await this.confirm())) return;
    if (!this.lost) {
      const lease = await this.store.collection<LeaseDocument>(LEASES).findOne({ _id: PROJECTOR });
      this.lose({ holder: lease?.holder ?? 'nobody', until: lease?.until ?? 0 });
    }
    throw new LeaseLostError(this.lost!.holder);
  }

  /** The read store whose writes are fenced by this lease: the projector's. */
  fenced(store: ReadStore): ReadStore {
    return new FencedReadStore(store, () => this.fence());
  }

  /** Waits until this process holds the lease, then renews it every third of its lifetime until released. */
  async acquire(): Promise<void> {
    let told = false;
    for (let other = await this.take(); other; other = await this.take()) {
      if (!told)
        this.log.warn(
          { holder: other.holder, until: new Date(other.until).toISOString() },
          'another projector holds the read models: waiting for it to stop or its lease to expire',
        );
      told = true;
      await new Promise((resolve) => setTimeout(resolve, this.ttlMs / 3));
    }
    if (told) this.log.info({ holder: this.holder }, 'projector lease taken: projecting');
    this.renewal = setInterval(() => void this.renew(), this.ttlMs / 3);
    this.renewal.unref();
  }

  /** Why this process must not project any more (another took the lease over), or null. */
  problem(): string | null {
    return this.lost ? `another projector (${this.lost.holder}) took over the read models; restart this one` : null;
  }

  /** Stops renewing and frees the lease for another projector at once (expired, its epoch kept). */
  async release(): Promise<void> {
    if (this.renewal) clearInterval(this.renewal);
    this.renewal = null;
    if (!this.lost && this.held.epoch > 0)
      await this.store
        .collection<LeaseDocument>(LEASES)
        .updateOne({ _id: PROJECTOR, holder: this.holder, epoch: this.held.epoch }, { $set: { until: 0 } });
    this.held = { epoch: 0, until: 0 };
  }

  private lose(other: HeldElsewhere): void {
    if (this.lost) return;
    this.lost = other;
    if (this.renewal) clearInterval(this.renewal);
    this.renewal = null;
    this.log.error({ holder: other.holder }, 'projector lease lost to another projector: projecting stopped');
    this.options.onLost?.(other);
  }

  private async renew(): Promise<void> {
    if (this.lost) return;
    try {
      if (await this.confirm()) return;
      const lease = await this.store.collection<LeaseDocument>(LEASES).findOne({ _id: PROJECTOR });
      this.lose({ holder: lease?.holder ?? 'nobody', until: lease?.until ?? 0 });
    } catch (error) {
      // The store out of reach: the next renewal tries again; the lease lasts three of them.
      this.log.warn({ err: (error as Error).message }, 'projector lease not renewed; retrying');
    }
  }
}

/**
 * A read store whose every write (and drop, and index) waits for the fence first: a projector
 * that lost its lease has its writes refused before they begin. Reads pass.
 */
export class FencedReadStore implements ReadStore {
  constructor(
    private readonly underlying: ReadStore,
    private readonly fence: () => Promise<void>,
  ) {}

  collection<T extends Document = Document>(name: string): Collection<T> {
    const collection = this.underlying.collection<T>(name);
    const fenced = async <R>(write: () => Promise<R>): Promise<R> => {
      await this.fence();
      return write();
    };
    return {
      findOne: (filter: Filter) => collection.findOne(filter),
      find: (filter: Filter, options?: FindOptions) => collection.find(filter, options),
      countDocuments: (filter: Filter) => collection.countDocuments(filter),
      insertOne: (doc: T) => fenced(() => collection.insertOne(doc)),
      updateOne: (filter: Filter, update: Update, options?: UpdateOptions) =>
        fenced(() => collection.updateOne(filter, update, options)),
      replaceOne: (filter: Filter, replacement: T, options?: UpdateOptions) =>
        fenced(() => collection.replaceOne(filter, replacement, options)),
      deleteMany: (filter: Filter) => fenced(() => collection.deleteMany(filter)),
      bulkWrite: (operations: WriteOperation[]) => fenced(() => collection.bulkWrite(operations)),
    };
  }

  async ensureIndex(collection: string, keys: IndexKeys): Promise<void> {
    await this.fence();
    return this.underlying.ensureIndex(collection, keys);
  }

  async dropCollection(name: string): Promise<void> {
    await this.fence();
    return this.underlying.dropCollection(name);
  }

  listCollections(): Promise<string[]> {
    return this.underlying.listCollections();
  }

  scratch(): Promise<ReadStore> {
    return this.underlying.scratch();
  }

  close(): Promise<void> {
    return this.underlying.close();
  }
}
