/**
 * The runner writes checkpoints in batches, so after a crash it redelivers every event after the
 * last checkpoint written, which may be many events behind what the read models (MongoDB) hold.
 * Every projector must end up exactly where a clean replay does, whatever the crash point and
 * whatever checkpoint the runner had written by then.
 */
import pino from 'pino';
import type { EventStore, RecordedEvent } from '../shared/adapters/event-store/port';
import { domainEventOf, type EventType } from '../domain/events';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import type { Document, ReadStore } from '../shared/adapters/read-store/port';
import { LEADERBOARD_COLLECTIONS, type ScoreDoc } from '../shared/read-models/leaderboards';
import { BUNDLE_STOCK, playerStream, stockStream } from '../domain/streams';
import { publishYaml } from '../test/support/command-deps';
import { leaderboardsProjector } from './leaderboards';
import { PROJECTORS } from './projectors';
import { ProjectionRunner } from './runner';
import { CHECKPOINTS, ORIGIN } from './projector';
import { PROJECTIONS_VERSION } from './version';
import { collectionDifferences, replay } from './verify';

const metadata = { correlationId: 'c', causationId: 'c', keyName: 'test', catalogVersion: 1 };
const log = pino({ level: 'silent' });
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const catalogText = (boards: string) => `
version: 1
settings: { timezone: Australia/Lord_Howe }
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
actions:
  - { uid: a-earn, identifier: earn, points: 10, deliverables: [{ deliverable: gold, amount: 1 }] }
  - { uid: a-play, identifier: play, points: 3 }
leaderboards:
${boards}
stores:
  - uid: shop
    label: Shop
    startDate: 2020-01-01T00:00:00
    endDate: 2100-01-01T00:00:00
    bundles:
      - { uid: b-gold, label: Gold, cost: 1, costDeliverable: gold, initialStock: 10, contents: [{ deliverable: gold, amount: 1 }] }
`;
const BOARDS_V1 = `
  - { uid: lb-points, label: Points, type: 0, startDate: 2020-01-01T00:00:00, endDate: 2100-01-01T00:00:00 }
  - { uid: lb-daily, label: Daily, type: 1, season: daily, startDate: 2020-01-01T00:00:00, endDate: 2100-01-01T00:00:00 }
  - { uid: lb-earners, label: Earners, type: 0, metric: { action: earn } }`;
// v2 drops lb-earners and adds a board that earlier events must never reach.
const BOARDS_V2 = `
  - { uid: lb-points, label: Points, type: 0, startDate: 2020-01-01T00:00:00, endDate: 2100-01-01T00:00:00 }
  - { uid: lb-daily, label: Daily, type: 1, season: daily, startDate: 2020-01-01T00:00:00, endDate: 2100-01-01T00:00:00 }
  - { uid: lb-weekly, label: Weekly, type: 1, season: weekly }
  - { uid: lb-players, label: Players, type: 0, metric: { action: play } }`;

const publish = (events: EventStore, boards: string, now: number) =>
  publishYaml(events, catalogText(boards), now, metadata);

