import { randomUUID } from 'node:crypto';
import type { Catalog } from '../../domain/catalog/schema';
import type { ActionProcessed } from '../../domain/events/player-events';
import { SqliteEventStore } from '../../shared/adapters/event-store/sqlite';
import { catalogOfYaml, commandDepsFor, publishYaml } from '../../test/support/command-deps';
import { buyBundle } from '../buy-bundle/handler';

import type { CommandDeps, CommandOrigin } from '../deps';
import { activatePowerup } from '../powerup-activation/handler';
import { processAction } from '../process-action/handler';
import { reverseAction } from '../reverse-action/handler';
import { sameJson } from './replay';
import { replayLog, simulate } from './replay-log';

const CATALOG = `
version: 1
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
  - { uid: sword, label: Sword, type: Prize, kind: Item }
  - { uid: boost, label: Double gold, type: Prize, kind: Powerup, powerup: { multiplier: 2, maxUseCount: 5, timeoutSeconds: 3600, neverExpires: false, targetPrizes: [gold] } }
actions:
  - { uid: act-charge, identifier: charge, points: 0, deliverables: [{ deliverable: boost, amount: 1 }] }
  - { uid: act-earn, identifier: earn, points: 10, deliverables: [{ deliverable: gold, amount: 100 }] }
  - { uid: act-train, identifier: train, points: 3 }
badges:
  - { uid: b-veteran, label: Veteran, type: OneTimeOnly, points: 0, conditions: [{ action: train, challenge: { times: 3 } }] }
triggers:
  - { uid: t-first-training, label: First training, type: OneTimeOnly, limited: true, limit: 10, points: 0, conditions: [{ action: train }] }
  - { uid: t-lucky, label: Lucky, type: Repeatable, randomizedPrize: true, points: 0, conditions: [{ action: earn }], deliverables: [{ deliverable: gold, amount: 1, weight: 1 }, { deliverable: sword, amount: 1, weight: 1 }] }
levels:
  - { uid: lvl-1, label: Rookie, level: 1, target: 0 }
  - { uid: lvl-2, label: Regular, level: 2, target: 20 }
stores:
  - uid: main
    label: Main
    bundles:
      - { uid: rare, label: Rare sword, cost: 150, costDeliverable: gold, contents: [{ deliverable: sword, amount: 1 }] }
leaderboards:
  - { uid: lb-all, label: All-time, type: 0 }
`;

const parse = catalogOfYaml;
const catalog = parse(CATALOG);
const origin: CommandOrigin = {
  metadata: { correlationId: 'test', causationId: 'test', keyName: 'test', catalogVersion: 1 },
  idempotency: null,
};

/** The published catalog with one edit of its text. */
const draft = (from: string, to: string): Catalog => {
  expect(CATALOG).toContain(from);
  return parse(CATALOG.replace(from, to));
};

