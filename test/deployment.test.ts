import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import YAML from 'yaml';
import { playerStream } from '../command-api/player/repository';
import { readRunConfig } from '../shared/config/env';
import { SqliteEventStore } from '../shared/event-store/sqlite';
import { COMMAND_PATHS, serves } from '../shared/roles';
import { startService } from '../shared/service';
import { startServerProcess, stopProcess, type ChildServer } from './support/process';
import { KEYS, tempDir, writeKeysFile } from './support/service';

const ROOT = path.resolve(__dirname, '..');

/** `location = /path { proxy_pass http://role; }` and `location /prefix/ { ... }` of the ingress. */
function ingressTable(): { exact: Map<string, string>; prefixes: [string, string][] } {
  const conf = fs.readFileSync(path.join(ROOT, 'deploy', 'ingress.conf'), 'utf8');
  const exact = new Map<string, string>();
  const prefixes: [string, string][] = [];
  for (const m of conf.matchAll(/location\s+(=\s+)?(\S+)\s*\{\s*proxy_pass\s+http:\/\/(\w+);\s*\}/g)) {
    if (m[1]) exact.set(m[2], m[3]);
    else prefixes.push([m[2], m[3]]);
  }
  return { exact, prefixes: prefixes.sort((a, b) => b[0].length - a[0].length) };
}

/** The role nginx sends a path to: an exact location first, else the longest prefix. */
function ingressRole(path_: string): string | undefined {
  const { exact, prefixes } = ingressTable();
  return exact.get(path_) ?? prefixes.find(([prefix]) => path_.startsWith(prefix))?.[1];
}

describe('the deployment files', () => {
  const compose = YAML.parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });

  it('compose runs KurrentDB, MongoDB, Redis, the three roles and the ingress, with healthchecks and volumes', () => {
    const services = compose.services;
    expect(Object.keys(services)).toEqual(expect.arrayContaining(['kurrentdb', 'mongo', 'redis', 'command', 'read', 'projector', 'ingress']));
    for (const [role, script] of [['command', 'start:command'], ['read', 'start:read'], ['projector', 'start:projector']]) {
      const s = services[role];
      expect(s.command).toEqual(['npm', 'run', script]);
      expect(s.environment).toMatchObject({ EVENTSTORE_URL: expect.stringMatching(/^kurrentdb:\/\/kurrentdb:2113/), MONGO_URL: 'mongodb://mongo:27017', REDIS_URL: 'redis://redis:6379', PORT: '8080' });
      expect(s.healthcheck.test.join(' ')).toContain('/health');
      expect(Object.keys(s.depends_on)).toEqual(expect.arrayContaining(['kurrentdb', 'mongo', 'redis']));
    }
    for (const name of ['kurrentdb', 'mongo', 'redis', 'ingress']) expect(services[name].healthcheck).toBeDefined();
    for (const name of ['kurrentdb', 'mongo', 'redis']) expect(services[name].volumes[0]).toMatch(new RegExp(`^${Object.keys(compose.volumes).find((v) => services[name].volumes[0].startsWith(v))}:`));
    expect(services.redis.command).toEqual(expect.arrayContaining(['--maxmemory-policy', 'noeviction']));
    expect(services.ingress.ports).toEqual(['8080:8080']);
    expect(services.ingress.volumes[0]).toMatch(/^\.\/deploy\/ingress\.conf:/);
    const npmScripts = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts;
    for (const script of ['start', 'start:command', 'start:read', 'start:projector']) expect(npmScripts[script]).toBeDefined();
  });

  it('the ingress routes every registered path to the role that serves it', async () => {
    const service = await startService({ config: readRunConfig({ DATA_DIR: tempDir(), API_KEYS_FILE: writeKeysFile(tempDir()) }), log: pino({ level: 'silent' }) });
    try {
      const apiPaths = service.routes.map((r) => r.path);
      expect(apiPaths.length).toBeGreaterThan(20);
      for (const p of apiPaths) expect([p, ingressRole(p.replace(/:\w+/g, 'x'))]).toEqual([p, serves('command', p) ? 'command' : 'read']);
      for (const p of COMMAND_PATHS) expect(ingressTable().exact.get(p)).toBe('command');
    } finally {
      await service.close();
    }
  });
});