/** A log with every kind of event the projectors handle: actions, reversals (with awards of earlier periods), chests, stock, two catalogs. */
async function writeLog(events: EventStore): Promise<void> {
  // Around Lord Howe's 30-minute change of 2026-04-05 (02:00 +11 -> 01:30 +10:30, at 15:00 UTC).
  const t0 = Date.UTC(2026, 3, 4, 12);
  const revisions = new Map<string, number>();
  // Events written as the projectors read them: only the fields they use.
  const append = async (stream: string, type: EventType, data: object) => {
    const expected = revisions.get(stream) ?? 'no_stream';
    const r = await events.appendToStreams([
      { stream, events: [{ id: crypto.randomUUID(), type, data, metadata }], expectedRevision: expected },
    ]);
    revisions.set(stream, r.revisions[stream]);
  };
  const players = ['p-1', 'p-2', 'p-3'];
  const gold = { uid: 'gold', amount: 1 };
  const effects = (points: number, balances: { deliverableUid: string; amount: number }[] = []) => ({
    points,
    balances,
    powerupsGranted: [],
    powerupsRemoved: [],
    powerupUses: [],
  });
  const golds = (name: string, amount: number) => (name === 'earn' ? [{ deliverableUid: 'gold', amount }] : []);
  const action = (p: string, name: string, ref: string, timestamp: number, earnedPoints: number) =>
    append(playerStream(p), 'ActionProcessed', {
      playerId: p,
      referenceId: ref,
      actionName: name,
      timestamp,
      actionPoints: earnedPoints,
      result: { earnedPoints },
      actionGrants: name === 'earn' ? [gold] : [],
      cost: null,
      awards: [],
      levels: [],
      effects: effects(earnedPoints, golds(name, 1)),
    });
  const reversal = (
    p: string,
    name: string,
    ref: string,
    timestamp: number,
    actionPoints: number,
    revokedAwards: { awardedBy: string; awardedAt: number; points: number }[],
  ) =>
    append(playerStream(p), 'ActionReversed', {
      playerId: p,
      referenceId: ref,
      actionName: name,
      timestamp,
      reversedAt: timestamp + HOUR,
      actionPoints,
      actionGrants: name === 'earn' ? [gold] : [],
      revokedAwards: revokedAwards.map((a) => ({ ...a, kind: 'badge', uid: 'b-x', grants: [] })),
      revokedLevels: [],
      refund: null,
      effects: effects(-revokedAwards.reduce((sum, a) => sum + a.points, actionPoints), golds(name, -1)),
    });
  const stock = (type: EventType, holder: string, units: number) =>
    append(stockStream(BUNDLE_STOCK, 'b-gold'), type, { resourceUid: 'b-gold', holder, playerId: 'p-1', units });

  // Before any catalog: no board to reach (a runner that kept the boards of a dropped store would find some).
  await action('p-0', 'earn', 'r0', t0 - HOUR, 10);
  await publish(events, BOARDS_V1, t0);
  for (const p of players)
    await append(playerStream(p), 'PlayerRegistered', {
      playerId: p,
      username: `user ${p}`,
      imageName: null,
      registeredAt: t0,
      levels: [],
      effects: effects(0),
    });
  await action('p-1', 'earn', 'r1', t0, 10);
  await action('p-2', 'earn', 'r2', t0 + 2 * HOUR, 10);
  await action('p-1', 'play', 'r3', t0 + 3 * HOUR + 20 * 60_000, 3);
  await stock(BUNDLE_STOCK.taken, 'buy-1', 1);
  await action('p-1', 'earn', 'r4', t0 + 4 * HOUR, 25); // 10 + a badge of 15
  await append(playerStream('p-3'), 'ChestOpened', {
    playerId: 'p-3',
    openingUid: 'o-1',
    chestDeliverableUid: 'chest',
    openedAt: t0 + 5 * HOUR,
    prizes: [],
    levels: [],
    effects: effects(7, [{ deliverableUid: 'chest', amount: -1 }]),
  });
  await stock(BUNDLE_STOCK.taken, 'buy-2', 2);
  await action('p-3', 'earn', 'r5', t0 + DAY, 10);
  // Reversing r4 takes back its own badge and one r1 brought (awarded in r1's period).
  await reversal('p-1', 'earn', 'r4', t0 + 4 * HOUR, 10, [
    { awardedBy: 'r4', awardedAt: t0 + 4 * HOUR, points: 15 },
    { awardedBy: 'r1', awardedAt: t0, points: 5 },
  ]);
  await stock(BUNDLE_STOCK.returned, 'buy-1', 1);
  await publish(events, BOARDS_V2, t0 + DAY);
  await action('p-2', 'play', 'r6', t0 + DAY + HOUR, 3);
  await action('p-1', 'play', 'r7', t0 + 8 * DAY, 3);
  // Down to a count of 0 (the document leaves), then back.
  await reversal('p-2', 'play', 'r6', t0 + DAY + HOUR, 3, []);
  await action('p-2', 'earn', 'r8', t0 + 2 * DAY, 10);
  await reversal('p-2', 'earn', 'r2', t0 + 2 * HOUR, 10, []);
  await append(playerStream('p-3'), 'ChestOpened', {
    playerId: 'p-3',
    openingUid: 'o-2',
    chestDeliverableUid: 'chest',
    openedAt: t0 + 9 * DAY,
    prizes: [],
    levels: [],
    effects: effects(4, [{ deliverableUid: 'chest', amount: -1 }]),
  });
  await reversal('p-2', 'earn', 'r8', t0 + 2 * DAY, 10, []);
  await action('p-2', 'play', 'r9', t0 + 2 * DAY, 3);
  await stock(BUNDLE_STOCK.taken, 'buy-3', 1);
}

