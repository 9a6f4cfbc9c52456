/**
 * The runner writes checkpoints in batches, so after a crash it redelivers every event after the
 * last checkpoint written, which may be many events behind what the read models (MongoDB) hold.
 * Every projector must end up exactly where a clean replay does, whatever the crash point and
 * whatever checkpoint the runner had written by then.
 */
import pino from 'pino';
import { publishCatalog } from '../command-api/publish-catalog/publish';
import { BUNDLE_STOCK, stockStream } from '../command-api/limited-stock/stock-stream';
import { playerStream } from '../command-api/player/repository';
import { parseCatalog } from '../shared/catalog/load';
import type { EventStore, RecordedEvent } from '../shared/event-store/port';
import { SqliteEventStore } from '../shared/event-store/sqlite';
import { MemoryReadStore } from '../shared/read-store/memory';
import type { ReadStore } from '../shared/read-store/port';
import { LEADERBOARD_COLLECTIONS, leaderboardsProjector } from './leaderboards';
import { PROJECTORS } from './projectors';
import { CHECKPOINTS, ProjectionRunner } from './runner';
import { compareCollection, replay } from './verify';

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

async function publish(events: EventStore, boards: string, now: number): Promise<void> {
  const parsed = parseCatalog(catalogText(boards), 'catalog.yaml');
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  await publishCatalog(events, parsed.catalog, parsed.hash, now, metadata);
}

/** A log with every kind of event the projectors handle: actions, reversals (with awards of earlier periods), chests, stock, two catalogs. */
async function writeLog(events: EventStore): Promise<void> {
  // Around Lord Howe's 30-minute change of 2026-04-05 (02:00 +11 -> 01:30 +10:30, at 15:00 UTC).
  const t0 = Date.UTC(2026, 3, 4, 12);
  const revisions = new Map<string, number>();
  const append = async (stream: string, type: string, data: object) => {
    const expected = revisions.get(stream) ?? 'no_stream';
    const r = await events.appendToStream(stream, [{ id: crypto.randomUUID(), type, data, metadata }], expected);
    revisions.set(stream, r.nextExpectedRevision);
  };
  const players = ['p-1', 'p-2', 'p-3'];
  const action = (p: string, name: string, ref: string, timestamp: number, earnedPoints: number) =>
    append(playerStream(p), 'ActionProcessed', { playerId: p, referenceId: ref, actionName: name, timestamp, actionPoints: earnedPoints, result: { earnedPoints } });
  const reversal = (p: string, name: string, ref: string, timestamp: number, actionPoints: number, revokedAwards: { awardedBy: string; awardedAt: number; points: number }[]) =>
    append(playerStream(p), 'ActionReversed', { playerId: p, referenceId: ref, actionName: name, timestamp, reversedAt: timestamp, actionPoints, revokedAwards });
  const stock = (type: string, holder: string, units: number) => append(stockStream(BUNDLE_STOCK, 'b-gold'), type, { resourceUid: 'b-gold', holder, playerId: 'p-1', units });

  // Before any catalog: no board to reach (a runner that kept the boards of a dropped store would find some).
  await action('p-0', 'earn', 'r0', t0 - HOUR, 10);
  await publish(events, BOARDS_V1, t0);
  for (const p of players) await append(playerStream(p), 'PlayerRegistered', { playerId: p, username: `user ${p}`, imageName: null });
  await action('p-1', 'earn', 'r1', t0, 10);
  await action('p-2', 'earn', 'r2', t0 + 2 * HOUR, 10);
  await action('p-1', 'play', 'r3', t0 + 3 * HOUR + 20 * 60_000, 3);
  await stock(BUNDLE_STOCK.taken, 'buy-1', 1);
  await action('p-1', 'earn', 'r4', t0 + 4 * HOUR, 25); // 10 + a badge of 15
  await append(playerStream('p-3'), 'ChestOpened', { playerId: 'p-3', openedAt: t0 + 5 * HOUR, effects: { points: 7 } });
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
  await append(playerStream('p-3'), 'ChestOpened', { playerId: 'p-3', openedAt: t0 + 9 * DAY, effects: { points: 4 } });
  await reversal('p-2', 'earn', 'r8', t0 + 2 * DAY, 10, []);
  await action('p-2', 'play', 'r9', t0 + 2 * DAY, 3);
  await stock(BUNDLE_STOCK.taken, 'buy-3', 1);
}

const collections = [...new Set(PROJECTORS.flatMap((p) => p.collections))].sort();

async function differences(live: ReadStore, reference: ReadStore) {
  const out = [];
  for (const name of collections) out.push(...compareCollection(name, await live.collection(name).find({}), await reference.collection(name).find({})));
  return out;
}

describe('redelivery after a crash', () => {
  let events: SqliteEventStore;
  let all: RecordedEvent[];
  let reference: MemoryReadStore;

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

  it('the log reaches every board, a deleted score and the stock', async () => {
    const scores = await reference.collection(LEADERBOARD_COLLECTIONS.scores).find({});
    expect(new Set(scores.map((s) => s.board))).toEqual(new Set(['lb-points', 'lb-daily', 'lb-earners', 'lb-weekly', 'lb-players']));
    // Reached by r2 and r6, left when both were reversed.
    expect(scores.map((s) => s._id)).not.toContain('lb-daily|2026-04-05|p-2');
    expect(await reference.collection('bundle_stock').findOne({ _id: 'b-gold' })).toMatchObject({ taken: 3 });
  });

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
        for (const p of PROJECTORS) await store.collection(CHECKPOINTS).updateOne({ _id: p.name }, { $set: { position: c } }, { upsert: true });
        // A new process: nothing remembered about the store.
        leaderboardsProjector.reset!(store);
        const runner = new ProjectionRunner(events, store, PROJECTORS, log);
        await runner.start();
        expect(await runner.waitFor(head, 5000)).toBe(true);
        await runner.stop();
        const found = await differences(store, reference);
        if (found.length) throw new Error(`crash after ${k}, checkpoint ${c}: ${JSON.stringify(found, null, 1)}`);
        cases++;
      }
    }
    expect(cases).toBeGreaterThan(100);
  });

  it('an event delivered twice in a row is applied once, also where it reaches a score document twice', async () => {
    // The reversal of r4 takes from lb-points|all|p-1 twice: its own points and r1's badge.
    const r4 = all.find((e) => e.type === 'ActionReversed' && (e.data as { referenceId: string }).referenceId === 'r4')!;
    expect((r4.data as { revokedAwards: unknown[] }).revokedAwards).toHaveLength(2);
    const store = new MemoryReadStore();
    for (const e of all) {
      for (const p of PROJECTORS) {
        if (!p.handles.has(e.type)) continue;
        await p.apply(e, store);
        await p.apply(e, store);
      }
    }
    expect(await differences(store, reference)).toEqual([]);
  });

  it('the runner keeps no board definitions across rebuilds or stores', async () => {
    const store = new MemoryReadStore();
    const runner = new ProjectionRunner(events, store, PROJECTORS, log);
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
