/**
 * The daily buckets equal a count made the slow way: any history of registrations, actions (with
 * badges, grants, levels and costs), reversals (some bringing down awards of later actions),
 * chest openings, purchases and refunds is projected, and each day's numbers are compared with those
 * counted from the history's final state, days told apart by Intl in the catalog's time zone.
 * The instants cluster around the local midnights of a week holding a DST change.
 */
import fc from 'fast-check';
import type { RecordedEvent } from '../shared/adapters/event-store/port';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { domainEventOf, type EventType, type PlayerEvent, type Recorded } from '../domain/events';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import { ANALYTICS_COLLECTIONS, SPLIT_SERIES, TOTAL_SERIES, type DayDoc } from '../shared/read-models/analytics';
import type { ReadStore } from '../shared/adapters/read-store/port';
import { playerStream } from '../domain/streams';
import { publishYaml } from '../test/support/command-deps';
import { analyticsProjector } from './analytics';
import { effectAmounts } from './analytics-effects';
import { replay } from './verify';

const metadata = { correlationId: 'c', causationId: 'c', keyName: 'test', catalogVersion: 1 };
const ZONE = 'Europe/Berlin';
const HOUR = 3_600_000;
/** 2026-03-28T00:00 in Berlin (UTC+1); clocks go forward on the 29th, which has 23 hours. */
const WEEK_START = Date.UTC(2026, 2, 27, 23);
const CATALOG = `
version: 1
settings: { timezone: ${ZONE} }
actions:
  - { uid: act-earn, identifier: earn }
  - { uid: act-play, identifier: play }
`;
const PLAYERS = [
  '0b0e2d9a-6a43-4c43-9b8a-2f6f1d8c0001',
  '0b0e2d9a-6a43-4c43-9b8a-2f6f1d8c0002',
  '0b0e2d9a-6a43-4c43-9b8a-2f6f1d8c0003',
];

/** The local day of an instant, by Intl rather than by the code under test. */
const dayOf = (ms: number): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(ms);

/** An instant of the week: often within a second of a local midnight, else anywhere. */
const instant: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: 0, max: 7 * 24 * HOUR }).map((ms) => WEEK_START + ms),
  fc
    .record({ day: fc.nat(6), offset: fc.integer({ min: -1000, max: 1000 }) })
    .map(({ day, offset }) => Date.UTC(2026, 2, 28 + day) - (day >= 2 ? 2 : 1) * HOUR + offset),
);

type Step =
  | { kind: 'register'; player: number; at: number }
  | {
      kind: 'act';
      player: number;
      name: 'earn' | 'play';
      at: number;
      points: number;
      badge: number;
      grant: number;
      level: boolean;
      cost: number;
    }
  /** Reverses the `back`-th latest action still in effect, bringing down the `revoke`-th later badge it can (or none). */
  | { kind: 'reverse'; back: number; revoke: number; at: number }
  | { kind: 'chest'; player: number; at: number; points: number; gems: number }
  | { kind: 'buy'; player: number; at: number; bundle: 'b-small' | 'b-big'; cost: number; refundAt: number | null };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('register' as const), player: fc.nat(2), at: instant }) },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('act' as const),
      player: fc.nat(2),
      name: fc.constantFrom('earn' as const, 'play' as const),
      at: instant,
      points: fc.constantFrom(0, 5, 10),
      badge: fc.constantFrom(0, 0, 1, 2),
      grant: fc.constantFrom(0, 0, 3),
      level: fc.boolean(),
      cost: fc.constantFrom(0, 0, 2),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('reverse' as const),
      back: fc.oneof(fc.constant(0), fc.nat(10)),
      revoke: fc.nat(3),
      at: instant,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('chest' as const),
      player: fc.nat(2),
      at: instant,
      points: fc.constantFrom(0, 7),
      gems: fc.constantFrom(0, 1),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('buy' as const),
      player: fc.nat(2),
      at: instant,
      bundle: fc.constantFrom('b-small' as const, 'b-big' as const),
      cost: fc.constantFrom(0, 4),
      refundAt: fc.option(instant),
    }),
  },
);

interface Action {
  ref: string;
  playerId: string;
  name: string;
  at: number;
  points: number;
  /** The badge it earned ('' for none), its points and coins, while held. */
  badge: string;
  badgeHeld: boolean;
  grant: number;
  level: boolean;
  cost: number;
  reversedAt: number | null;
}

