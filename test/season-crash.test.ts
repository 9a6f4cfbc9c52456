/**
 * A season's prizes settled across SIGKILLs (issue 49, "season prizes"): the all-in-one service in
 * its own process, a Day board with prizes down to rank 100 and more players than that. The
 * service is killed before the season ends (down when its settlement is due), restarted after the
 * settlement time, and killed again as soon as the settle-season job's run is seen to hold its job
 * (mid-settlement: before its one append, or after it and before the job is done). Restarted, the
 * season is settled once, and each prize winner gets one LeaderboardSeasonFinished, with one
 * prize. The service's clock is the test's to move (test/support/shifted-clock.cjs): a day passes
 * while the service is down.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { DEFAULT_LOCK_MS } from '../shared/adapters/jobs/port';
import type { LeaderboardSeasonFinished, LeaderboardSeasonSettled } from '../domain/events/season-events';
import { playerStream, seasonStream } from '../domain/streams';
import { SETTLE_SEASON } from '../command-api/settle-season/decider';
import { backing, SERVICES_ON_REDIS } from './support/backing';
import { eventually, startServerProcess, stopProcess, type ChildServer } from './support/process';
import { TEST_REDIS_URL } from './support/redis';
import { KEYS, tempDir, writeKeysFile } from './support/service';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const PLAYERS = 120;
const LAST_PRIZE_RANK = 100;
const SETTLE_AFTER_S = 60;
/** Actions sent at once. */
const CONCURRENCY = 8;
/**
 * A run cut off waits for its lock to run out before it runs again. The embedded jobs' claims
 * follow the service's clock, moved past them; BullMQ's locks expire in Redis's own time, and its
 * job waits for a check for stalled jobs to find it and the next one to run it again.
 */
const JOB_RECOVERY_MS = 3 * DEFAULT_LOCK_MS + 30_000;
const CATALOG = `
version: 1
settings: { timezone: UTC }
deliverables: [{ uid: gold, label: Gold, type: Prize, kind: Currency }]
actions: [{ identifier: earn, points: 1 }]
leaderboards:
  - uid: lb-crash
    label: Crash season
    period: Day
    settleAfterSeconds: ${SETTLE_AFTER_S}
    prizes:
      - { ranks: [1, 1], points: 100, deliverables: [{ deliverable: gold, amount: 7 }] }
      - { ranks: [2, ${LAST_PRIZE_RANK}], points: 10 }
`;

const stores = backing();
let server: ChildServer | null = null;
let store: SqliteEventStore | null = null;
afterAll(async () => {
  if (server) await stopProcess(server.child);
  await store?.close();
  await stores.release();
});

