import { SqliteEventStore } from '../../shared/adapters/event-store/sqlite';
import { parseCatalog } from '../../domain/catalog/load';
import { commandDepsFor } from '../../test/support/command-deps';
import { NOT_YET_WRITTEN_RETRY_MS, PROVISION_TIMEOUT } from './decider';
import { timeOutProvision } from './timeout';

/** The timeout job of a purchase whose append has not landed (yet): it may run first. */
describe('provision-timeout before its purchase is written', () => {
  const T0 = Date.UTC(2026, 5, 1);
  const parsed = parseCatalog('version: 1\n', 'catalog.yaml');
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  const catalog = parsed.catalog;
  const provisionUid = 'a'.repeat(32);

  async function runAt(now: number, writtenBy: number) {
    const events = new SqliteEventStore(':memory:');
    const deps = commandDepsFor(events, catalog, () => now);
    const scheduled: unknown[][] = [];
    deps.jobs = { ...deps.jobs, schedule: async (...args: unknown[]) => void scheduled.push(args) };
    await timeOutProvision(provisionUid, writtenBy, deps);
    await events.close();
    return scheduled;
  }

  it('looks again a second later while the purchase may still be on its way', async () => {
    expect(await runAt(T0, T0 + 60_000)).toEqual([
      [
        PROVISION_TIMEOUT,
        `provision-timeout-${provisionUid}`,
        T0 + NOT_YET_WRITTEN_RETRY_MS,
        { provisionUid, writtenBy: T0 + 60_000 },
      ],
    ]);
  });

  it('never later than the end of that window', async () => {
    expect(await runAt(T0, T0 + 200)).toEqual([
      [PROVISION_TIMEOUT, `provision-timeout-${provisionUid}`, T0 + 200, { provisionUid, writtenBy: T0 + 200 }],
    ]);
  });

  it('takes the purchase as never written once the window is over', async () => {
    expect(await runAt(T0 + 60_000, T0 + 60_000)).toEqual([]);
  });
});
