import pino from 'pino';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import { LEASES, LEASE_TTL_MS, ProjectorLease, type HeldElsewhere } from './lease';
import { ProjectionRunner } from './runner';
import { CHECKPOINTS, ORIGIN, type Projector } from './projector';
import { PROJECTIONS_VERSION } from './version';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import type { ReadStore } from '../shared/adapters/read-store/port';
import type { DomainEvent, Recorded } from '../domain/events';
import { appendOne } from '../test/support/append-one';
import { eventually } from '../test/support/process';

const log = pino({ level: 'silent' });

describe('ProjectorLease: one projector writes shared read models', () => {
  it('refuses a second projector while the first holds the lease, and lets it take over once the lease expires', async () => {
    const store = new MemoryReadStore();
    let clock = 1_000_000;
    const now = () => clock;
    const lost: HeldElsewhere[] = [];
    const first = new ProjectorLease(store, log, {
      holder: 'first',
      ttlMs: 300,
      now,
      onLost: (by) => void lost.push(by),
    });
    const second = new ProjectorLease(store, log, { holder: 'second', ttlMs: 300, now });
    await first.acquire();
    expect(await second.take()).toEqual({ holder: 'first', until: 1_000_300 });
    // The first renews its own lease.
    clock += 200;
    expect(await first.take()).toBeNull();
    expect(await second.take()).toEqual({ holder: 'first', until: 1_000_500 });

    // The first stalls past its expiry: the second takes over, and the first learns it at its next renewal.
    clock += 1000;
    expect(await second.take()).toBeNull();
    await eventually(() => lost.length > 0, 20_000, 10);
    expect(lost).toEqual([{ holder: 'second', until: 1_001_500 }]);
    expect(first.problem()).toBe('another projector (second) took over the read models; restart this one');
    // Stopping the first leaves the second's lease alone.
    await first.release();
    expect(await store.collection(LEASES).findOne({ _id: 'projector' })).toMatchObject({ holder: 'second' });
    await second.release();
  });

  it('keeps a waiting projector waiting until the holder releases the lease at its stop', async () => {
    const store = new MemoryReadStore();
    const first = new ProjectorLease(store, log, { holder: 'first', ttlMs: 300 });
    const second = new ProjectorLease(store, log, { holder: 'second', ttlMs: 300 });
    await first.acquire();
    let acquired = false;
    const waiting = second.acquire().then(() => (acquired = true));
    // Two renewals of the first go by, with the second trying in between.
    const renewals = new Set<number>();
    const leases = store.collection<{ _id: string; holder: string; until: number }>(LEASES);
    await eventually(
      () => {
        void leases.findOne({ _id: 'projector' }).then((lease) => lease && renewals.add(lease.until));
        return renewals.size >= 3;
      },
      20_000,
      10,
    );
    expect(acquired).toBe(false);
    expect(await leases.findOne({ _id: 'projector' })).toMatchObject({ holder: 'first' });
    await first.release();
    await waiting;
    expect(await store.collection(LEASES).findOne({ _id: 'projector' })).toMatchObject({ holder: 'second' });
    expect(second.problem()).toBeNull();
    await second.release();
    // Released: expired at once, its epoch kept for the next holder to raise.
    expect(await store.collection(LEASES).findOne({ _id: 'projector' })).toEqual({
      _id: 'projector',
      holder: 'second',
      until: 0,
      epoch: 2,
    });
  });
});

const metadata = { correlationId: 'c', causationId: 'c', keyName: 'test', catalogVersion: 1 };
const counted = (n: number) => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  type: 'TriggerActivationTaken',
  data: { resourceUid: 't', holder: `h${n}`, playerId: 'p', units: 1 },
  metadata,
});

/**
 * Counts events in one document, read and replaced whole (gathered in the runner's batch, written
 * at its end): applying an event twice counts it twice. `gate` holds the apply of one event.
 */
function counter(gate?: { holder: string; opened: Promise<void>; reached: () => void }): Projector {
  return {
    name: 'counter',
    collections: ['counts'],
    handles: new Set(['TriggerActivationTaken']),
    async apply(event: Recorded<DomainEvent>, store: ReadStore) {
      if (gate && event.type === 'TriggerActivationTaken' && event.data.holder === gate.holder) {
        gate.reached();
        await gate.opened;
      }
      const counts = store.collection<{ _id: string; n: number }>('counts');
      const doc = await counts.findOne({ _id: 'all' });
      await counts.replaceOne({ _id: 'all' }, { _id: 'all', n: (doc?.n ?? 0) + 1 }, { upsert: true });
    },
  };
}