const collections = [...new Set(PROJECTORS.flatMap((p) => p.collections))].sort();

class SimulatedCrash extends Error {}

/** `store` whose collections take `writes` more writes, then fail every one as a crash would stop them. */
function failingAfter(store: ReadStore, writes: number): ReadStore {
  let left = writes;
  const write =
    <A extends unknown[], R>(operation: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (left-- <= 0) throw new SimulatedCrash('crashed');
      return operation(...args);
    };
  return Object.assign(Object.create(store) as ReadStore, {
    collection: <T extends Document>(name: string) => {
      const c = store.collection<T>(name);
      return {
        findOne: c.findOne.bind(c),
        find: c.find.bind(c),
        countDocuments: c.countDocuments.bind(c),
        insertOne: write(c.insertOne.bind(c)),
        updateOne: write(c.updateOne.bind(c)),
        replaceOne: write(c.replaceOne.bind(c)),
        deleteMany: write(c.deleteMany.bind(c)),
        bulkWrite: write(c.bulkWrite.bind(c)),
      };
    },
  });
}

/** A new store holding the same documents: the read models a crashed process left in MongoDB. */
async function copyOf(store: ReadStore): Promise<MemoryReadStore> {
  const copy = new MemoryReadStore();
  for (const name of await store.listCollections())
    for (const doc of await store.collection(name).find({})) await copy.collection(name).insertOne(doc);
  return copy;
}

async function differences(live: ReadStore, reference: ReadStore) {
  const out = [];
  for (const name of collections) out.push(...(await collectionDifferences(name, live, reference)));
  return out;
}