describe('simulate: the log replayed under a draft catalog', () => {
  let events: SqliteEventStore;
  let deps: CommandDeps;
  const earner = randomUUID();
  const trainer = randomUUID();
  const both = randomUUID();
  const booster = randomUUID();
  const act = async (playerId: string, name: string, referenceId = randomUUID()) => {
    const done = await processAction(
      { playerId, referenceId, name, timestamp: Date.UTC(2026, 5, 1), multiplier: 1, details: [] },
      origin,
      deps,
    );
    expect(done.ok).toBe(true);
    return referenceId;
  };

  beforeAll(async () => {
    events = new SqliteEventStore(':memory:');
    // Published, as the service does at start: the boards in force come from it.
    await publishYaml(events, CATALOG, Date.UTC(2026, 5, 1), {
      correlationId: 'start',
      causationId: 'start',
      keyName: 'operator',
    });
    deps = commandDepsFor(events, catalog);
    await act(earner, 'earn');
    await act(earner, 'earn');
    for (let i = 0; i < 3; i++) await act(trainer, 'train');
    await act(both, 'earn');
    await act(both, 'train');
    await act(both, 'train');
    const reversed = await act(both, 'earn');
    expect((await reverseAction({ playerId: both, referenceId: reversed, name: 'earn' }, origin, deps)).ok).toBe(true);
    expect((await buyBundle({ playerId: earner, bundleUid: 'rare' }, origin, deps)).ok).toBe(true);
    const charged = await processAction(
      {
        playerId: booster,
        referenceId: randomUUID(),
        name: 'charge',
        timestamp: Date.UTC(2026, 5, 1),
        multiplier: 1,
        details: [],
      },
      origin,
      deps,
    );
    if (!charged.ok) throw new Error(charged.failure.message);
    const powerupUid = (await deps.players.load(booster)).state.powerups.keys().next().value!;
    expect((await activatePowerup({ playerId: booster, powerupUid }, origin, deps)).ok).toBe(true);
  });
  afterAll(async () => {
    await deps.jobs.close();
    await events.close();
  });

  it('changes nothing under the catalog in force, randomized prizes included', async () => {
    // Both prizes were drawn: a replay that rolled again would differ somewhere.
    const picks = (await events.readAll()).flatMap((e) =>
      e.type === 'ActionProcessed'
        ? (e.data as ActionProcessed).awards.filter((a) => a.uid === 't-lucky').map((a) => a.grants[0].uid)
        : [],
    );
    expect(new Set(picks)).toEqual(new Set(['gold', 'sword']));
    const report = await simulate(events, catalog, { top: 100 });
    expect(report).toMatchObject({ actionsRedecided: 10, playersAffected: 0, players: [], problems: [] });
    expect(report.totals.pointsAfter).toBe(report.totals.pointsBefore);
    expect(report.boards).toEqual([
      { leaderboardUid: 'lb-all', before: report.boards[0].before, after: report.boards[0].before },
    ]);
  });

  it("doubling an action's points doubles exactly the points of the players who did it, a reversed one staying out", async () => {
    const report = await simulate(events, draft('identifier: earn, points: 10', 'identifier: earn, points: 20'), {
      top: 100,
    });
    const byPlayer = new Map(report.players.map((p) => [p.playerId, p]));
    expect([...byPlayer.keys()].sort()).toEqual([earner, both].sort());
    expect(byPlayer.get(earner)).toMatchObject({
      pointsBefore: 20,
      pointsAfter: 40,
      levelBefore: 2,
      levelAfter: 2,
      badgesGained: [],
      badgesLost: [],
    });
    // One earn (the other was reversed) and two trains.
    expect(byPlayer.get(both)).toMatchObject({ pointsBefore: 16, pointsAfter: 26, levelBefore: 1, levelAfter: 2 });
    expect(report.players[0].playerId).toBe(earner);
    expect(report.totals).toMatchObject({ pointsBefore: 45, pointsAfter: 75, levelsChanged: 1 });
    expect(report.boards[0].after.slice(0, 2)).toEqual([
      { rank: 1, userId: earner, points: 40 },
      { rank: 2, userId: both, points: 26 },
    ]);
  });

  it("shows each board's standings now, under the published catalog, and under the draft's definition", async () => {
    const report = await simulate(
      events,
      draft(
        '{ uid: lb-all, label: All-time, type: 0 }',
        '{ uid: lb-all, label: All-time, type: 0, metric: { action: train } }',
      ),
      { top: 100 },
    );
    expect(report.boards).toEqual([
      {
        leaderboardUid: 'lb-all',
        before: [
          { rank: 1, userId: earner, points: 20 },
          { rank: 2, userId: both, points: 16 },
          { rank: 3, userId: trainer, points: 9 },
        ],
        after: [
          { rank: 1, userId: trainer, points: 3 },
          { rank: 2, userId: both, points: 2 },
        ],
      },
    ]);
  });

  it('a new badge goes to exactly the players whose history meets it', async () => {
    const added = draft(
      'triggers:',
      '  - { uid: b-twice, label: Twice, type: OneTimeOnly, points: 0, conditions: [{ action: train, challenge: { times: 2 } }] }\ntriggers:',
    );
    const report = await simulate(events, added, { top: 100 });
    expect(report.players.map((p) => [p.playerId, p.badgesGained]).sort()).toEqual(
      [
        [trainer, ['b-twice']],
        [both, ['b-twice']],
      ].sort(),
    );
    expect(report.totals).toMatchObject({ badgesGained: 2, badgesLost: 0 });
  });

  it("raising a level's target takes the level back", async () => {
    const report = await simulate(events, draft('level: 2, target: 20', 'level: 2, target: 30'), { top: 100 });
    expect(report.players).toEqual([
      expect.objectContaining({ playerId: earner, pointsBefore: 20, pointsAfter: 20, levelBefore: 2, levelAfter: 1 }),
    ]);
    expect(report.totals.levelsChanged).toBe(1);
  });

  it('keeps a purchase the draft makes unaffordable, and lists it', async () => {
    const report = await simulate(
      events,
      draft('deliverables: [{ deliverable: gold, amount: 100 }]', 'deliverables: [{ deliverable: gold, amount: 50 }]'),
      { top: 100 },
    );
    const earnerAfter = report.players.find((p) => p.playerId === earner)!;
    // 2 x 50 gold (plus what the randomized prize gave) less the 150 the purchase took: it stands.
    expect(earnerAfter.balances.find((b) => b.deliverableUid === 'gold')!.after).toBeLessThan(0);
    expect(report.problems).toEqual([
      expect.objectContaining({
        playerId: earner,
        type: 'BundlePurchased',
        message: expect.stringContaining('could no longer afford it'),
      }),
    ]);
  });

  it("lists a limited trigger's recorded activation beyond the draft's limit, and does not award it", async () => {
    const report = await simulate(events, draft('limited: true, limit: 10', 'limited: true, limit: 1'), { top: 100 });
    // The trainer trained first and keeps the one activation; the other player's is beyond it.
    expect(report.problems).toEqual([
      expect.objectContaining({
        playerId: both,
        type: 'ActionProcessed',
        message: expect.stringContaining('limited trigger t-first-training is beyond its limit of 1'),
      }),
    ]);
    // A trigger is not a badge and this one gives nothing: no player's state differs.
    expect(report.playersAffected).toBe(0);
  });

  it('keeps the activation of a powerup the draft would not have granted, and lists it', async () => {
    const report = await simulate(
      events,
      draft('deliverables: [{ deliverable: boost, amount: 1 }]', 'deliverables: []'),
      { top: 100 },
    );
    expect(report.problems).toEqual([
      expect.objectContaining({
        playerId: booster,
        type: 'PowerupActivated',
        message: expect.stringContaining('which the player would not own under the draft'),
      }),
    ]);
  });

  it('lists an action the draft refuses, and counts it for nothing', async () => {
    const report = await simulate(
      events,
      draft('identifier: train, points: 3', 'identifier: train, points: 3, isActive: false'),
      { top: 100 },
    );
    expect(report.problems.filter((p) => p.playerId === trainer)).toHaveLength(3);
    expect(report.players.find((p) => p.playerId === trainer)).toMatchObject({
      pointsBefore: 9,
      pointsAfter: 0,
      badgesLost: ['b-veteran'],
    });
  });

  it('replays only the players asked for, and bounds the list by top', async () => {
    const doubled = draft('identifier: earn, points: 10', 'identifier: earn, points: 20');
    const only = await simulate(events, doubled, { top: 100, players: new Set([both]) });
    expect(only.players.map((p) => p.playerId)).toEqual([both]);
    // The others stand as recorded on the board.
    expect(only.boards[0].after.find((s) => s.userId === earner)!.points).toBe(20);
    const one = await simulate(events, doubled, { top: 1 });
    expect(one.players.map((p) => p.playerId)).toEqual([earner]);
    expect(one.playersAffected).toBe(2);
  });

  it("without the boards ranked (a recompute's later pass), replays the same and makes no report", async () => {
    const doubled = draft('identifier: earn, points: 10', 'identifier: earn, points: 20');
    const ranked = await replayLog(events, doubled, { players: new Set([both]) });
    const unranked = await replayLog(events, doubled, { players: new Set([both]), ranked: false });
    const { boardsBefore, boardsAfter, ...replayed } = ranked.replayed().get(both)!;
    // The player's contributions to the boards are kept with them when ranked, and only then.
    expect(boardsBefore.size).toBeGreaterThan(0);
    expect(boardsAfter.size).toBeGreaterThan(0);
    expect(unranked.replayed().get(both)).toEqual({ ...replayed, boardsBefore: new Map(), boardsAfter: new Map() });
    expect(() => unranked.report(100)).toThrow('a replay that ranks no boards makes no report');
  });

  it('answers as the replay a recompute runs, which also follows what only a recompute writes', async () => {
    const drafts = [
      catalog,
      draft('identifier: earn, points: 10', 'identifier: earn, points: 20'),
      draft('level: 2, target: 20', 'level: 2, target: 30'),
      draft('limited: true, limit: 10', 'limited: true, limit: 1'),
      draft('identifier: train, points: 3', 'identifier: train, points: 3, isActive: false'),
    ];
    for (const d of drafts) {
      const full = await replayLog(events, d, {});
      // The full replay did follow the changed actions (the earner's earns, under the doubled draft).
      if (d === drafts[1]) expect(full.replayed().get(earner)!.changedActions.size).toBe(2);
      expect(await simulate(events, d, { top: 100 })).toEqual(full.report(100));
    }
  });

  it('writes nothing: the head of the log stays where it was', async () => {
    const head = await events.headPosition();
    await simulate(events, draft('identifier: earn, points: 10', 'identifier: earn, points: 20'), { top: 100 });
    expect(await events.headPosition()).toBe(head);
  });
});

describe('sameJson: whether a re-decided action reads as the recorded one', () => {
  it('compares as JSON would: an undefined property is no property, key order does not count', () => {
    expect(sameJson({ a: 1, b: [1, { c: 'x' }], d: undefined }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(sameJson({ a: null }, { a: null })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: 0 })).toBe(false);
    expect(sameJson({ a: 1, b: undefined }, { a: 1, c: 2 })).toBe(false);
    expect(sameJson({ a: [1, 2] }, { a: [1, 2, 3] })).toBe(false);
    expect(sameJson({ a: [] }, { a: {} })).toBe(false);
    expect(sameJson({ a: null }, { a: {} })).toBe(false);
    expect(sameJson({ a: '1' }, { a: 1 })).toBe(false);
  });
});