describe('Projector lease: a projector that lost its lease writes nothing', () => {
  it('refuses the batch and the checkpoints of a projector that stalled past its lease while another took over', async () => {
    const events = new SqliteEventStore(':memory:');
    const store = new MemoryReadStore();
    let clock = 1_000_000;
    const now = () => clock;
    const firstLease = new ProjectorLease(store, log, { holder: 'first', now });
    let reached = () => {};
    const held = new Promise<void>((resolve) => (reached = resolve));
    let open = () => {};
    const opened = new Promise<void>((resolve) => (open = resolve));
    const first = new ProjectionRunner(events, store, [counter({ holder: 'h2', opened, reached })], log, undefined, {
      lease: firstLease,
      retryAfterFaultMs: 10,
    });
    const lost: HeldElsewhere[] = [];
    const firstLost = new Promise<void>((resolve) => {
      (firstLease as unknown as { options: { onLost: (by: HeldElsewhere) => void } }).options.onLost = (by) => {
        lost.push(by);
        void first.stop().then(resolve);
      };
    });
    await firstLease.acquire();
    await first.start();
    const one = await appendOne(events, 's-1', [counted(1)], 'no_stream');
    expect(await first.waitFor(one.position, 5000)).toBe(true);
    const checkpoints = store.collection<{ _id: string; position: number; epoch?: number }>(CHECKPOINTS);
    await eventually(async () => (await checkpoints.findOne({ _id: 'counter' }))?.position === one.position, 5000, 5);

    // The first applies the second event and stalls in it, past its lease: the second projector takes over.
    const two = await appendOne(events, 's-1', [counted(2)], 0);
    await held;
    clock += LEASE_TTL_MS + 1;
    const secondLease = new ProjectorLease(store, log, { holder: 'second', now });
    await secondLease.acquire();
    const second = new ProjectionRunner(events, store, [counter()], log, undefined, { lease: secondLease });
    await second.start();
    expect(await second.waitFor(two.position, 5000)).toBe(true);
    expect(await store.collection('counts').findOne({ _id: 'all' })).toEqual({ _id: 'all', n: 2 });

    // The first resumes: it counts the event again in its batch, whose write the fence refuses; then it stops.
    open();
    await firstLost;
    expect(lost).toEqual([{ holder: 'second', until: clock + LEASE_TTL_MS }]);
    expect(firstLease.problem()).toBe('another projector (second) took over the read models; restart this one');
    expect(first.position).toBe(one.position);
    await second.stop();
    expect(await store.collection('counts').findOne({ _id: 'all' })).toEqual({ _id: 'all', n: 2 });
    expect(await checkpoints.findOne({ _id: 'counter' })).toEqual({ _id: 'counter', position: two.position, epoch: 2 });
    await firstLease.release();
    await secondLease.release();
    await events.close();
  });

  it('refuses, in the checkpoint write itself, a checkpoint of an earlier epoch than the one written', async () => {
    const events = new SqliteEventStore(':memory:');
    const store = new MemoryReadStore();
    const checkpoints = store.collection<{ _id: string; position: number; epoch?: number }>(CHECKPOINTS);
    // A later holder's checkpoint, and a runner whose lease is of an earlier epoch (its write fence passed, say, just before it lost).
    await checkpoints.insertOne({ _id: 'counter', position: 0, epoch: 2 });
    await checkpoints.insertOne({ _id: ORIGIN, logStart: null, version: PROJECTIONS_VERSION } as never);
    const stale = new ProjectionRunner(events, store, [counter()], log, undefined, {
      lease: { epoch: 1, fenced: (s) => s },
    });
    await stale.start();
    const one = await appendOne(events, 's-1', [counted(1)], 'no_stream');
    expect(await stale.waitFor(one.position, 5000)).toBe(true);
    await stale.stop();
    expect(await checkpoints.findOne({ _id: 'counter' })).toEqual({ _id: 'counter', position: 0, epoch: 2 });
    await events.close();
  });
});
