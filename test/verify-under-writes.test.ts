/**
 * `verify` while writes go on (issue 45, point 7): the live read models are past the position
 * replayed to when they are read. Writes land while the check reads the scores it compares, and
 * no difference is listed that a comparison at one position would not find.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { processAction } from '../command-api/process-action/handler';
import type { CommandDeps } from '../command-api/deps';
import { PROJECTORS } from '../projections/projectors';
import { ProjectionRunner } from '../projections/runner';
import { verifyReadModels } from '../projections/verify';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import type { Collection, ReadStore } from '../shared/adapters/read-store/port';
import { LEADERBOARD_COLLECTIONS, type ScoreDoc } from '../shared/read-models/leaderboards';
import { catalogOfYaml, commandDepsFor, publishYaml } from './support/command-deps';

const CATALOG = `
version: 1
actions:
  - { uid: act-earn, identifier: earn, points: 10 }
levels:
  - { uid: lvl-1, label: Rookie, level: 1, target: 0 }
leaderboards:
  - { uid: lb-all, label: All-time, type: 0 }
`;
const NOW = Date.UTC(2026, 5, 1);
const WAIT_MS = 60_000;

let events: SqliteEventStore;
let deps: CommandDeps;
let live: MemoryReadStore;
let runner: ProjectionRunner;
const players = Array.from({ length: 5 }, () => randomUUID());

/** An action of `playerId`'s, projected before it returns. */
async function earn(playerId: string): Promise<void> {
  const done = await processAction(
    { playerId, referenceId: randomUUID(), name: 'earn', timestamp: NOW, multiplier: 1, details: [] },
    { metadata: { correlationId: 'c', causationId: 'c', keyName: 'backend', catalogVersion: 1 }, idempotency: null },
    deps,
  );
  expect(done.ok).toBe(true);
  expect(await runner.waitFor(await events.headPosition(), WAIT_MS)).toBe(true);
}

/**
 * The live read models as the check reads them: the first `times` reads of scores by id are each
 * preceded by `write` (a write landing between the replay and the read).
 */
function writtenBeforeReads(times: number, write: () => Promise<void>): ReadStore {
  const seen: ReadStore = Object.create(live);
  seen.collection = ((name: string) => {
    const inner = live.collection(name);
    if (name !== LEADERBOARD_COLLECTIONS.scores) return inner;
    const wrapped: Collection = Object.create(inner);
    wrapped.find = async (filter, options) => {
      if ((filter._id as { $in?: unknown })?.$in && times-- > 0) await write();
      return inner.find(filter, options);
    };
    return wrapped;
  }) as ReadStore['collection'];
  return seen;
}

const verify = (store: ReadStore) =>
  verifyReadModels(events, store, PROJECTORS, { waitForLive: (position) => runner.waitFor(position, WAIT_MS) });

beforeAll(async () => {
  events = new SqliteEventStore(':memory:');
  await publishYaml(events, CATALOG, NOW, { correlationId: 'start', causationId: 'start', keyName: 'operator' });
  deps = commandDepsFor(events, catalogOfYaml(CATALOG), () => NOW);
  live = new MemoryReadStore();
  runner = new ProjectionRunner(events, live, PROJECTORS, pino({ level: 'silent' }));
  await runner.start();
  for (const playerId of players) await earn(playerId);
});
afterAll(async () => {
  await runner.stop();
  await deps.jobs.close();
  await events.close();
});

describe('verify while writes go on', () => {
  it('lists no difference for documents written between the replay and their reading', async () => {
    // Every read of the scores finds the first player's a write ahead of the replay, three times running.
    const result = await verify(writtenBeforeReads(3, () => earn(players[0])));
    expect(result.differences).toEqual([]);
    expect(result.unsettled).toBe(0);
    expect(result.position).toBe(await events.headPosition());
  });

  it('counts a document still changing after the last read as unsettled, not as a difference', async () => {
    const result = await verify(writtenBeforeReads(10, () => earn(players[1])));
    expect(result.differences).toEqual([]);
    expect(result.unsettled).toBeGreaterThan(0);
  });

  it('lists a true difference of a document the writes do not change, found while they go on', async () => {
    const scores = live.collection<ScoreDoc>(LEADERBOARD_COLLECTIONS.scores);
    const before = (await scores.find({ playerId: players[2] }))[0];
    await scores.replaceOne({ _id: before._id }, { ...before, score: 1_000_000 });
    try {
      const result = await verify(writtenBeforeReads(3, () => earn(players[3])));
      expect(result.differences).toEqual([
        {
          collection: LEADERBOARD_COLLECTIONS.scores,
          _id: before._id,
          path: 'score',
          live: 1_000_000,
          rebuilt: before.score,
        },
      ]);
      expect(result.unsettled).toBe(0);
    } finally {
      await scores.replaceOne({ _id: before._id }, before);
    }
  });
});
