/**
 * An erasure is in force on every process of a split deployment when its answer says so: the
 * command role that erases, the read role, and a process that holds the player's key in its
 * cache without reading the log's tail (support/key-holder.ts, as a read role does when a
 * projector elsewhere writes its read models). Each keeps a key at most PLAYER_KEY_CACHE_MS after
 * it read it, and the erasure answers only once that long has passed since the key was deleted.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import readline from 'node:readline';
import { backing } from './support/backing';
import { childEnv, startServerProcess, stopProcess, type ChildServer } from './support/process';
import { KEYS, tempDir, writeKeysFile } from './support/service';

const stores = backing();
const dataDir = tempDir();
const env = {
  DATA_DIR: dataDir,
  API_KEYS_FILE: writeKeysFile(dataDir),
  PLAYER_KEY_CACHE_MS: '1000',
  ...stores.env,
};
let command: ChildServer;
let read: ChildServer;
let holder: ChildProcessWithoutNullStreams;
let holderLines: AsyncIterator<string>;

beforeAll(async () => {
  command = await startServerProcess(env, { role: 'command' });
  read = await startServerProcess(env, { role: 'read' });
  holder = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'support', 'key-holder.ts')], {
    env: childEnv(env),
  });
  holderLines = readline.createInterface({ input: holder.stdout })[Symbol.asyncIterator]();
}, 60_000);
afterAll(async () => {
  holder?.stdin.end();
  await Promise.all([command, read].filter(Boolean).map((r) => stopProcess(r.child, 'SIGTERM')));
  await stores.release();
});

/** The whole log as the key holder reads it now, through its cache. */
async function heldRead(): Promise<string> {
  holder.stdin.write('read\n');
  const line = await holderLines.next();
  if (line.done) throw new Error('the key holder exited');
  return line.value;
}

const call = async (base: string, p: string, body?: object, key: string = KEYS.server) => {
  const res = await fetch(base + p, {
    method: body ? 'POST' : 'GET',
    headers: { AuthKey: key, 'Content-Type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  return (await res.json()) as { code: number; data: unknown };
};

it('once the erase answers, no process answers the player’s name or details, however recently it read their key', async () => {
  const playerId = randomUUID();
  const username = `Ada-${randomUUID()}`;
  const detail = `rue-${randomUUID()}`;
  expect((await call(command.url, '/v1/player/create', { playerId, username })).code).toBe(200);
  const action = {
    name: 'purchase',
    referenceId: randomUUID(),
    playerId,
    details: [{ name: 'amount', value: detail }],
  };
  expect((await call(command.url, '/v1/action/process', action)).code).toBe(200);

  // The read role and the key holder both read the player's key, and keep it.
  const events = `/v1/audit/players/${playerId}/events`;
  const feed = '/v1/feed/events?types=PlayerRegistered,ActionProcessed';
  expect(JSON.stringify(await call(read.url, events, undefined, KEYS.auditor))).toContain(detail);
  expect(JSON.stringify(await call(read.url, feed))).toContain(username);
  const before = await heldRead();
  expect([before.includes(username), before.includes(detail)]).toEqual([true, true]);

  const erased = await call(command.url, '/v1/admin/players/erase', { playerId });
  expect(erased.code).toBe(200);

  const after = {
    'read role, audit events': JSON.stringify(await call(read.url, events, undefined, KEYS.auditor)),
    'read role, feed': JSON.stringify(await call(read.url, feed)),
    'key holder': await heldRead(),
  };
  for (const [who, answer] of Object.entries(after))
    expect([who, answer.includes(username), answer.includes(detail), answer.includes('[erased]')]).toEqual([
      who,
      false,
      false,
      true,
    ]);
}, 60_000);
