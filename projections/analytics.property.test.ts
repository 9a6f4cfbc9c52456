/**
 * The analytics add up to what the players hold: over random histories decided by the service's
 * own commands (actions with points, a badge, levels with grants, a daily streak with milestones,
 * a daily mission, a times cap and an earn cap, a currency that expires, actions with a cost,
 * purchases, reversals, expiry, and recomputes under a changed catalog), the `points` of every
 * day add up to the players' points, and each deliverable's granted - spent + refunded - expired
 * to the players' balances of it, as the players' own fold makes them.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { buyBundle } from '../command-api/buy-bundle/handler';
import { expireCurrency } from '../command-api/currency-expiry/job';
import type { CommandDeps, CommandOrigin } from '../command-api/deps';
import { processAction } from '../command-api/process-action/handler';
import { recompute } from '../command-api/recompute/run';
import { reverseAction } from '../command-api/reverse-action/handler';
import { PlayerStates } from '../shared/adapters/event-store/player-states';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import type { RecordedEvent } from '../shared/adapters/event-store/port';
import { addAmounts } from '../domain/amount';
import { playerEventOf } from '../domain/events';
import type { Catalog } from '../domain/catalog/schema';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import { ANALYTICS_COLLECTIONS, type DayDoc } from '../shared/read-models/analytics';
import { catalogOfYaml, commandDepsFor, publishYaml } from '../test/support/command-deps';
import { analyticsProjector } from './analytics';
import { replay } from './verify';

const SEED = Number(process.env.PROPERTY_SEED ?? 20261129);
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 5, 1, 6);
const PLAYERS = [randomUUID(), randomUUID()];

const CATALOG = `
version: 1
settings: { timezone: Europe/Berlin }
deliverables:
  - { uid: beans, label: Beans, type: Prize, kind: Currency, expiry: { afterDays: 1 }, earnCaps: [{ period: Day, amount: 8 }] }
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
  - { uid: sword, label: Sword, type: Prize, kind: Item }
actions:
  - { uid: act-order, identifier: order, points: 10, deliverables: [{ deliverable: beans, amount: 3 }], caps: [{ period: Day, times: 3 }] }
  - { uid: act-check, identifier: check_in, points: 2, deliverables: [{ deliverable: gold, amount: 5 }] }
  - { uid: act-redeem, identifier: redeem, points: 1, cost: 3, costDeliverable: gold }
badges:
  - { uid: b-regular, label: Regular, type: OneTimeOnly, points: 7, deliverables: [{ deliverable: gold, amount: 2 }], conditions: [{ action: check_in, challenge: { times: 3 } }] }
levels:
  - { uid: lvl-1, label: One, level: 1, target: 0 }
  - { uid: lvl-2, label: Two, level: 2, target: 40, deliverables: [{ deliverable: gold, amount: 5 }] }
  - { uid: lvl-3, label: Three, level: 3, target: 120, deliverables: [{ deliverable: sword, amount: 1 }] }
streaks:
  - uid: s-daily-order
    label: Daily order
    period: Day
    conditions: [{ action: order }]
    milestones:
      - { length: 2, points: 5, deliverables: [{ deliverable: gold, amount: 4 }] }
      - { length: 4, points: 9, deliverables: [{ deliverable: beans, amount: 3 }] }
missions:
  - uid: m-daily
    label: Daily
    repeat: Daily
    ordered: true
    steps:
      - { uid: m-s1, label: Check in, condition: { action: check_in } }
      - { uid: m-s2, label: Order twice, condition: { action: order, challenge: { times: 2 } } }
    points: 20
    deliverables: [{ deliverable: gold, amount: 6 }]
stores:
  - uid: main
    label: Main
    bundles:
      - { uid: bd-sword, label: Sword, cost: 6, costDeliverable: beans, contents: [{ deliverable: sword, amount: 1 }] }
      - { uid: bd-beans, label: Beans, cost: 10, costDeliverable: gold, contents: [{ deliverable: beans, amount: 4 }] }
`;
/** What a recompute re-decides under: other points and rewards for orders, milestones, missions and levels. */
const CHANGED = CATALOG.replace('identifier: order, points: 10', 'identifier: order, points: 15')
  .replace('{ length: 2, points: 5, deliverables: [{ deliverable: gold, amount: 4 }] }', '{ length: 2, points: 8 }')
  .replace('points: 20\n', 'points: 30\n')
  .replace(
    'target: 40, deliverables: [{ deliverable: gold, amount: 5 }]',
    'target: 40, deliverables: [{ deliverable: gold, amount: 9 }]',
  );
const CATALOGS: Catalog[] = [catalogOfYaml(CATALOG), catalogOfYaml(CHANGED)];

const metadata = { correlationId: 'test', causationId: 'test', keyName: 'test', catalogVersion: 1 };
const origin: CommandOrigin = { metadata, idempotency: null };

