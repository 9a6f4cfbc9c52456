/**
 * The standings in Redis (shared/read-models/standings-redis.ts) against the score documents' own
 * index (the embedded store): random documents with decimal scores, ties of score, ties of score
 * and reachedAt (an aggregate board's values), owners of any characters, replacements, players
 * leaving the standings, erasures and a drop, each step asked the same of both, through the rank
 * index and through the leaderboard route; a write cut off between Redis and the documents, and a
 * Redis that does not answer. Keys under a prefix of this file's, deleted afterwards.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { leaderboardsProjector } from '../projections/leaderboards';
import { adminRoutes } from '../read-api/admin/routes';
import type { JsonRoute } from '../shared/adapters/http/route';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import type { ReadStore } from '../shared/adapters/read-store/port';
import { VIEW_COLLECTIONS } from '../shared/read-models/catalog-views';
import { LEADERBOARD_COLLECTIONS, type ScoreDoc } from '../shared/read-models/leaderboards';
import { rankIndexOf, scoreId, STANDINGS_ORDER, type RankIndex } from '../shared/read-models/standings';
import { memberOf, RankedReadStore, RedisStandings } from '../shared/read-models/standings-redis';
import { deleteRedisKeys, TEST_REDIS_URL } from './support/redis';
import { StoreUnavailableError } from '../shared/adapters/event-store/port';
import type { WriteOperation } from '../shared/adapters/read-store/port';
import { freePort } from './support/process';

const PREFIX = `test-standings-${randomUUID()}:`;
afterAll(() => deleteRedisKeys(PREFIX));

let seed = 2026_11_29;
const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];

/** Owners of every kind the order must place as JavaScript compares them: surrogate pairs against U+E000-U+FFFF too. */
const OWNERS = [
  ...Array.from({ length: 40 }, () => randomUUID()),
  'DE',
  'de',
  'Ü',
  '\u{1F600}',
  '\uFFFD',
  '\uE000',
  'a\u0000b',
  'a',
  'ab',
  '',
];
const SCORES = [1, 2, 2.5, 0.1 + 0.2, 0.3, 1e-9, 12345.678, 2 ** 53, 7, 7, 7];

/** JavaScript's order of STANDINGS_ORDER, by which both stores must answer. */
function compareStandings(a: ScoreDoc, b: ScoreDoc): number {
  return (
    b.score - a.score || a.reachedAt - b.reachedAt || (a.playerId < b.playerId ? -1 : a.playerId > b.playerId ? 1 : 0)
  );
}

describe('standings in Redis', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL);
  });
  afterAll(() => redis.quit());

  it('members sort by their bytes in the standings order and give back score and owner exactly', async () => {
    const docs = Array.from({ length: 400 }, () => ({
      score: pick(SCORES) * (random() < 0.1 ? -1 : 1),
      reachedAt: Math.floor(random() * 5),
      playerId: pick(OWNERS),
    }));
    const byBytes = [...docs].sort((a, b) => Buffer.compare(memberOf(a), memberOf(b)));
    const byOrder = [...docs].sort((a, b) => compareStandings(a as ScoreDoc, b as ScoreDoc));
    expect(byBytes.map((d) => [d.score, d.reachedAt, d.playerId])).toEqual(
      byOrder.map((d) => [d.score, d.reachedAt, d.playerId]),
    );
    const standings = new RedisStandings(redis, `${PREFIX}members:`);
    const key = { board: 'b', period: 'all' };
    const distinct = [...new Map(docs.map((d) => [d.playerId, d])).values()];
    await standings.write(distinct.map((d) => doc('b', 'all', d.playerId, d.score, d.reachedAt)));
    const read = await standings.slice(key, 0, distinct.length);
    expect(read).toEqual(
      [...distinct]
        .sort((a, b) => compareStandings(a as ScoreDoc, b as ScoreDoc))
        .map((d) => ({ owner: d.playerId, score: d.score })),
    );
    await standings.drop();
  });

  it('answers every slice, count and place as the score index does, through writes, erasures and a drop', async () => {
    const embedded = new MemoryReadStore();
    const underlying = new MemoryReadStore();
    const ranked = new RankedReadStore(underlying, new Redis(TEST_REDIS_URL), `${PREFIX}store:`);
    const stores = [embedded, ranked];
    for (const store of stores) await addBoards(store);
    const periods = ['all', 'all|DE'];
    try {
      for (let round = 0; round < 6; round++) {
        // Written as the projector's batches write them: upserted replacements in bulk.
        const written: ScoreDoc[] = [];
        for (let i = 0; i < 60; i++) {
          const board = pick(BOARDS)._id;
          // Players on the points board (canonical ids), values of any kind on the aggregate one.
          const owner = board === 'lb-points' ? pick(OWNERS.slice(0, 40)) : pick(OWNERS.slice(30));
          written.push(doc(board, pick(periods), owner, pick(SCORES), Math.floor(random() * 8), random() < 0.1));
        }
        const unique = [...new Map(written.map((d) => [d._id, d])).values()];
        for (const store of stores)
          await store
            .collection<ScoreDoc>(LEADERBOARD_COLLECTIONS.scores)
            .bulkWrite(unique.map((d) => ({ replaceOne: { filter: { _id: d._id }, replacement: d, upsert: true } })));
        // An erasure, as the projector's: every document of one player.
        if (round % 2 === 1) {
          const erased = pick(OWNERS.slice(0, 40));
          for (const store of stores)
            await store.collection(LEADERBOARD_COLLECTIONS.scores).deleteMany({ playerId: erased });
        }
        for (const board of BOARDS)
          for (const period of periods) await expectSame(stores, { board: board._id, period }, `round ${round}`);
      }
      await ranked.dropCollection(LEADERBOARD_COLLECTIONS.scores);
      expect(
        await rankIndexOf(ranked.collection(LEADERBOARD_COLLECTIONS.scores)).slice(
          { board: 'lb-points', period: 'all' },
          0,
          10,
        ),
      ).toEqual([]);
      const left: string[] = [];
      for await (const batch of redis.scanStream({ match: `${PREFIX}store:*`, count: 1000 })) left.push(...batch);
      expect(left).toEqual([]);
    } finally {
      await ranked.close();
    }
  });
});

