/**
 * A league settled across SIGKILLs (issue 49): the all-in-one service in its own process, a
 * { minutes: 1 } league with many small cohorts. The service is killed before the period ends
 * (down when the settlement is due), restarted after the end (the overdue job settles on start),
 * and killed again as soon as the first results appear (mid-settlement: the job's run is cut off
 * between cohorts). Restarted, every player is settled exactly once with one prize, and each
 * cohort once on its tier's stream. The service's clock is the test's to move
 * (test/support/shifted-clock.cjs): set at a period's start, moved past its end while the service
 * is down, so that nothing waits for a real minute to pass.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { DEFAULT_LOCK_MS } from '../shared/adapters/jobs/port';
import type { LeagueFinished } from '../domain/events/league-events';
import { leagueStream, playerStream } from '../domain/streams';
import { backing } from './support/backing';
import { eventually, startServerProcess, stopProcess, type ChildServer } from './support/process';
import { KEYS, tempDir, writeKeysFile } from './support/service';

const MINUTE = 60_000;
const PLAYERS = 120;
const COHORT_SIZE = 2;
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
deliverables: [{ uid: gold, label: Gold, type: Prize, kind: Currency }]
actions: [{ identifier: earn, points: 1 }]
leagues:
  - uid: lg-crash
    label: Crash league
    period: { minutes: 1 }
    cohortSize: ${COHORT_SIZE}
    tiers:
      - { uid: low, label: Low, promote: 1, prizes: [{ ranks: [1, 2], points: 100, deliverables: [{ deliverable: gold, amount: 7 }] }] }
      - { uid: high, label: High, demote: 1 }
`;

const stores = backing();
let server: ChildServer | null = null;
let store: SqliteEventStore | null = null;
afterAll(async () => {
  if (server) await stopProcess(server.child);
  await store?.close();
  await stores.release();
});

it('settles every player of a league exactly once, with one prize, across a SIGKILL before the settlement and one during it', async () => {
  const dataDir = tempDir('gam-league-crash-');
  const catalogFile = path.join(dataDir, 'catalog.yaml');
  fs.writeFileSync(catalogFile, CATALOG);
  const env = { DATA_DIR: dataDir, API_KEYS_FILE: writeKeysFile(dataDir), CATALOG_FILE: catalogFile, ...stores.env };
  // The service's clock: `offset` ahead of the test's, moved only while the service is down.
  let offset = 0;
  const serviceNow = () => Date.now() + offset;
  const start = () => startServerProcess(env, { clockOffsetMs: offset });

  // The service starts at a period's start: the whole period is left for the load.
  const periodEnd = Math.ceil(Date.now() / MINUTE) * MINUTE + MINUTE;
  offset = periodEnd - MINUTE - Date.now();
  server = await start();
  const url = server.url;
  const headers = { AuthKey: KEYS.server, 'Content-Type': 'application/json' };
  const players = Array.from({ length: PLAYERS }, () => randomUUID());
  const timestamp = periodEnd - MINUTE + 1000;
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < PLAYERS; i = next++) {
      const body = {
        name: 'earn',
        playerId: players[i],
        referenceId: randomUUID(),
        timestamp,
        multiplier: 1 + (i % 3),
      };
      const answer = await fetch(`${url}/v1/action/process`, { method: 'POST', headers, body: JSON.stringify(body) });
      expect(((await answer.json()) as { code: number }).code).toBe(200);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  expect(serviceNow()).toBeLessThan(periodEnd);

  // Down when the period ends; up after it: the job, overdue, runs at start.
  await stopProcess(server.child);
  offset = periodEnd + 1000 - Date.now();
  server = await start();
  const auditor = { AuthKey: KEYS.auditor };
  const settledSoFar = async (at: string) => {
    const feed = await fetch(`${at}/v1/feed/events?types=LeagueFinished&limit=1000`, { headers: auditor });
    return ((await feed.json()) as { data: { events?: unknown[] } | unknown[] }).data;
  };
  // Killed as soon as the first results are in: mid-settlement, most likely (one append per cohort).
  const running = server;
  await eventually(async () => JSON.stringify(await settledSoFar(running.url)).includes('LeagueFinished'), 60_000, 5);
  await stopProcess(running.child);
  // Restarted once the run's claim has run out by the service's clock (BullMQ's lock: by Redis's).
  offset += DEFAULT_LOCK_MS + 1000;
  await stores.expireStalledChecks();
  server = await start();

  // Every player settled, once, after the restart.
  const restarted = server;
  await eventually(async () => countIn(await settledSoFar(restarted.url)) >= PLAYERS, JOB_RECOVERY_MS, 200);
  await stopProcess(restarted.child);
  server = null;

  store = new SqliteEventStore(path.join(dataDir, 'events.sqlite'), { readonly: true });
  const finished: LeagueFinished[] = [];
  for (const playerId of players) {
    const events = await store.readStream(playerStream(playerId));
    const own = events.filter((e) => e.type === 'LeagueFinished').map((e) => e.data as LeagueFinished);
    expect([playerId, own.length]).toEqual([playerId, 1]);
    finished.push(...own);
    // Each prize once: the player's points are their action's and at most one prize's.
    const points = events.reduce(
      (sum, e) => sum + ((e.data as { effects?: { points: number } }).effects?.points ?? 0),
      0,
    );
    expect(points).toBe(own[0].metric + (own[0].prize?.points ?? 0));
  }
  const cohorts = Math.ceil(PLAYERS / COHORT_SIZE);
  const tierEvents = await store.readStream(leagueStream('lg-crash', periodEnd - MINUTE, 'low'));
  const settled = tierEvents
    .filter((e) => e.type === 'LeagueCohortSettled')
    .map((e) => (e.data as { cohort: number }).cohort);
  expect(settled.sort((a, b) => a - b)).toEqual(Array.from({ length: cohorts }, (_, i) => i + 1));
  expect(finished.filter((f) => f.rank === 1).every((f) => f.outcome === 'Promoted' && f.prize?.points === 100)).toBe(
    true,
  );
}, 300_000);

/** LeagueFinished events in a feed page. */
function countIn(data: unknown): number {
  return (JSON.stringify(data).match(/"LeagueFinished"/g) ?? []).length;
}
