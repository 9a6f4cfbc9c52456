import { randomUUID } from 'node:crypto';
import type { Logger } from '../shared/adapters/logging/logger';
import { DuplicateKeyError, type ReadStore } from '../shared/adapters/read-store/port';

/**
 * One projector at a time writes read models that several processes share (MongoDB): its
 * handlers read a document and write it back unconditionally, so two would lose each other's
 * counts. The one that writes holds a lease, a document with an expiry that it renews; another
 * waits until the holder releases it (it stops) or lets it expire (it died), then takes over.
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
};

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

  constructor(
    private readonly store: ReadStore,
    private readonly log: Logger,
    private readonly options: ProjectorLeaseOptions = {},
  ) {
    this.holder = options.holder ?? randomUUID();
    this.ttlMs = options.ttlMs ?? LEASE_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  /** Takes or renews the lease when it is free, expired or this process's own; else says who holds it. */
  async take(): Promise<HeldElsewhere | null> {
    const leases = this.store.collection<LeaseDocument>(LEASES);
    const now = this.now();
    try {
      // The filter misses a lease that another holds and has not let expire: the upsert then
      // tries to insert a second document with its _id, and fails on the duplicate key.
      await leases.updateOne(
        { _id: PROJECTOR, $or: [{ holder: this.holder }, { until: { $lt: now } }] },
        { $set: { holder: this.holder, until: now + this.ttlMs } },
        { upsert: true },
      );
      return null;
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      const held = await leases.findOne({ _id: PROJECTOR });
      // Released between the two calls: free now.
      return held ? { holder: held.holder, until: held.until } : this.take();
    }
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

  /** Stops renewing and frees the lease for another projector at once. */
  async release(): Promise<void> {
    if (this.renewal) clearInterval(this.renewal);
    this.renewal = null;
    if (!this.lost) await this.store.collection(LEASES).deleteMany({ _id: PROJECTOR, holder: this.holder });
  }

  private async renew(): Promise<void> {
    try {
      const other = await this.take();
      if (!other || this.lost) return;
      this.lost = other;
      if (this.renewal) clearInterval(this.renewal);
      this.renewal = null;
      this.log.error({ holder: other.holder }, 'projector lease lost to another projector: projecting stopped');
      this.options.onLost?.(other);
    } catch (error) {
      // The store out of reach: the next renewal tries again; the lease lasts three of them.
      this.log.warn({ err: (error as Error).message }, 'projector lease not renewed; retrying');
    }
  }
}