interface Written {
  stream: string;
  type: EventType;
  data: object;
}

/** Each day's expected numbers: `series` or `series key` -> value. */
type Expected = Map<string, Map<string, number>>;

/** The log a script writes, and what each day should count, from the final state of the history. */
function history(steps: readonly Step[]): { log: Written[]; expected: Expected } {
  const actions: Action[] = [];
  const log: Written[] = [];
  const expected: Expected = new Map();
  const count = (at: number, what: string, delta: number) => {
    const day = expected.get(dayOf(at)) ?? new Map<string, number>();
    expected.set(dayOf(at), day.set(what, (day.get(what) ?? 0) + delta));
  };
  const active = new Set<string>();
  const grant = (uid: string, amount: number) => ({ uid, label: uid, type: 1, imageName: null, amount, details: null });
  /** What the player's fold adds up: the amounts analytics count. */
  const effects = (points: number, balances: Record<string, number> = {}) => ({
    points,
    balances: Object.entries(balances)
      .filter(([, amount]) => amount !== 0)
      .map(([deliverableUid, amount]) => ({ deliverableUid, amount })),
    powerupsGranted: [],
    powerupsRemoved: [],
    powerupUses: [],
  });
  steps.forEach((s, n) => {
    if (s.kind === 'register') {
      const playerId = PLAYERS[s.player];
      log.push({
        stream: playerStream(playerId),
        type: 'PlayerRegistered',
        data: { playerId, username: playerId, imageName: null, registeredAt: s.at, levels: [], effects: effects(0) },
      });
      count(s.at, 'new-players', 1);
    } else if (s.kind === 'act') {
      const playerId = PLAYERS[s.player];
      const a: Action = {
        ref: `r${n}`,
        playerId,
        name: s.name,
        at: s.at,
        points: s.points,
        badge: s.badge ? `badge-${s.badge}` : '',
        badgeHeld: s.badge > 0,
        grant: s.grant,
        level: s.level,
        cost: s.cost,
        reversedAt: null,
      };
      actions.push(a);
      const awards = a.badge
        ? [
            { kind: 'badge', uid: a.badge, points: 2, grants: [grant('coins', 1)] },
            { kind: 'trigger', uid: 'trigger-x', points: 0, grants: [] },
          ]
        : [];
      log.push({
        stream: playerStream(playerId),
        type: 'ActionProcessed',
        data: {
          playerId,
          referenceId: a.ref,
          actionName: a.name,
          timestamp: a.at,
          actionPoints: a.points,
          actionGrants: a.grant ? [grant('coins', a.grant)] : [],
          cost: a.cost ? { deliverableUid: 'gems', label: 'Gems', amount: a.cost, provisionUid: `p${n}` } : null,
          awards,
          levels: a.level ? [{ uid: 'level-1', label: 'One', level: 1, target: 0, imageName: null, grants: [] }] : [],
          result: { earnedPoints: a.points + (a.badge ? 2 : 0) },
          effects: effects(a.points + (a.badge ? 2 : 0), { coins: a.grant + (a.badge ? 1 : 0), gems: -a.cost }),
        },
      });
      count(a.at, 'actions', 1);
      count(a.at, `actions-by-action ${a.name}`, 1);
      if (!active.has(`${dayOf(a.at)} ${playerId}`)) count(a.at, 'active-players', 1);
      active.add(`${dayOf(a.at)} ${playerId}`);
      if (a.level) count(a.at, 'levels level-1', 1);
      if (a.cost) count(a.at, 'deliverables gems:spent', a.cost);
    } else if (s.kind === 'reverse') {
      const live = actions.filter((a) => a.reversedAt === null);
      if (live.length === 0) return;
      const target = live[live.length - 1 - (s.back % live.length)];
      target.reversedAt = s.at;
      const revokedAwards = [];
      if (target.badgeHeld)
        revokedAwards.push({
          kind: 'badge',
          uid: target.badge,
          awardedBy: target.ref,
          awardedAt: target.at,
          points: 2,
          grants: [grant('coins', 1)],
        });
      target.badgeHeld = false;
      // A later badge of the same player whose condition no longer holds without this action.
      const later = actions.filter(
        (a) => a.playerId === target.playerId && actions.indexOf(a) > actions.indexOf(target) && a.badgeHeld,
      );
      const revoked = later[s.revoke % (later.length + 1)];
      if (revoked) {
        revoked.badgeHeld = false;
        revokedAwards.push({
          kind: 'badge',
          uid: revoked.badge,
          awardedBy: revoked.ref,
          awardedAt: revoked.at,
          points: 2,
          grants: [grant('coins', 1)],
        });
      }
      log.push({
        stream: playerStream(target.playerId),
        type: 'ActionReversed',
        data: {
          playerId: target.playerId,
          referenceId: target.ref,
          actionName: target.name,
          timestamp: target.at,
          reversedAt: s.at,
          actionPoints: target.points,
          actionGrants: target.grant ? [grant('coins', target.grant)] : [],
          revokedAwards,
          revokedLevels: [],
          refund: target.cost
            ? { deliverableUid: 'gems', label: 'Gems', amount: target.cost, provisionUid: `p${n}` }
            : null,
          effects: effects(-target.points - 2 * revokedAwards.length, {
            coins: -target.grant - revokedAwards.length,
            gems: target.cost,
          }),
        },
      });
      count(s.at, 'reversals', 1);
      if (target.cost) count(s.at, 'deliverables gems:refunded', target.cost);
    } else if (s.kind === 'chest') {
      const playerId = PLAYERS[s.player];
      const prizes = s.gems ? [{ reward: 'gems', amount: s.gems }] : [];
      if (s.points) prizes.push({ reward: 'points', amount: s.points });
      log.push({
        stream: playerStream(playerId),
        type: 'ChestOpened',
        data: {
          playerId,
          openingUid: `o${n}`,
          chestDeliverableUid: 'chest',
          openedAt: s.at,
          prizes,
          levels: [],
          effects: effects(s.points, { chest: -1, gems: s.gems }),
        },
      });
      count(s.at, 'chest-openings', 1);
      count(s.at, 'points', s.points);
      count(s.at, 'deliverables chest:spent', 1);
      if (s.gems) count(s.at, 'deliverables gems:granted', s.gems);
    } else {
      const playerId = PLAYERS[s.player];
      const cost = { deliverableUid: s.cost ? 'coins' : null, label: null, amount: s.cost };
      log.push({
        stream: playerStream(playerId),
        type: 'BundlePurchased',
        data: {
          playerId,
          provisionUid: `p${n}`,
          bundleUid: s.bundle,
          cost,
          status: 'Completed',
          contents: [grant('gems', 1)],
          purchasedAt: s.at,
          effects: effects(0, { coins: -s.cost, gems: 1 }),
        },
      });
      count(s.at, `purchases ${s.bundle}`, 1);
      if (s.cost) count(s.at, 'deliverables coins:spent', s.cost);
      count(s.at, 'deliverables gems:granted', 1);
      if (s.refundAt !== null) {
        log.push({
          stream: playerStream(playerId),
          type: 'ProvisionRefunded',
          data: {
            playerId,
            provisionUid: `p${n}`,
            refundedAt: s.refundAt,
            returned: cost,
            removed: [grant('gems', 1)],
            effects: effects(0, { coins: s.cost, gems: -1 }),
          },
        });
        if (s.cost) count(s.refundAt, 'deliverables coins:refunded', s.cost);
        count(s.refundAt, 'deliverables gems:granted', -1);
      }
    }
  });
  // What the actions earned, less what reversals took back, counts on the action's own day.
  for (const a of actions) {
    const live = a.reversedAt === null;
    count(a.at, 'points', (live ? a.points : 0) + (a.badgeHeld ? 2 : 0));
    if (live && a.grant) count(a.at, 'deliverables coins:granted', a.grant);
    if (a.badgeHeld) {
      count(a.at, `badges ${a.badge}`, 1);
      count(a.at, 'deliverables coins:granted', 1);
    }
  }
  return { log, expected };
}

