/**
 * Moments across SIGKILLs (docs/catalog.md, "moments"): the service in its own process, many
 * players' StreakAtRisk jobs due at once, killed as the first of them are appended (the others
 * scheduled, running, or appended and not yet settled), restarted on the same data. Every player
 * gets the moment exactly once: nothing lost, nothing twice.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { DEFAULT_LOCK_MS } from '../shared/adapters/jobs/port';
import { playerStream } from '../domain/streams';
import { eventually, killGroup, startServerProcess, stopProcess, type ChildServer } from './support/process';
import { KEYS, tempDir, writeKeysFile } from './support/service';

const DAY = 86_400_000;
const PLAYERS = 80;
/** A job the kill cut off mid-run runs again once its lock has run out. */
const JOB_RECOVERY_MS = 3 * DEFAULT_LOCK_MS;
// Due at 00:00 of the run's deadline day, which has begun: every job runs as soon as it is scheduled.
const CATALOG = `
version: 1
settings: { timezone: UTC }
actions: [{ identifier: order }]
streaks:
  - { uid: s-daily, label: Daily order, period: Day, conditions: [{ action: order }] }
moments:
  streakAtRisk: { atLocalTime: "00:00", minLength: 2 }
`;

let server: ChildServer | undefined;
let store: SqliteEventStore | undefined;
afterAll(async () => {
  await store?.close();
  if (server) await stopProcess(server.child);
});

const order = (url: string, playerId: string, timestamp: number) =>
  fetch(`${url}/v1/action/process`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', AuthKey: KEYS.server },
    body: JSON.stringify({ name: 'order', playerId, referenceId: randomUUID(), timestamp }),
  }).then((r) => r.json() as Promise<{ code: number }>);

it('appends each player’s StreakAtRisk exactly once across SIGKILLs while the moment jobs run', async () => {
  const dataDir = tempDir('gam-moments-crash-');
  const catalogFile = path.join(dataDir, 'catalog.yaml');
  fs.writeFileSync(catalogFile, CATALOG);
  const env = { DATA_DIR: dataDir, API_KEYS_FILE: writeKeysFile(dataDir), CATALOG_FILE: catalogFile };
  server = await startServerProcess(env);
  store = new SqliteEventStore(path.join(dataDir, 'events.sqlite'), { readonly: true });
  const events = store;
  const players = Array.from({ length: PLAYERS }, () => randomUUID());
  const momentsOf = async (playerId: string) =>
    (await events.readStream(playerStream(playerId))).filter((e) => e.type === 'StreakAtRisk');
  const told = async () => (await Promise.all(players.map(momentsOf))).filter((m) => m.length > 0).length;

  const now = Date.now();
  for (const p of players) expect((await order(server.url, p, now - 2 * DAY)).code).toBe(200);
  // The orders that make the moments due, side by side; killed once the first moments are appended.
  const running = server;
  const sent = Promise.all(players.map((p) => order(running.url, p, now - DAY).catch(() => null)));
  await eventually(async () => (await told()) > 0, 30_000, 5);
  killGroup(running.child, 'SIGKILL');
  await sent;
  await stopProcess(running.child);
  expect(running.child.signalCode).toBe('SIGKILL');
  const before = await told();

  // Orders the kill left unanswered are sent again, as a client would (a duplicate answers 2601).
  server = await startServerProcess(env);
  for (const p of players)
    if ((await events.readStream(playerStream(p))).filter((e) => e.type === 'ActionProcessed').length < 2)
      expect((await order(server.url, p, now - DAY)).code).toBe(200);
  await eventually(async () => expect(await told()).toBe(PLAYERS), JOB_RECOVERY_MS + 30_000, 200);
  expect(before).toBeLessThan(PLAYERS);
  for (const p of players) expect([p, (await momentsOf(p)).length]).toEqual([p, 1]);

  // Another restart: the jobs settled, none appends again.
  await stopProcess(server.child);
  server = await startServerProcess(env);
  expect((await order(server.url, randomUUID(), Date.now())).code).toBe(200);
  for (const p of players) expect([p, (await momentsOf(p)).length]).toEqual([p, 1]);
}, 240_000);
