import { MemoryReadStore } from '../../shared/adapters/read-store/memory';
import { eventually } from '../../test/support/process';
import { AUDIT_RUNS, AuditRuns, STALE_MS } from './runs';

describe('AuditRuns: one run of a kind at a time across processes', () => {
  it('refuses a second run while one is heard of, shows its progress and outcome to the others, and reads one whose process stopped as Interrupted', async () => {
    const shared = new MemoryReadStore().collection(AUDIT_RUNS);
    let clock = 1_000_000;
    const now = () => clock;
    const failed: unknown[] = [];
    const one = new AuditRuns(shared, (e) => failed.push(e), now, 10);
    const other = new AuditRuns(shared, (e) => failed.push(e), now, 10);

    expect(await other.latest('verify')).toBeNull();
    expect(await one.begin('verify', 'first', { eventsReplayed: 0 })).toBe(true);
    expect(await other.begin('verify', 'second', { eventsReplayed: 0 })).toBe(false);
    // Another kind runs beside it.
    expect(await other.begin('simulate', 'simulated', { eventsReplayed: 0 })).toBe(true);
    one.report('verify', { eventsReplayed: 5 });
    await eventually(async () => (await other.latest('verify'))?.progress.eventsReplayed === 5, 5000, 5);
    await one.end('verify', 'first', { result: { differences: [] } });
    expect(await other.latest('verify')).toEqual({
      runUid: 'first',
      status: 'Completed',
      startedAt: 1_000_000,
      endedAt: 1_000_000,
      progress: { eventsReplayed: 5 },
      result: { differences: [] },
      error: null,
    });

    // The next runs; its process stops (no more heartbeats): past STALE_MS it is Interrupted, and another may run.
    expect(await other.begin('verify', 'second', { eventsReplayed: 0 })).toBe(true);
    other.close();
    clock += STALE_MS + 1;
    expect(await one.latest('verify')).toMatchObject({
      runUid: 'second',
      status: 'Interrupted',
      error: 'its process stopped before it ended',
    });
    expect(await one.begin('verify', 'third', { eventsReplayed: 0 })).toBe(true);
    await one.end('verify', 'third', { error: 'the store went away' });
    expect(await other.latest('verify')).toMatchObject({
      runUid: 'third',
      status: 'Failed',
      error: 'the store went away',
    });
    one.close();
    expect(failed).toEqual([]);
  });
});
