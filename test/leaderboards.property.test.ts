/**
 * Standings, ranks and neighbours (`around`) against a brute-force ranking: random actions of
 * three point values (many ties) by players of very different activity (some past the 16
 * contributions a score keeps one by one), random reversals, and after each round every answer
 * checked: on the service over HTTP, then on each read store adapter that runs here, the log
 * replayed into it and the same route asked (in the redis project, also the memory store with its
 * standings in Redis, as MongoDB keeps them). The brute force sorts every live score: highest
 * first, the earlier reacher (latest live contribution) first in a tie, competition ranks.
 */
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import path from 'node:path';
import pino from 'pino';
import { PROJECTORS } from '../projections/projectors';
import { ProjectionRunner } from '../projections/runner';
import { adminRoutes } from '../read-api/admin/routes';
import type { JsonRoute } from '../shared/adapters/http/route';
import { FileBackedReadStore } from '../shared/adapters/read-store/file-backed';
import { readingFromFile } from './support/read-from-file';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import { MongoReadStore } from '../shared/adapters/read-store/mongo';
import type { ReadStore } from '../shared/adapters/read-store/port';
import { server, startTestService, tempDir, type TestService } from './support/service';
import { withServer } from './support/server-suites';
import { Redis } from 'ioredis';
import { RankedReadStore } from '../shared/read-models/standings-redis';
import { SERVICES_ON_REDIS } from './support/backing';
import { deleteRedisKeys, TEST_REDIS_URL } from './support/redis';

const SEED = Number(process.env.PROPERTY_SEED ?? 2026_11_26);

const CATALOG = `
version: 1
actions:
  - { uid: act-big, identifier: big, points: 10 }
  - { uid: act-mid, identifier: mid, points: 5 }
  - { uid: act-small, identifier: small, points: 3 }
leaderboards:
  - { uid: lb-points, label: Points, type: 0 }
  - { uid: lb-big, label: Big ones, type: 0, metric: { action: big } }
`;
const POINTS: Record<string, number> = { big: 10, mid: 5, small: 3 };

interface Row {
  rank: number;
  points: number;
  userId: string;
}
/** data[0] of GET /v1/admin/leaderboards/{id}, as far as it is checked here. */
interface Answer {
  standings: Row[];
  player?: Row | null;
  around?: Row[];
}
type Ask = (board: string, query: Record<string, string>) => Promise<Answer>;

/** Live contributions per board and player, in the order the log holds them. */
class BruteForce {
  private seq = 0;
  private readonly live = new Map<string, { playerId: string; name: string; at: number }>();

  add(referenceId: string, playerId: string, name: string): void {
    this.live.set(referenceId, { playerId, name, at: ++this.seq });
  }

  reverse(referenceId: string): void {
    this.live.delete(referenceId);
  }

  liveReferences(): [string, { playerId: string; name: string }][] {
    return [...this.live.entries()];
  }

  standings(board: string): Row[] {
    const scores = new Map<string, { points: number; reachedAt: number }>();
    for (const { playerId, name, at } of this.live.values()) {
      const points = board === 'lb-big' ? (name === 'big' ? 1 : 0) : POINTS[name];
      if (points === 0) continue;
      const s = scores.get(playerId) ?? { points: 0, reachedAt: 0 };
      scores.set(playerId, { points: s.points + points, reachedAt: Math.max(s.reachedAt, at) });
    }
    const sorted = [...scores.entries()].sort(([, a], [, b]) => b.points - a.points || a.reachedAt - b.reachedAt);
    const rows: Row[] = [];
    sorted.forEach(([userId, { points }], i) =>
      rows.push({ rank: i > 0 && points === rows[i - 1].points ? rows[i - 1].rank : i + 1, points, userId }),
    );
    return rows;
  }
}

const rowsOf = (rows: Row[] | undefined) => rows?.map(({ rank, points, userId }) => ({ rank, points, userId }));

/** Every answer the brute force predicts, for both boards. */
async function checkAll(
  ask: Ask,
  model: BruteForce,
  players: string[],
  random: () => number,
  label: string,
): Promise<void> {
  for (const board of ['lb-points', 'lb-big']) {
    const expected = model.standings(board);
    expect([label, board, rowsOf((await ask(board, { top: '1000' })).standings)]).toEqual([label, board, expected]);
    expect([label, board, rowsOf((await ask(board, { top: '3' })).standings)]).toEqual([
      label,
      board,
      expected.slice(0, 3),
    ]);
    const position = new Map(expected.map((row, i) => [row.userId, i]));
    for (const playerId of players) {
      const i = position.get(playerId);
      const answer = await ask(board, { top: '1', playerId });
      expect([label, board, playerId, answer.player && rowsOf([answer.player])![0]]).toEqual([
        label,
        board,
        playerId,
        i === undefined ? null : expected[i],
      ]);
      // Neighbours of a third of the players, at a random width.
      if (random() < 0.33) {
        const n = 1 + Math.floor(random() * 6);
        const around = await ask(board, { top: '1', playerId, around: String(n) });
        expect([label, board, playerId, n, rowsOf(around.around)]).toEqual([
          label,
          board,
          playerId,
          n,
          i === undefined ? [] : expected.slice(Math.max(0, i - n), i + n + 1),
        ]);
      }
    }
  }
}