describe('redelivery after a crash', () => {
  let events: SqliteEventStore;
  let all: RecordedEvent[];
  let reference: MemoryReadStore;
  /**
   * The checkpoints a runner would have written at `c`, with the origin of the read models (this
   * log, this version): without it the runner takes them for another log's and rebuilds them.
   */
  const checkpointAt = async (store: ReadStore, c: number) => {
    const checkpoints = store.collection(CHECKPOINTS);
    await checkpoints.replaceOne(
      { _id: ORIGIN },
      { _id: ORIGIN, logStart: all[0].id, version: PROJECTIONS_VERSION },
      { upsert: true },
    );
    for (const p of PROJECTORS)
      await checkpoints.updateOne({ _id: p.name }, { $set: { position: c } }, { upsert: true });
  };

  beforeAll(async () => {
    events = new SqliteEventStore(':memory:');
    await writeLog(events);
    all = await events.readAll({ fromPosition: 0, maxCount: 1000 });
    reference = new MemoryReadStore();
    await replay(events, reference, PROJECTORS, { to: all[all.length - 1].position });
  });
  afterAll(async () => {
    await events.close();
  });

  it('the log reaches every board, a score that left the standings and the stock', async () => {
    const scores = await reference.collection<ScoreDoc>(LEADERBOARD_COLLECTIONS.scores).find({});
    expect(new Set(scores.map((s) => s.board))).toEqual(
      new Set(['lb-points', 'lb-daily', 'lb-earners', 'lb-weekly', 'lb-players']),
    );
    // Reached by r2 and r6, out of the standings when both were reversed.
    expect(scores.find((s) => s._id === 'lb-daily|2026-04-05|p-2')).toMatchObject({ inStandings: false });
    expect(await reference.collection('bundle_stock').findOne({ _id: 'b-gold' })).toMatchObject({ taken: 3 });
  });

  /**
   * A crash between two writes of one event (event k's j-th write never happens, nor anything
   * after it), then a restart from any checkpoint the runner may have written: the read models of
   * a clean replay.
   */
  it('a crash between two writes of one event, then a restart, gives the read models of a clean replay', async () => {
    const head = all[all.length - 1].position;
    expect(all.map((e) => e.position)).toEqual(all.map((_, i) => all[0].position + i));
    let cases = 0;
    for (const crashed of all) {
      const k = crashed.position;
      const typed = domainEventOf(crashed)!;
      // The read models before event k, replayed once and copied for each crash point.
      const before = new MemoryReadStore();
      if (k > all[0].position) await replay(events, before, PROJECTORS, { to: k - 1 });
      // A crash before the first write (j = 1) leaves the read models of the events before k (the
      // positions are consecutive): the next test restarts from those, at every checkpoint this one would.
      for (let j = 2; ; j++) {
        const store = await copyOf(before);
        const failing = failingAfter(store, j - 1);
        let crashedInside = false;
        try {
          for (const p of PROJECTORS) if (p.handles.has(typed.type)) await p.apply(typed, failing, events);
          for (const p of PROJECTORS) await p.flush?.(failing);
        } catch (error) {
          if (!(error instanceof SimulatedCrash)) throw error;
          crashedInside = true;
        }
        // Every write of event k came through: the crash points of this event are done.
        if (!crashedInside) break;
        // The runner writes the checkpoints just before applying a catalog: a crash inside one restarts right before it.
        const lastCatalog = all.filter((e) => e.type === 'CatalogPublished' && e.position <= k).pop();
        for (let c = lastCatalog ? lastCatalog.position - 1 : 0; c < k; c++) {
          const restarted = await copyOf(store);
          await checkpointAt(restarted, c);
          leaderboardsProjector.reset!(restarted);
          const runner = new ProjectionRunner(events, restarted, PROJECTORS, log, undefined, { frozenDocuments: true });
          await runner.start();
          expect(await runner.waitFor(head, 5000)).toBe(true);
          await runner.stop();
          const found = await differences(restarted, reference);
          if (found.length)
            throw new Error(`crash at write ${j} of ${k}, checkpoint ${c}: ${JSON.stringify(found, null, 1)}`);
          cases++;
        }
      }
    }
    expect(cases).toBeGreaterThan(100);
    // Hundreds of restarts, each catching up to the head and compared in full: CPU alone (no wait
    // on a timer), most of it the runner's catch-up and the comparison.
  }, 180_000);

  /**
   * Every crash point k (the read models hold events 1..k) and every checkpoint c the runner can
   * have written by then: anything from k back to the event before the last catalog published
   * (the runner writes the checkpoints just before applying one).
   */
  it('a restart from any checkpoint the runner may have written gives the read models of a clean replay', async () => {
    const head = all[all.length - 1].position;
    let cases = 0;
    for (const crashed of all) {
      const k = crashed.position;
      const lastCatalog = all.filter((e) => e.type === 'CatalogPublished' && e.position <= k).pop();
      for (let c = lastCatalog ? lastCatalog.position - 1 : 0; c <= k; c++) {
        const store = new MemoryReadStore();
        await replay(events, store, PROJECTORS, { to: k });
        await checkpointAt(store, c);
        // A new process: nothing remembered about the store.
        leaderboardsProjector.reset!(store);
        const runner = new ProjectionRunner(events, store, PROJECTORS, log, undefined, { frozenDocuments: true });
        await runner.start();
        expect(await runner.waitFor(head, 5000)).toBe(true);
        await runner.stop();
        const found = await differences(store, reference);
        if (found.length) throw new Error(`crash after ${k}, checkpoint ${c}: ${JSON.stringify(found, null, 1)}`);
        cases++;
      }
    }
    expect(cases).toBeGreaterThan(100);
  }, 180_000);

  it('an event delivered twice in a row is applied once, also where it reaches a score document twice', async () => {
    // The reversal of r4 takes from lb-points|all|p-1 twice: its own points and r1's badge.
    const r4 = all.find(
      (e) => e.type === 'ActionReversed' && (e.data as { referenceId: string }).referenceId === 'r4',
    )!;
    expect((r4.data as { revokedAwards: unknown[] }).revokedAwards).toHaveLength(2);
    const store = new MemoryReadStore();
    for (const e of all) {
      const typed = domainEventOf(e)!;
      for (const p of PROJECTORS) {
        if (!p.handles.has(typed.type)) continue;
        await p.apply(typed, store, events);
        await p.apply(typed, store, events);
        await p.flush?.(store);
      }
    }
    expect(await differences(store, reference)).toEqual([]);
  });

  it('the runner keeps no board definitions across rebuilds or stores', async () => {
    const store = new MemoryReadStore();
    const runner = new ProjectionRunner(events, store, PROJECTORS, log, undefined, { frozenDocuments: true });
    await runner.start();
    const head = all[all.length - 1].position;
    expect(await runner.waitFor(head, 5000)).toBe(true);
    await runner.rebuild(['leaderboards']);
    expect(await runner.waitFor(head, 5000)).toBe(true);
    await runner.rebuild();
    expect(await runner.waitFor(head, 5000)).toBe(true);
    await runner.stop();
    expect(await differences(store, reference)).toEqual([]);
  });
});