/** Response bodies are checked field by field. */
const json = async (res: Response): Promise<any> => res.json();

describe('the command and read roles as separate processes', () => {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  let roles: ChildServer[] = [];
  const dataDir = tempDir();

  afterAll(async () => {
    await Promise.all(roles.map((r) => stopProcess(r.child, 'SIGTERM')));
  });

  it('an action processed through the command role is visible through the read role within the bounded wait', async () => {
    const env = { DATA_DIR: dataDir, API_KEYS_FILE: writeKeysFile(dataDir), REDIS_URL: redisUrl, REDIS_PREFIX: `test-roles-${randomUUID()}`, MIN_POSITION_WAIT_MS: '5000' };
    // The command role publishes the catalog first; the read role follows the published one.
    const command = await startServerProcess(env, { role: 'command' });
    const read = await startServerProcess(env, { role: 'read' });
    roles = [command, read];
    const base = (p: string) => (ingressRole(p) === 'command' ? command.url : read.url);
    const headers = { AuthKey: KEYS.server, 'Content-Type': 'application/json' };

    const playerId = randomUUID();
    const processPath = '/v1/action/process';
    const res = await fetch(base(processPath) + processPath, { method: 'POST', headers, body: JSON.stringify({ name: 'purchase', referenceId: `roles-${playerId}`, playerId, details: [{ name: 'amount', value: '120' }] }) });
    const body = await json(res);
    expect(body.code).toBe(200);
    const position = res.headers.get('X-Position');
    expect(Number(position)).toBeGreaterThan(0);

    // Reads of the player stream see the write at once; read models after waiting for its position.
    const profilePath = '/v1/player/profile';
    const profile = await json(await fetch(base(profilePath) + profilePath, { method: 'POST', headers, body: JSON.stringify({ playerId }) }));
    expect(profile.data.points).toBe(body.data.earnedPoints);

    const boards = await json(await fetch(`${base('/v1/admin/leaderboards')}/v1/admin/leaderboards`, { headers }));
    const board = boards.data[0].uid as string;
    const standingsPath = `/v1/admin/leaderboards/${board}`;
    const standings = await json(await fetch(`${base(standingsPath)}${standingsPath}?playerId=${playerId}`, { headers: { ...headers, 'X-Min-Position': position! } }));
    expect(standings.data[0].player).toMatchObject({ userId: playerId, points: body.data.earnedPoints });

    // A write path sent to the read role is not served there: the ingress must route it.
    expect((await fetch(read.url + processPath, { method: 'POST', headers, body: '{}' })).status).toBe(404);
  }, 60_000);

  it('SIGTERM lets the request in flight finish, then the process exits cleanly', async () => {
    const [command] = roles;
    const playerId = randomUUID();
    const actions = Array.from({ length: 100 }, (_, i) => ({ name: 'login', referenceId: `term-${playerId}-${i}`, playerId }));
    const inFlight = fetch(`${command.url}/v1/action/process`, {
      method: 'POST',
      headers: { AuthKey: KEYS.server, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'login', referenceId: `term-${playerId}`, playerId, actions }),
    });
    // In flight: the server has started writing the batch's events.
    const log = new SqliteEventStore(path.join(dataDir, 'events.sqlite'), { readonly: true });
    while ((await log.streamRevision(playerStream(playerId))) < 0) await new Promise((r) => setTimeout(r, 5));
    await log.close();
    const exited = new Promise<number | null>((resolve) => command.child.once('exit', (code) => resolve(code)));
    command.child.kill('SIGTERM');
    const res = await inFlight;
    const body = await json(res);
    if (body.code !== 200) console.log(command.output());
    expect(body.code).toBe(200);
    expect(body.data.nested.filter((r: { code?: number }) => r.code === undefined)).toHaveLength(100);
    expect(await exited).toBe(0);
  }, 30_000);
});