it('settles a season once, each prize once, across a SIGKILL before the settlement and one during it', async () => {
  const dataDir = tempDir('gam-season-crash-');
  const catalogFile = path.join(dataDir, 'catalog.yaml');
  fs.writeFileSync(catalogFile, CATALOG);
  const env = { DATA_DIR: dataDir, API_KEYS_FILE: writeKeysFile(dataDir), CATALOG_FILE: catalogFile, ...stores.env };
  // The service's clock: `offset` ahead of the test's, moved only while the service is down.
  let offset = 0;
  const serviceNow = () => Date.now() + offset;

  // The service starts an hour into a day of its own (UTC): tomorrow, whatever the time now.
  const seasonStart = Math.floor(Date.now() / DAY) * DAY + DAY;
  const season = new Date(seasonStart).toISOString().slice(0, 10);
  const settleAt = seasonStart + DAY + SETTLE_AFTER_S * 1000;
  offset = seasonStart + HOUR - Date.now();
  server = await startServerProcess(env, { clockOffsetMs: offset });
  const url = server.url;
  const headers = { AuthKey: KEYS.server, 'Content-Type': 'application/json' };
  const players = Array.from({ length: PLAYERS }, () => randomUUID());
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < PLAYERS; i = next++) {
      const body = {
        name: 'earn',
        playerId: players[i],
        referenceId: randomUUID(),
        timestamp: seasonStart + 1000,
        multiplier: 1 + (i % 7),
      };
      const answer = await fetch(`${url}/v1/action/process`, { method: 'POST', headers, body: JSON.stringify(body) });
      expect(((await answer.json()) as { code: number }).code).toBe(200);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  expect(serviceNow()).toBeLessThan(settleAt);

  // Down at the settlement time; up after it, killed as soon as the overdue job's run holds it.
  await stopProcess(server.child);
  server = null;
  offset = settleAt + 1000 - Date.now();
  const runs = await settlementRuns(dataDir);
  try {
    let cutOff: Promise<void> | undefined;
    const starting = startServerProcess(env, {
      clockOffsetMs: offset,
      spawned: (child) => {
        cutOff = (async () => {
          await eventually(runs.holding, 60_000, 2);
          await stopProcess(child);
        })();
      },
    });
    // Killed before it answered, most likely: its start reports the kill, which is the point here.
    await starting.then((started) => (server = started)).catch(() => undefined);
    await cutOff;
    server = null;
  } finally {
    await runs.close();
  }

  // Restarted once the run's claim has run out by the service's clock (BullMQ's lock: by Redis's).
  offset += DEFAULT_LOCK_MS + 1000;
  await stores.expireStalledChecks();
  server = await startServerProcess(env, { clockOffsetMs: offset });
  const restarted = server;
  const auditor = { AuthKey: KEYS.auditor };
  const settledFeed = async () => {
    const feed = await fetch(`${restarted.url}/v1/feed/events?types=LeaderboardSeasonSettled&limit=10`, {
      headers: auditor,
    });
    return JSON.stringify(await feed.json()).includes('"LeaderboardSeasonSettled"');
  };
  await eventually(settledFeed, JOB_RECOVERY_MS, 200);
  await stopProcess(restarted.child);
  server = null;

  store = new SqliteEventStore(path.join(dataDir, 'events.sqlite'), { readonly: true });
  const settlements = (await store.readStream(seasonStream('lb-crash', season))).filter(
    (e) => e.type === 'LeaderboardSeasonSettled',
  );
  expect(settlements).toHaveLength(1);
  const { standings } = settlements[0].data as LeaderboardSeasonSettled;
  expect(standings).toHaveLength(LAST_PRIZE_RANK);
  const winners = new Map(standings.map((s, i) => [s.playerId, { rank: i + 1, score: s.score }]));
  for (const playerId of players) {
    const events = await store.readStream(playerStream(playerId));
    const own = events
      .filter((e) => e.type === 'LeaderboardSeasonFinished')
      .map((e) => e.data as LeaderboardSeasonFinished);
    const won = winners.get(playerId);
    // A prize for each winner once, none for the others.
    expect([playerId, own.length]).toEqual([playerId, won ? 1 : 0]);
    if (!won) continue;
    const points = events.reduce(
      (sum, e) => sum + ((e.data as { effects?: { points: number } }).effects?.points ?? 0),
      0,
    );
    expect(own[0]).toMatchObject({ season, rank: won.rank, score: won.score });
    expect(own[0].prize.points).toBe(won.rank === 1 ? 100 : 10);
    // The prize's points counted once: the player's points are their action's and the prize's.
    expect(points).toBe(won.score + own[0].prize.points);
  }
}, 300_000);

/** Whether a run of the settle-season job holds its job: a live claim (embedded), or the job active (BullMQ). */
async function settlementRuns(dataDir: string): Promise<{ holding: () => Promise<boolean>; close(): Promise<void> }> {
  if (SERVICES_ON_REDIS) {
    const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
    const active = `${stores.env.REDIS_PREFIX}:jobs-${SETTLE_SEASON}:active`;
    return { holding: async () => (await redis.llen(active)) > 0, close: async () => redis.disconnect() };
  }
  const jobs = new Database(path.join(dataDir, 'jobs.sqlite'), { readonly: true, fileMustExist: true });
  const claims = jobs.prepare<[string], { n: number }>(
    `SELECT COUNT(*) AS n FROM jobs WHERE type = ? AND state = 'running'`,
  );
  return { holding: async () => claims.get(SETTLE_SEASON)!.n > 0, close: async () => void jobs.close() };
}