/** The leaderboard route asked directly over a read store, as the read API would. */
function routeOver(store: ReadStore): Ask {
  const route = adminRoutes({ store, now: () => Date.now() }).find(
    (r) => r.path === '/v1/admin/leaderboards/:leaderboardID',
  ) as JsonRoute<unknown>;
  return async (board, query) => {
    const parsed = route.parse({ body: undefined, params: { leaderboardID: board }, query, header: () => undefined });
    if (!parsed.ok) throw new Error(`${board} ${JSON.stringify(query)}: ${parsed.failure.message}`);
    const reply = await route.handle(parsed.value, {} as never);
    if (!reply.ok) throw new Error(`${board} ${JSON.stringify(query)}: ${reply.failure.message}`);
    return (reply.value as Answer[])[0];
  };
}

/** The read store adapters that run here, each given the service's log to replay. */
const adapters: [string, () => Promise<{ store: ReadStore; release(): Promise<void> }>][] = [
  ['memory', async () => ({ store: new MemoryReadStore(), release: async () => undefined })],
  [
    'file-backed',
    async () => {
      const store = new FileBackedReadStore(path.join(tempDir(), 'read-models.sqlite'), (error) => {
        throw error;
      });
      return { store, release: () => store.close() };
    },
  ],
  [
    'file-backed, every document read back from the file',
    async () => {
      const store = readingFromFile(path.join(tempDir(), 'read-models.sqlite'));
      return { store, release: () => store.close() };
    },
  ],
];
// In the redis project (jest.config.js): the standings kept in Redis as with MongoDB, here beside
// the memory store (no MongoDB runs here), under a key prefix of their own deleted afterwards.
if (SERVICES_ON_REDIS)
  adapters.push([
    'memory, standings in Redis',
    async () => {
      const prefix = `test-lb-property-${randomUUID()}:`;
      const store = new RankedReadStore(new MemoryReadStore(), new Redis(TEST_REDIS_URL), prefix);
      return {
        store,
        async release() {
          await store.close();
          await deleteRedisKeys(prefix);
        },
      };
    },
  ]);
withServer(
  'MONGO_URL',
  'leaderboards against a brute-force ranking on MongoDB',
  ['replays the log into MongoDB and answers as the brute force'],
  (MONGO_URL) => {
    adapters.push([
      'MongoDB',
      async () => {
        const dbName = `test_lb_property_${randomUUID().slice(0, 8)}`;
        const store = await MongoReadStore.connect(MONGO_URL, dbName);
        return {
          store,
          async release() {
            await store.close();
            const admin = new MongoClient(MONGO_URL);
            await admin.db(dbName).dropDatabase();
            await admin.close();
          },
        };
      },
    ]);
    // As production runs it: MongoDB's documents, their standings in Redis.
    if (SERVICES_ON_REDIS)
      adapters.push([
        'MongoDB, standings in Redis',
        async () => {
          const dbName = `test_lb_property_${randomUUID().slice(0, 8)}`;
          const prefix = `test-lb-property-${randomUUID()}:`;
          const mongo = await MongoReadStore.connect(MONGO_URL, dbName);
          const store = new RankedReadStore(mongo, new Redis(TEST_REDIS_URL), prefix);
          return {
            store,
            async release() {
              await store.close();
              await deleteRedisKeys(prefix);
              const admin = new MongoClient(MONGO_URL);
              await admin.db(dbName).dropDatabase();
              await admin.close();
            },
          };
        },
      ]);
  },
);

describe('leaderboards against a brute-force ranking', () => {
  let own: TestService;
  const model = new BruteForce();
  const players = Array.from({ length: 30 }, () => randomUUID());
  let seed = SEED;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const viaHttp: Ask = async (board, query) => {
    const res = await own.http.get(`/v1/admin/leaderboards/${board}`).query(query).set(server);
    if (res.status !== 200)
      throw new Error(`${board} ${JSON.stringify(query)}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data[0];
  };

  beforeAll(async () => {
    own = await startTestService({ catalogYaml: CATALOG });
  });
  afterAll(async () => {
    await own.close();
  });

  it(`over random scores, ties and reversals (seed ${SEED}), on the service and on every read store adapter replaying its log`, async () => {
    let n = 0;
    for (let round = 1; round <= 3; round++) {
      for (let i = 0; i < 90; i++) {
        const live = model.liveReferences();
        if (live.length > 0 && random() < 0.25) {
          const [referenceId, { playerId, name }] = live[Math.floor(random() * live.length)];
          const res = await own.http.post('/v1/action/delete').set(server).send({ name, referenceId, playerId });
          expect([referenceId, res.body.code]).toEqual([referenceId, 200]);
          model.reverse(referenceId);
        } else {
          // Squared: a few players act far more than the others (past the 16 contributions kept one by one).
          const playerId = players[Math.floor(random() * random() * players.length)];
          const name = ['big', 'mid', 'small'][Math.floor(random() * 3)];
          const referenceId = `r${++n}-${randomUUID().slice(0, 8)}`;
          const res = await own.http.post('/v1/action/process').set(server).send({ name, playerId, referenceId });
          expect([referenceId, res.body.code]).toEqual([referenceId, 200]);
          model.add(referenceId, playerId, name);
        }
      }
      // Every player, those without a standing too (never acted, or every action reversed).
      await checkAll(viaHttp, model, [...players, randomUUID()], random, `service, round ${round}`);
    }
    const head = await own.service.events.headPosition();
    for (const [name, make] of adapters) {
      const { store, release } = await make();
      try {
        const runner = new ProjectionRunner(own.service.events, store, PROJECTORS, pino({ level: 'silent' }));
        await runner.start();
        expect(await runner.waitFor(head, 30_000)).toBe(true);
        await runner.stop();
        await checkAll(routeOver(store), model, [...players, randomUUID()], random, name);
      } finally {
        await release();
      }
    }
  });
});