/** The projected days as `series` or `series key` -> value, zeros left out as the expectation leaves them. */
async function projectedDays(store: ReadStore): Promise<Expected> {
  const days: Expected = new Map();
  for (const doc of await store.collection<DayDoc>(ANALYTICS_COLLECTIONS.days).find({})) {
    const values = new Map<string, number>();
    for (const series of TOTAL_SERIES) if (doc.totals[series] !== 0) values.set(series, doc.totals[series]);
    for (const series of SPLIT_SERIES)
      for (const [key, value] of doc.split[series]) values.set(`${series} ${key}`, value);
    if (values.size) days.set(doc._id, values);
  }
  return days;
}

const withoutZeros = (expected: Expected): Expected =>
  new Map(
    [...expected]
      .map(([day, values]) => [day, new Map([...values].filter(([, v]) => v !== 0))] as const)
      .filter(([, values]) => values.size > 0),
  );

async function logOf(written: readonly Written[]): Promise<SqliteEventStore> {
  const events = new SqliteEventStore(':memory:');
  await publishYaml(events, CATALOG, WEEK_START - 24 * HOUR, metadata);
  for (const w of written)
    await events.appendToStreams([
      {
        stream: w.stream,
        events: [{ id: crypto.randomUUID(), type: w.type, data: w.data, metadata }],
        expectedRevision: 'any',
      },
    ]);
  return events;
}

