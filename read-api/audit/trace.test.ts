/**
 * The trace names the rule behind every reward of an action: a streak's milestone, a mission's
 * steps and completion, the cap that cut it, the lots of a currency that expires; and a
 * recompute's chain shows each action it decided differently, with its change and rules.
 */
import { randomUUID } from 'node:crypto';
import type { CommandDeps, CommandOrigin } from '../../command-api/deps';
import { processAction } from '../../command-api/process-action/handler';
import { reverseAction } from '../../command-api/reverse-action/handler';
import { recompute } from '../../command-api/recompute/run';
import { SqliteEventStore } from '../../shared/adapters/event-store/sqlite';
import type { Catalog } from '../../domain/catalog/schema';
import { catalogOfYaml, commandDepsFor, publishYaml } from '../../test/support/command-deps';
import { traceReference, type ActionTrace } from './trace';

const CATALOG = `
version: 1
settings: { timezone: UTC }
deliverables:
  - { uid: beans, label: Beans, type: Prize, kind: Currency, expiry: { afterDays: 1 }, earnCaps: [{ period: Day, amount: 4 }] }
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
actions:
  - { uid: act-order, identifier: order, points: 10, deliverables: [{ deliverable: beans, amount: 3 }] }
  - { uid: act-check, identifier: check_in, points: 1 }
  - { uid: act-redeem, identifier: redeem, points: 0, cost: 2, costDeliverable: beans }
streaks:
  - uid: s-daily
    label: Daily order
    period: Day
    conditions: [{ action: order }]
    milestones: [{ length: 2, points: 5, deliverables: [{ deliverable: gold, amount: 4 }] }]
missions:
  - uid: m-first
    label: First visit
    ordered: true
    steps:
      - { uid: m-s1, label: Check in, condition: { action: check_in } }
      - { uid: m-s2, label: Order, condition: { action: order } }
    points: 20
    deliverables: [{ deliverable: gold, amount: 6 }]
`;
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 5, 1, 9);
/** Each request's own correlationId: what the trace groups a request's events by. */
const metadataOf = (request: string) => ({
  correlationId: request,
  causationId: request,
  keyName: 'test',
  catalogVersion: 1,
});
const originOf = (request: string): CommandOrigin => ({ metadata: metadataOf(request), idempotency: null });
const gold = (amount: number) => ({ uid: 'gold', label: 'Gold', type: 1, imageName: null, amount, details: null });