type Step =
  | { kind: 'act'; player: number; name: 'order' | 'check_in' | 'redeem'; hours: number }
  | { kind: 'reverse'; back: number }
  | { kind: 'buy'; player: number; bundle: 'bd-sword' | 'bd-beans' }
  | { kind: 'expire' }
  | { kind: 'recompute' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant('act' as const),
      player: fc.nat(1),
      name: fc.constantFrom(
        'order' as const,
        'order' as const,
        'check_in' as const,
        'check_in' as const,
        'redeem' as const,
      ),
      // Mostly within the day (caps, missions), sometimes the next day (streaks) or later (a broken run, expiry).
      hours: fc.oneof(
        { weight: 5, arbitrary: fc.constant(0) },
        { weight: 3, arbitrary: fc.integer({ min: 1, max: 3 }) },
        { weight: 2, arbitrary: fc.constant(24) },
        { weight: 1, arbitrary: fc.integer({ min: 25, max: 60 }) },
      ),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('reverse' as const), back: fc.nat(8) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('buy' as const),
      player: fc.nat(1),
      bundle: fc.constantFrom('bd-sword' as const, 'bd-beans' as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'expire' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'recompute' as const }) },
);

/** How often each mechanic was met over all runs: the check below that the histories reach them. */
const seen = { milestones: 0, missions: 0, capped: 0, expired: 0, recomputed: 0, rewardsReversed: 0 };

/** Counts in `seen` what the log shows of each mechanic. */
function tally(log: readonly RecordedEvent[]): void {
  for (const recorded of log) {
    const event = playerEventOf(recorded);
    if (event?.type === 'ActionProcessed') {
      const e = event.data;
      if (e.streaks?.some((s) => s.milestones.length)) seen.milestones++;
      if (e.missions?.some((m) => m.completion)) seen.missions++;
      if (e.result.capped) seen.capped++;
    } else if (event?.type === 'ActionReversed') {
      const e = event.data;
      if (e.revokedMilestones?.length || e.revokedMissions?.length || e.revokedAwards.length) seen.rewardsReversed++;
    } else if (event?.type === 'CurrencyExpired') seen.expired++;
    else if (event?.type === 'PlayerRecomputed') seen.recomputed++;
  }
}

/** Runs the steps against the commands; the event log they wrote. */
async function history(steps: readonly Step[]): Promise<SqliteEventStore> {
  const events = new SqliteEventStore(':memory:');
  await publishYaml(events, CATALOG, T0 - HOUR, metadata);
  let clock = T0;
  let version = 0;
  const deps: CommandDeps = {
    ...commandDepsFor(events, CATALOGS[0], () => clock),
    catalog: () => ({ version: version + 1, catalog: CATALOGS[version] }),
  };
  const live: { playerId: string; referenceId: string; name: string }[] = [];
  try {
    for (const s of steps) {
      if (s.kind === 'act') {
        clock += s.hours * HOUR;
        const referenceId = randomUUID();
        const playerId = PLAYERS[s.player];
        const done = await processAction(
          { playerId, referenceId, name: s.name, timestamp: clock, multiplier: 1, details: [] },
          origin,
          deps,
        );
        if (done.ok) live.push({ playerId, referenceId, name: s.name });
      } else if (s.kind === 'reverse') {
        const target = live[live.length - 1 - (s.back % Math.max(1, live.length))];
        if (!target) continue;
        const done = await reverseAction(target, origin, deps);
        if (done.ok) live.splice(live.indexOf(target), 1);
      } else if (s.kind === 'buy') {
        await buyBundle({ playerId: PLAYERS[s.player], bundleUid: s.bundle }, origin, deps);
      } else if (s.kind === 'expire') {
        clock += 24 * HOUR;
        for (const playerId of PLAYERS) await expireCurrency(playerId, 0, deps);
      } else {
        version = 1 - version;
        await recompute(deps, { recomputeUid: randomUUID(), dryRun: false, top: 10, metadata });
      }
    }
    return events;
  } finally {
    await deps.jobs.close();
  }
}

describe('analytics', () => {
  it("add up to the players' points and balances, whatever the history", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 20, maxLength: 40 }), async (steps) => {
        const events = await history(steps);
        try {
          const store = new MemoryReadStore();
          await replay(events, store, [analyticsProjector], { to: await events.headPosition() });
          tally(await events.readAll());
          let points = 0;
          const moved = new Map<string, number>();
          const SIGN: Record<string, number> = { granted: 1, refunded: 1, spent: -1, expired: -1 };
          for (const day of await store.collection<DayDoc>(ANALYTICS_COLLECTIONS.days).find({})) {
            points = addAmounts(points, day.totals.points);
            for (const [key, value] of day.split.deliverables) {
              const [uid, move] = key.split(':');
              moved.set(uid, addAmounts(moved.get(uid) ?? 0, SIGN[move] * value));
            }
          }
          const players = new PlayerStates(events);
          let held = 0;
          const balances = new Map<string, number>();
          for (const playerId of PLAYERS) {
            const { state } = await players.load(playerId);
            held = addAmounts(held, state.points);
            for (const [uid, amount] of state.balances) balances.set(uid, addAmounts(balances.get(uid) ?? 0, amount));
          }
          expect(points).toBe(held);
          const nonZero = (m: Map<string, number>) => Object.fromEntries([...m].filter(([, v]) => v !== 0).sort());
          expect(nonZero(moved)).toEqual(nonZero(balances));
        } finally {
          await events.close();
        }
      }),
      { numRuns: 40, seed: SEED },
    );
    // The histories reached what they are meant to try.
    for (const [mechanic, times] of Object.entries(seen)) expect([mechanic, times > 0]).toEqual([mechanic, true]);
  }, 120_000);
});
