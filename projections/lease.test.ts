import pino from 'pino';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import { LEASES, ProjectorLease, type HeldElsewhere } from './lease';
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
    expect(await store.collection(LEASES).findOne({ _id: 'projector' })).toBeNull();
  });
});