describe('daily buckets', () => {
  it('equal a count from the final state of any history, reversals included, days of the catalog zone across a DST change', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 80 }), async (steps) => {
        const { log, expected } = history(steps);
        const events = await logOf(log);
        try {
          const store = new MemoryReadStore();
          await replay(events, store, [analyticsProjector], { to: await events.headPosition() });
          expect(await projectedDays(store)).toEqual(withoutZeros(expected));
        } finally {
          await events.close();
        }
      }),
      { numRuns: 150, seed: 20261125 },
    );
  }, 120_000);

  it('count the 23-hour day of the spring DST change from its own midnight to the next', async () => {
    const playerId = PLAYERS[0];
    const act = (ref: string, timestamp: number): Written => ({
      stream: playerStream(playerId),
      type: 'ActionProcessed',
      data: {
        playerId,
        referenceId: ref,
        actionName: 'earn',
        timestamp,
        actionPoints: 1,
        actionGrants: [],
        cost: null,
        awards: [],
        levels: [],
        result: { earnedPoints: 1 },
        effects: { points: 1, balances: [], powerupsGranted: [], powerupsRemoved: [], powerupUses: [] },
      },
    });
    // 2026-03-29 in Berlin runs from 23:00 UTC the day before to 22:00 UTC: 23 hours.
    const events = await logOf([
      act('a', Date.UTC(2026, 2, 28, 22, 59, 59, 999)),
      act('b', Date.UTC(2026, 2, 28, 23)),
      act('c', Date.UTC(2026, 2, 29, 21, 59, 59, 999)),
      act('d', Date.UTC(2026, 2, 29, 22)),
    ]);
    try {
      const store = new MemoryReadStore();
      await replay(events, store, [analyticsProjector], { to: await events.headPosition() });
      const days = await store.collection<DayDoc>(ANALYTICS_COLLECTIONS.days).find({}, { sort: { _id: 1 } });
      expect(days.map((d) => [d._id, d.totals.actions, d.totals['active-players'], d.totals.points])).toEqual([
        ['2026-03-28', 1, 1, 1],
        ['2026-03-29', 2, 1, 2],
        ['2026-03-30', 1, 1, 1],
      ]);
    } finally {
      await events.close();
    }
  });

  it("count an expired lot of a currency on the day it expired, in the catalog's zone, however late its job recorded it", async () => {
    const playerId = PLAYERS[0];
    const midnight = Date.UTC(2026, 2, 28, 23); // 2026-03-29T00:00 in Berlin
    const lot = { deliverableUid: 'stars', expiresAt: midnight, amount: 4 };
    const events = await logOf([
      {
        stream: playerStream(playerId),
        type: 'CurrencyExpired',
        data: {
          playerId,
          lots: [lot],
          expiredAt: midnight + 30 * HOUR,
          effects: {
            points: 0,
            balances: [{ deliverableUid: 'stars', amount: -4 }],
            powerupsGranted: [],
            powerupsRemoved: [],
            powerupUses: [],
            lots: [{ ...lot, amount: -4 }],
          },
        },
      },
    ]);
    try {
      const store = new MemoryReadStore();
      await replay(events, store, [analyticsProjector], { to: await events.headPosition() });
      expect(await projectedDays(store)).toEqual(
        new Map([['2026-03-29', new Map([['deliverables stars:expired', 4]])]]),
      );
    } finally {
      await events.close();
    }
  });

  it('add up the same totals wherever batches end, large fractional amounts included', async () => {
    // Amounts are rounded at each addition; past about 9e9 the order of additions shows in the last
    // digit: (a + b) + (c + d) is 7,718,281,828.693612 where ((a + b) + c) + d is ...693611.
    const points = [4_999_999_999.123457, 0.333333, 2_718_281_828.459045, 0.777777];
    const { log } = history(
      points.map((p, i) => ({
        kind: 'act' as const,
        player: 0,
        name: 'earn' as const,
        at: WEEK_START + HOUR + i,
        points: p,
        badge: 0,
        grant: 0,
        level: false,
        cost: 0,
      })),
    );
    const events = await logOf(log);
    try {
      const all: RecordedEvent[] = await events.readAll();
      /** The days' documents with a batch ending after the actions `flushAfter` names (1 = the first). */
      const projected = async (flushAfter: (action: number) => boolean) => {
        const store = new MemoryReadStore();
        let actions = 0;
        for (const e of all) {
          const typed = domainEventOf(e)!;
          if (!analyticsProjector.handles.has(typed.type)) continue;
          await analyticsProjector.apply(typed, store, events);
          if (typed.type === 'ActionProcessed' && flushAfter(++actions)) await analyticsProjector.flush!(store);
        }
        await analyticsProjector.flush!(store);
        return store.collection<DayDoc>(ANALYTICS_COLLECTIONS.days).find({});
      };
      const eachAction = await projected(() => true);
      expect(eachAction.map((day) => day.totals.points)).toEqual([7_718_281_828.693611]);
      expect(await projected((action) => action === 2)).toEqual(eachAction);
      expect(await projected(() => false)).toEqual(eachAction);
    } finally {
      await events.close();
    }
  });

  it('take each event once, however often it is delivered', async () => {
    const { log } = history([
      {
        kind: 'act',
        player: 0,
        name: 'earn',
        at: WEEK_START + HOUR,
        points: 10,
        badge: 1,
        grant: 3,
        level: true,
        cost: 2,
      },
      {
        kind: 'act',
        player: 0,
        name: 'play',
        at: WEEK_START + 30 * HOUR,
        points: 5,
        badge: 2,
        grant: 0,
        level: false,
        cost: 0,
      },
      { kind: 'reverse', back: 1, revoke: 0, at: WEEK_START + 50 * HOUR },
      { kind: 'chest', player: 1, at: WEEK_START + 2 * HOUR, points: 7, gems: 1 },
    ]);
    const events = await logOf(log);
    try {
      const once = new MemoryReadStore();
      await replay(events, once, [analyticsProjector], { to: await events.headPosition() });
      const twice = new MemoryReadStore();
      const all: RecordedEvent[] = await events.readAll();
      for (const [i, e] of all.entries()) {
        const typed = domainEventOf(e)!;
        if (!analyticsProjector.handles.has(typed.type)) continue;
        // Delivered again after its changes were written, or while they are still gathered.
        await analyticsProjector.apply(typed, twice, events);
        if (i % 2 === 0) await analyticsProjector.flush!(twice);
        await analyticsProjector.apply(typed, twice, events);
        await analyticsProjector.flush!(twice);
      }
      for (const name of Object.values(ANALYTICS_COLLECTIONS))
        expect(await twice.collection(name).find({})).toEqual(await once.collection(name).find({}));
      expect((await projectedDays(once)).size).toBe(3);
    } finally {
      await events.close();
    }
  });
});

describe("an event's effects", () => {
  it('count whatever its kind: one no rule names counts on the day it was recorded, its balances as granted or taken back', () => {
    const counted: [string, string, number][] = [];
    const adjustment = {
      type: 'SupportAdjusted',
      createdAt: Date.UTC(2026, 2, 30, 12),
      data: {
        effects: {
          points: -5,
          balances: [
            { deliverableUid: 'gems', amount: 3 },
            { deliverableUid: 'coins', amount: -2 },
          ],
          powerupsGranted: [],
          powerupsRemoved: [],
          powerupUses: [],
        },
      },
    } as unknown as Recorded<PlayerEvent>;
    effectAmounts(adjustment, new Set(), {
      points: (at, delta) => counted.push([dayOf(at), 'points', delta]),
      move: (at, uid, move, delta) => counted.push([dayOf(at), `${uid}:${move}`, delta]),
    });
    expect(counted).toEqual([
      ['2026-03-30', 'points', -5],
      ['2026-03-30', 'gems:granted', 3],
      ['2026-03-30', 'coins:granted', -2],
    ]);
  });
});
