/**
 * Reads of a scoped leaderboard (issue 29's bench target: 100,000 players over 200 values of the
 * scope, a scoped page of 10 at p50 <= 5 ms), without the HTTP server: the leaderboards projector
 * fills the embedded read store from one action per player, then the standings route's handler
 * is timed one read at a time. `npx tsx bench/scoped-leaderboard.ts [players] [values]`
 */
import { leaderboardsProjector } from '../projections/leaderboards';
import { adminRoutes } from '../read-api/admin/routes';
import type { JsonRoute } from '../shared/adapters/http/route';
import type { Recorded } from '../domain/events';
import { CatalogSchema } from '../domain/catalog/schema';
import { VIEW_COLLECTIONS } from '../shared/read-models/catalog-views';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import { percentile, sortedOf } from './load';
import { seededRandom } from './seeded-random';

const BOARD = 'lb-country';

async function main(): Promise<void> {
  const players = Number(process.argv[2] ?? 100_000);
  const values = Number(process.argv[3] ?? 200);
  const store = new MemoryReadStore();
  for (const { collection, keys } of leaderboardsProjector.indexes ?? []) await store.ensureIndex(collection, keys);
  const log = { readStream: async () => [] };
  let position = 0;
  const apply = (type: string, data: unknown) =>
    leaderboardsProjector.apply(
      {
        type,
        data,
        position: ++position,
        revision: 0,
        streamName: '',
        id: String(position),
        metadata: {},
        createdAt: 0,
      } as unknown as Recorded<never>,
      store,
      log,
    );

  const catalog = CatalogSchema.parse({
    version: 1,
    actions: [{ identifier: 'score', points: 1 }],
    leaderboards: [{ uid: BOARD, label: 'By country', type: 0, scope: 'country' }],
  });
  await apply('CatalogPublished', { catalog });
  await store
    .collection(VIEW_COLLECTIONS.leaderboards)
    .insertOne({ _id: BOARD, order: 0, isActive: true, list: {}, detail: { uid: BOARD } });

  const random = seededRandom(29);
  const playerId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  const country = (i: number) => `c${i % values}`;
  const loadStarted = performance.now();
  for (let i = 0; i < players; i++) {
    await apply('PlayerRegistered', { playerId: playerId(i), username: `p${i}`, imageName: null });
    const earnedPoints = 1 + Math.floor(random() * 1000);
    const processed = {
      playerId: playerId(i),
      referenceId: `r${i}`,
      actionName: 'score',
      timestamp: Date.now(),
      result: { earnedPoints },
      attributes: { country: country(i) },
    };
    await apply('ActionProcessed', processed);
  }
  const loadMs = performance.now() - loadStarted;

  const route = adminRoutes({ store, now: () => Date.now() }).find(
    (r) => r.path === '/v1/admin/leaderboards/:leaderboardID',
  ) as JsonRoute<unknown>;
  const read = async (query: Record<string, string>): Promise<number> => {
    const input = route.parse({ params: { leaderboardID: BOARD }, query, body: undefined } as never);
    if (!input.ok) throw new Error(input.failure.message);
    const started = performance.now();
    const reply = await route.handle(input.value, {} as never);
    const ms = performance.now() - started;
    if (!reply.ok) throw new Error(reply.failure.message);
    // Each value holds players / values players: a page that is not full read the wrong standings.
    const [board] = reply.value as { standings: unknown[] }[];
    if (board.standings.length !== Math.min(Number(query.top), Math.floor(players / values)))
      throw new Error(`a page of ${board.standings.length} rows`);
    return ms;
  };
  const timed = async (query: (i: number) => Record<string, string>, times: number) => {
    const ms: number[] = [];
    for (let i = 0; i < times; i++) ms.push(await read(query(i)));
    return percentile(sortedOf(ms), 50);
  };
  const page = await timed((i) => ({ scope: country(i * 7), top: '10' }), 400);
  const rank = await timed((i) => ({ scope: country(i * 131), top: '1', playerId: playerId(i * 131) }), 400);
  const around = await timed(
    (i) => ({ scope: country(i * 131), top: '1', playerId: playerId(i * 131), around: '5' }),
    400,
  );
  console.log(
    `${players.toLocaleString('en')} players over ${values} values of the scope, loaded through the projector in ${(loadMs / 1000).toFixed(1)} s`,
  );
  console.log(
    `p50, one read at a time (route handler, no HTTP): scoped page of 10 ${page.toFixed(3)} ms; with playerId ${rank.toFixed(3)} ms; around=5 ${around.toFixed(3)} ms`,
  );
}

void main();
