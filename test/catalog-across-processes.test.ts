/**
 * A catalog version published through one process is in force on every process that decides
 * commands, without a restart: each reads the versions again every second (app/service.ts), so
 * the other decides under it within 2 seconds (waited for here with a generous deadline). Two
 * all-in-one processes on one DATA_DIR, as a command role beside another: each reads the log's
 * feed itself.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { backing } from './support/backing';
import { eventually, startServerProcess, stopProcess, type ChildServer } from './support/process';
import { KEYS, tempDir, writeKeysFile } from './support/service';

const CATALOG = `
version: 1
actions:
  - { uid: act-login, identifier: login, points: 1 }
`;
const stores = backing();
const dataDir = tempDir();
fs.writeFileSync(path.join(dataDir, 'catalog.yaml'), CATALOG);
const env = {
  DATA_DIR: dataDir,
  API_KEYS_FILE: writeKeysFile(dataDir),
  CATALOG_FILE: path.join(dataDir, 'catalog.yaml'),
  ...stores.env,
};
let first: ChildServer;
let second: ChildServer;

beforeAll(async () => {
  first = await startServerProcess(env, { role: 'all' });
  second = await startServerProcess(env, { role: 'all' });
}, 60_000);
afterAll(async () => {
  await Promise.all([first, second].filter(Boolean).map((r) => stopProcess(r.child, 'SIGTERM')));
  await stores.release();
});

const post = async (base: string, p: string, body: object) => {
  const res = await fetch(base + p, {
    method: 'POST',
    headers: { AuthKey: KEYS.server, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { code: number; data: Record<string, unknown> };
};

/** The version a login on `base` is decided under, from the answer's events. */
async function loginVersion(base: string): Promise<number> {
  const referenceId = randomUUID();
  const res = await post(base, '/v1/action/process', { playerId: randomUUID(), name: 'login', referenceId });
  expect(res.code).toBe(200);
  const events = await fetch(`${base}/v1/feed/events?limit=1000`, { headers: { AuthKey: KEYS.server } }).then(
    (r) =>
      r.json() as Promise<{
        data: { events: { type: string; data: { referenceId?: string }; metadata: { catalogVersion: number } }[] };
      }>,
  );
  const processed = events.data.events.find((e) => e.type === 'ActionProcessed' && e.data.referenceId === referenceId);
  return processed!.metadata.catalogVersion;
}

it('a version published on one process decides the next command there, and on the other within seconds', async () => {
  expect(await loginVersion(second.url)).toBe(1);
  const published = await post(first.url, '/v1/admin/catalog/publish', {
    yaml: CATALOG.replace('points: 1', 'points: 2'),
    expectedVersion: 1,
    comment: 'login is worth 2',
  });
  expect(published).toEqual({
    code: 200,
    data: { version: 2, status: 'Active', effectiveAt: expect.any(Number), until: null },
  });
  expect(await loginVersion(first.url)).toBe(2);
  await eventually(async () => expect(await loginVersion(second.url)).toBe(2), 30_000, 200);
}, 90_000);
