/**
 * A league settled across SIGKILLs (issue 49): the all-in-one service in its own process, a
 * { minutes: 1 } league with many small cohorts. The service is killed just before the period
 * ends (down when the settlement is due), restarted after the end (the overdue job settles on
 * start), and killed again as soon as the first results appear (mid-settlement: the job's run is
 * cut off between cohorts). Restarted, every player is settled exactly once with one prize, and
 * each cohort once on its tier's stream.
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
/** Time the load needs before the period's end, from a minute's start. */
const ROOM_MS = 40_000;
/** Actions sent at once. */
const CONCURRENCY = 8;
/** A run cut off waits for its lock to run out (on BullMQ, for two checks for stalled jobs) before it runs again. */
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
  server = await startServerProcess(env);
  const url = server.url;
  const headers = { AuthKey: KEYS.server, 'Content-Type': 'application/json' };

  // A period with room for the load: wait for the next minute when this one is nearly over.
  await eventually(() => MINUTE - (Date.now() % MINUTE) > ROOM_MS, MINUTE, 100);
  const periodEnd = Math.ceil(Date.now() / MINUTE) * MINUTE;
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
  expect(Date.now()).toBeLessThan(periodEnd);

  // Down when the period ends; up after it: the job, overdue, runs at start.
  await stopProcess(server.child);
  await eventually(() => Date.now() > periodEnd, MINUTE, 100);
  server = await startServerProcess(env);
  const auditor = { AuthKey: KEYS.auditor };
  const settledSoFar = async (at: string) => {
    const feed = await fetch(`${at}/v1/feed/events?types=LeagueFinished&limit=1000`, { headers: auditor });
    return ((await feed.json()) as { data: { events?: unknown[] } | unknown[] }).data;
  };
  // Killed as soon as the first results are in: mid-settlement, most likely (one append per cohort).
  const running = server;
  await eventually(async () => JSON.stringify(await settledSoFar(running.url)).includes('LeagueFinished'), 60_000, 5);
  await stopProcess(running.child);
  server = await startServerProcess(env);

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