describe('the trace of an action', () => {
  let events: SqliteEventStore;
  let deps: CommandDeps;
  let catalog: { version: number; catalog: Catalog };
  const playerId = randomUUID();
  const act = async (name: string, referenceId: string, timestamp: number) => {
    const done = await processAction(
      { playerId, referenceId, name, timestamp, multiplier: 1, details: [] },
      originOf(referenceId),
      {
        ...deps,
        now: () => timestamp,
      },
    );
    if (!done.ok) throw new Error(done.failure.message);
  };
  const rulesOf = async (referenceId: string) => {
    const traced = (await traceReference(events, referenceId)) as ActionTrace;
    return traced.chains[0].rules!;
  };

  beforeAll(async () => {
    events = new SqliteEventStore(':memory:');
    await publishYaml(events, CATALOG, T0 - DAY, metadataOf('publish'));
    catalog = { version: 1, catalog: catalogOfYaml(CATALOG) };
    deps = { ...commandDepsFor(events, catalog.catalog, () => T0 + 3 * DAY), catalog: () => catalog };
    await act('check_in', 'c1', T0);
    await act('order', 'o1', T0 + 1000); // completes the mission
    await act('order', 'o2', T0 + DAY); // a run of 2 days: the milestone
    await act('order', 'o3', T0 + DAY + 1000); // 3 beans more than the day's 4: cut to 1
  });
  afterAll(async () => {
    await deps.jobs.close();
    await events.close();
  });

  it('names the mission and the steps behind a completion, and the lots it granted with their expiry', async () => {
    const rules = await rulesOf('o1');
    expect(rules.missions).toEqual([
      {
        uid: 'm-first',
        label: 'First visit',
        period: 0,
        steps: [1],
        completedSteps: [0, 1],
        completion: { points: 20, grants: [gold(6)] },
      },
    ]);
    expect(rules.lots).toEqual([{ deliverableUid: 'beans', expiresAt: Date.UTC(2026, 5, 3), amount: 3 }]);
    expect(rules.streaks).toEqual([
      { uid: 's-daily', label: 'Daily order', length: 1, extended: false, freezesUsed: 0, milestones: [] },
    ]);
  });

  it('names the streak and the milestone behind a milestone reward', async () => {
    const rules = await rulesOf('o2');
    expect(rules.streaks).toEqual([
      {
        uid: 's-daily',
        label: 'Daily order',
        length: 2,
        extended: true,
        freezesUsed: 0,
        milestones: [{ length: 2, points: 5, grants: [gold(4)] }],
      },
    ]);
    expect(rules.caps).toEqual([]);
  });

  it('names the cap that cut what it earned', async () => {
    const rules = await rulesOf('o3');
    expect(rules.caps).toEqual([{ period: 'Day', kind: 'earn', limit: 4, deliverable: 'beans' }]);
    expect(rules.lots).toEqual([{ deliverableUid: 'beans', expiresAt: Date.UTC(2026, 5, 4), amount: 1 }]);
  });

  it("of a recompute shows each re-decided action's change and the rules it now follows", async () => {
    const changed = CATALOG.replace('{ length: 2, points: 5,', '{ length: 2, points: 8,');
    catalog = { version: 2, catalog: catalogOfYaml(changed) };
    await recompute(deps, { recomputeUid: randomUUID(), dryRun: false, top: 10, metadata: metadataOf('recompute') });
    const traced = (await traceReference(events, 'o2')) as ActionTrace;
    const chain = traced.chains.find((c) => c.cause === 'PlayerRecomputed')!;
    expect(chain.balanceChanges).toEqual([expect.objectContaining({ balance: 'points', change: 3 })]);
    expect(chain.recomputed).toHaveLength(1);
    const [o2] = chain.recomputed!;
    expect(o2).toMatchObject({ referenceId: 'o2', pointsBefore: 15, pointsAfter: 18 });
    expect(o2.rules).toMatchObject({
      catalogVersion: 2,
      action: { name: 'order', points: 10 },
      streaks: [{ uid: 's-daily', length: 2, milestones: [{ length: 2, points: 8, grants: [gold(4)] }] }],
    });
    // The processing request's chain has no recompute of its own.
    expect(traced.chains[0].recomputed).toBeNull();
  });
});

describe('the trace of a reversal', () => {
  it('names the streak milestone it took back, and the lots of the cost it could not give back because they had expired', async () => {
    const events = new SqliteEventStore(':memory:');
    await publishYaml(events, CATALOG, T0 - DAY, metadataOf('publish'));
    const deps = commandDepsFor(events, catalogOfYaml(CATALOG));
    const playerId = randomUUID();
    try {
      const act = async (name: string, referenceId: string, timestamp: number) => {
        const cmd = { playerId, referenceId, name, timestamp, multiplier: 1, details: [] };
        const done = await processAction(cmd, originOf(referenceId), { ...deps, now: () => timestamp });
        if (!done.ok) throw new Error(done.failure.message);
      };
      const reverse = async (name: string, referenceId: string) => {
        const request = `reverse-${referenceId}`;
        const done = await reverseAction({ playerId, referenceId, name }, originOf(request), {
          ...deps,
          now: () => T0 + 3 * DAY,
        });
        if (!done.ok) throw new Error(done.failure.message);
        const traced = (await traceReference(events, referenceId)) as ActionTrace;
        return traced.chains.find((c) => c.correlationId === request)!.takenBack!;
      };
      await act('order', 'o1', T0);
      await act('redeem', 'r1', T0 + 1000); // 2 beans of the lot expiring on 3 June
      await act('order', 'o2', T0 + DAY); // the milestone of a 2-day run

      const milestone = await reverse('order', 'o2');
      expect(milestone.milestones).toEqual([
        expect.objectContaining({ streakUid: 's-daily', length: 2, awardedBy: 'o2', points: 5, grants: [gold(4)] }),
      ]);
      expect(milestone.lotsExpired).toEqual([]);

      const redeem = await reverse('redeem', 'r1');
      expect(redeem.lotsExpired).toEqual([{ deliverableUid: 'beans', expiresAt: Date.UTC(2026, 5, 3), amount: 2 }]);
    } finally {
      await deps.jobs.close();
      await events.close();
    }
  });
});
