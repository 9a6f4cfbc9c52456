import { randomUUID } from 'node:crypto';
import { SqliteEventStore } from '../../shared/adapters/event-store/sqlite';
import { catalogOfYaml, commandDepsFor, publishYaml } from '../../test/support/command-deps';
import type { EventStore } from '../../shared/adapters/event-store/port';
import type { ActionProcessed } from '../../domain/events/player-events';
import type { CommandDeps, CommandOrigin } from '../deps';
import { processAction } from '../process-action/handler';
import { recompute } from './run';

// New York's midnight is 05:00 UTC in January: a day's stars expire then.
const CATALOG = `
version: 1
settings: { timezone: America/New_York }
deliverables:
  - { uid: stars, label: Stars, type: Prize, kind: Currency, expiry: { endOf: Day } }
actions:
  - { uid: act-earn, identifier: earn, points: 1, deliverables: [{ deliverable: stars, amount: 10 }] }
  - { uid: act-redeem, identifier: redeem, points: 50, cost: 10, costDeliverable: stars }
`;
const EXPIRY = Date.UTC(2027, 0, 11, 5);
const metadata = { correlationId: 'test', causationId: 'test', keyName: 'test', catalogVersion: 1 };
const origin: CommandOrigin = { metadata, idempotency: null };

describe('recompute: an action decided before the store recorded it', () => {
  let events: SqliteEventStore;
  let deps: CommandDeps;
  /** The decision's clock and the store's, apart: the store records an append 274 ms after it was decided. */
  let decidedAt: number;
  beforeEach(async () => {
    decidedAt = EXPIRY - 12 * 3_600_000;
    events = new SqliteEventStore(':memory:', { now: () => decidedAt + 274 });
    await publishYaml(events, CATALOG, EXPIRY - 86_400_000, metadata);
    deps = commandDepsFor(events, catalogOfYaml(CATALOG), () => decidedAt);
  });
  afterEach(async () => {
    await deps.jobs.close();
    await events.close();
  });

  it('given a spend decided just before its currency expired and recorded just after, when recomputed under the same catalog, then it stands', async () => {
    const player = randomUUID();
    const act = async (name: string, at: number) => {
      decidedAt = at;
      const done = await processAction(
        { playerId: player, referenceId: randomUUID(), name, timestamp: at, multiplier: 1, details: [] },
        origin,
        deps,
      );
      if (!done.ok) throw new Error(done.failure.message);
    };
    await act('earn', EXPIRY - 12 * 3_600_000);
    await act('redeem', EXPIRY - 100);
    const spend = (await events.readAll()).find(
      (e) => e.type === 'ActionProcessed' && (e.data as ActionProcessed).actionName === 'redeem',
    )!;
    expect(spend.createdAt).toBeGreaterThan(EXPIRY);
    const head = await events.headPosition();
    const { report } = await recompute(
      { ...deps, catalog: () => ({ version: 2, catalog: catalogOfYaml(CATALOG) }) },
      { recomputeUid: randomUUID(), dryRun: false, top: 10, metadata },
    );
    expect(report.problems).toEqual([]);
    expect(report.playersAffected).toBe(0);
    expect(await events.headPosition()).toBe(head);
  });

  it('given actions recorded before the decision time was kept, when recomputed under the same catalog, then they are decided at the time recorded and nothing changes', async () => {
    // The service as it was: its ActionProcessed events without decidedAt.
    const before: EventStore = Object.create(events);
    before.appendToStreams = (appends) =>
      events.appendToStreams(
        appends.map((a) => ({
          ...a,
          events: a.events.map((e) =>
            e.type === 'ActionProcessed' ? { ...e, data: { ...(e.data as ActionProcessed), decidedAt: undefined } } : e,
          ),
        })),
      );
    const player = randomUUID();
    for (const name of ['earn', 'earn', 'redeem']) {
      const done = await processAction(
        { playerId: player, referenceId: randomUUID(), name, timestamp: decidedAt, multiplier: 1, details: [] },
        origin,
        { ...deps, events: before },
      );
      if (!done.ok) throw new Error(done.failure.message);
    }
    const recorded = (await events.readAll()).filter((e) => e.type === 'ActionProcessed');
    expect(recorded.map((e) => 'decidedAt' in (e.data as ActionProcessed))).toEqual([false, false, false]);
    const head = await events.headPosition();
    const { report } = await recompute(
      { ...deps, catalog: () => ({ version: 2, catalog: catalogOfYaml(CATALOG) }) },
      { recomputeUid: randomUUID(), dryRun: false, top: 10, metadata },
    );
    expect(report.playersAffected).toBe(0);
    expect(await events.headPosition()).toBe(head);
  });
});