describe('standings in Redis, when a write or Redis fails', () => {
  const upserts = (docs: ScoreDoc[]): WriteOperation[] =>
    docs.map((d) => ({ replaceOne: { filter: { _id: d._id }, replacement: d, upsert: true } }));

  it('a batch written to Redis and not to the documents, written again (a redelivery), leaves both as the index has them', async () => {
    const embedded = new MemoryReadStore();
    const underlying = new MemoryReadStore();
    const ranked = new RankedReadStore(underlying, new Redis(TEST_REDIS_URL), `${PREFIX}redelivery:`);
    const key = { board: 'lb-points', period: 'all' };
    const first = OWNERS.slice(0, 10).map((o, i) => doc(key.board, key.period, o, 10 + (i % 3), i));
    const moved = first.map((d, i) => doc(key.board, key.period, d.playerId, i % 2 ? 5 : 20, 100 + i, i === 3));
    try {
      for (const store of [embedded, ranked]) {
        await addBoards(store);
        await store.collection<ScoreDoc>(LEADERBOARD_COLLECTIONS.scores).bulkWrite(upserts(first));
      }
      // The documents' write fails after Redis took the batch: a crash between the two.
      const scores = underlying.collection<ScoreDoc>(LEADERBOARD_COLLECTIONS.scores);
      const write = scores.bulkWrite.bind(scores);
      scores.bulkWrite = async () => {
        throw new Error('cut off');
      };
      const collection = ranked.collection<ScoreDoc>(LEADERBOARD_COLLECTIONS.scores);
      await expect(collection.bulkWrite(upserts(moved))).rejects.toThrow('cut off');
      scores.bulkWrite = write;
      await collection.bulkWrite(upserts(moved));
      await collection.bulkWrite(upserts(moved));
      await embedded.collection<ScoreDoc>(LEADERBOARD_COLLECTIONS.scores).bulkWrite(upserts(moved));
      await expectSame([embedded, ranked], key, 'redelivered');
      expect(await rankIndexOf(collection).slice(key, 0, 100)).toHaveLength(9);
    } finally {
      await ranked.dropCollection(LEADERBOARD_COLLECTIONS.scores);
      await ranked.close();
    }
  });

  it('keeps standings apart per collection name (read models built under a prefix beside the live ones), dropped with it', async () => {
    const ranked = new RankedReadStore(new MemoryReadStore(), new Redis(TEST_REDIS_URL), `${PREFIX}generations:`);
    const key = { board: 'lb-points', period: 'all' };
    const live = ranked.collection<ScoreDoc>(LEADERBOARD_COLLECTIONS.scores);
    const built = ranked.collection<ScoreDoc>(`g2_${LEADERBOARD_COLLECTIONS.scores}`);
    try {
      await live.bulkWrite(upserts([doc(key.board, key.period, OWNERS[0], 3, 1)]));
      await built.bulkWrite(upserts([doc(key.board, key.period, OWNERS[1], 5, 2)]));
      expect(await rankIndexOf(live).slice(key, 0, 10)).toEqual([{ owner: OWNERS[0], score: 3 }]);
      expect(await rankIndexOf(built).slice(key, 0, 10)).toEqual([{ owner: OWNERS[1], score: 5 }]);
      await ranked.dropCollection(LEADERBOARD_COLLECTIONS.scores);
      expect(await rankIndexOf(live).slice(key, 0, 10)).toEqual([]);
      expect(await rankIndexOf(built).slice(key, 0, 10)).toEqual([{ owner: OWNERS[1], score: 5 }]);
    } finally {
      await ranked.dropCollection(`g2_${LEADERBOARD_COLLECTIONS.scores}`);
      await ranked.close();
    }
  });

  it('a Redis that does not answer fails reads and writes as unavailable (a 503), and writes no document', async () => {
    const underlying = new MemoryReadStore();
    const ranked = RankedReadStore.connect(underlying, `redis://127.0.0.1:${await freePort()}`, `${PREFIX}away:`);
    try {
      const key = { board: 'lb-points', period: 'all' };
      const collection = ranked.collection<ScoreDoc>(LEADERBOARD_COLLECTIONS.scores);
      const ranks = rankIndexOf(collection);
      await expect(ranks.slice(key, 0, 10)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(ranks.above(key, 1)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(ranks.find(key, OWNERS[0])).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(collection.bulkWrite(upserts([doc(key.board, key.period, OWNERS[0], 1, 1)]))).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      expect(await underlying.collection(LEADERBOARD_COLLECTIONS.scores).countDocuments({})).toBe(0);
    } finally {
      await ranked.close();
    }
  });
});

/** The boards the standings are asked of, a players' and an aggregate one, as the route reads them. */
const BOARDS = [
  { _id: 'lb-points', type: 0, aggregate: null },
  { _id: 'lb-values', type: 0, aggregate: 'sum', scope: 'country' },
];

async function addBoards(store: ReadStore): Promise<void> {
  for (const { collection, keys } of leaderboardsProjector.indexes ?? []) await store.ensureIndex(collection, keys);
  for (const board of BOARDS) {
    await store.collection(LEADERBOARD_COLLECTIONS.boards).replaceOne({ _id: board._id }, board, { upsert: true });
    await store
      .collection(VIEW_COLLECTIONS.leaderboards)
      .replaceOne({ _id: board._id }, { _id: board._id, list: {}, detail: { uid: board._id } }, { upsert: true });
  }
}

function doc(board: string, period: string, owner: string, score: number, reachedAt: number, out = false): ScoreDoc {
  return {
    _id: scoreId(board, period, owner),
    board,
    period,
    playerId: owner,
    score: out ? 0 : score,
    inStandings: !out,
    reachedAt: out ? 0 : reachedAt,
    latest: [],
    earlier: 0,
    appliedAt: 1,
  };
}

/** The rank index and the route answer alike on both stores, and as sorting the documents does. */
async function expectSame(stores: ReadStore[], key: { board: string; period: string }, label: string): Promise<void> {
  const [embedded, ranked] = stores.map((s) => rankIndexOf(s.collection<ScoreDoc>(LEADERBOARD_COLLECTIONS.scores)));
  expect(ranked).toBeInstanceOf(RedisStandings);
  const docs = await stores[0]
    .collection<ScoreDoc>(LEADERBOARD_COLLECTIONS.scores)
    .find({ ...key, inStandings: true }, { sort: STANDINGS_ORDER });
  expect(docs.map((d) => d._id)).toEqual([...docs].sort(compareStandings).map((d) => d._id));
  const ask = async (index: RankIndex) => ({
    all: await index.slice(key, 0, 1000),
    middle: await index.slice(key, 3, 4),
    above: await Promise.all(SCORES.map((s) => index.above(key, s))),
    places: await Promise.all(OWNERS.map((o) => index.find(key, o))),
  });
  const expected = await ask(embedded);
  expect([label, key, await ask(ranked)]).toEqual([label, key, expected]);
  expect(expected.all).toEqual(docs.map((d) => ({ owner: d.playerId, score: d.score })));
  // The route over each store: page, player and neighbours (an aggregate board ranks values, asked without playerId).
  const routes = stores.map((store) => routeOver(store));
  if (key.period !== 'all') return;
  const queries: Record<string, string>[] = [{ top: '1000' }, { top: '2' }];
  if (key.board === 'lb-points')
    for (const playerId of OWNERS.slice(0, 40)) queries.push({ top: '1', playerId, around: '2' });
  for (const query of queries) {
    const [fromEmbedded, fromRedis] = await Promise.all(routes.map((ask) => ask(key.board, query)));
    expect([label, key, query, fromRedis]).toEqual([label, key, query, fromEmbedded]);
  }
}

function routeOver(store: ReadStore): (board: string, query: Record<string, string>) => Promise<unknown> {
  const route = adminRoutes({ store, now: () => Date.now() }).find(
    (r) => r.path === '/v1/admin/leaderboards/:leaderboardID',
  ) as JsonRoute<unknown>;
  return async (board, query) => {
    const parsed = route.parse({ body: undefined, params: { leaderboardID: board }, query, header: () => undefined });
    if (!parsed.ok) throw new Error(parsed.failure.message);
    const reply = await route.handle(parsed.value, {} as never);
    if (!reply.ok) throw new Error(reply.failure.message);
    return reply.value;
  };
}
