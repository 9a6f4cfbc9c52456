import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import YAML from 'yaml';
import { playerStream } from '../domain/streams';
import { readRunConfig } from '../shared/adapters/config/env';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import request from 'supertest';
import { COMMAND_PATHS, DEFAULT_PORTS, ROLES, servedBy } from '../app/roles';
import { PUBLIC_PATHS, PUBLIC_PREFIXES } from '../shared/adapters/http/app';
import { CONSOLE_PATH } from '../read-api/console/route';
import { COMPONENTS_PATH, KIT_PATH } from '../read-api/kit/route';
import { startService } from '../app/service';
import { backing } from './support/backing';
import { eventually, startServerProcess, stopProcess, type ChildServer } from './support/process';
import { KEYS, tempDir, writeKeysFile } from './support/service';

const ROOT = path.resolve(__dirname, '..');

/** The ingress's directives (its comments left out). */
const INGRESS = fs.readFileSync(path.join(ROOT, 'deploy', 'ingress.conf'), 'utf8').replace(/#.*$/gm, '');

/**
 * `location = /path { [directives] proxy_pass $role; }` and `location /prefix/ { ... }` of the ingress, each
 * variable resolved by its `set $role http://role:8080;` to the compose service it names.
 */
function ingressTable(): { exact: Map<string, string>; prefixes: [string, string][] } {
  const services = new Map([...INGRESS.matchAll(/set\s+\$(\w+)\s+http:\/\/(\w+):8080;/g)].map((m) => [m[1], m[2]]));
  const exact = new Map<string, string>();
  const prefixes: [string, string][] = [];
  for (const m of INGRESS.matchAll(/location\s+(=\s+)?(\S+)\s*\{[^}]*?proxy_pass\s+\$(\w+);\s*\}/g)) {
    const service = services.get(m[3]);
    if (!service) throw new Error(`ingress: $${m[3]} is not set`);
    if (m[1]) exact.set(m[2], service);
    else prefixes.push([m[2], service]);
  }
  return { exact, prefixes: prefixes.sort((a, b) => b[0].length - a[0].length) };
}

/** Whether version `a` (e.g. 26.0.3) is `b` or later; missing parts count as 0. */
function atLeast(a: string, b: string): boolean {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  return true;
}

/** A compose value with its `${NAME:?message}` variables given these values (compose reads them from `.env`). */
const SECRETS: Record<string, string> = {
  MONGO_PASSWORD: 'mongo-pw',
  MONGO_ROOT_PASSWORD: 'root-pw',
  REDIS_PASSWORD: 'redis-pw',
};
function resolved(value: string): string {
  return value.replace(/\$\{(\w+)(:\?[^}]*)?\}/g, (_m, name: string) => {
    if (!(name in SECRETS)) throw new Error(`compose variable ${name} has no test value`);
    return SECRETS[name];
  });
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
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining(['kurrentdb', 'mongo', 'redis', 'command', 'read', 'projector', 'ingress']),
    );
    for (const role of ['command', 'read', 'projector']) {
      const s = services[role];
      // node itself, so that docker stop's SIGTERM reaches the service (npm would not pass it on).
      expect(s.command).toEqual(['node', '--import', 'tsx', 'app/main.ts', role]);
      expect(s.environment).toMatchObject({
        EVENTSTORE_URL: expect.stringMatching(/^kurrentdb:\/\/kurrentdb:2113/),
        PORT: '8080',
      });
      // The service's own users, their passwords required from .env.
      const mongo = new URL(resolved(s.environment.MONGO_URL));
      expect([mongo.host, mongo.username, mongo.password]).toEqual(['mongo:27017', 'gamification', 'mongo-pw']);
      const redis = new URL(resolved(s.environment.REDIS_URL));
      expect([redis.host, redis.password]).toEqual(['redis:6379', 'redis-pw']);
      expect(s.environment.MONGO_URL).toContain('${MONGO_PASSWORD:?');
      expect(s.environment.REDIS_URL).toContain('${REDIS_PASSWORD:?');
      // A MongoDB that is away gives up in seconds.
      expect(mongo.searchParams.get('serverSelectionTimeoutMS')).toBe('3000');
      // Readiness of the role itself on its port, with time to start first.
      expect(s.healthcheck.test.join(' ')).toContain("process.env.PORT+'/health/ready'");
      expect(s.healthcheck.start_period).toBeDefined();
      expect(Object.keys(s.depends_on)).toEqual(expect.arrayContaining(['kurrentdb', 'mongo']));
    }
    // Redis for every role: jobs (command), the leaderboards' standings (read and projector, beside MongoDB's documents).
    for (const role of ['command', 'read', 'projector'])
      expect([role, Object.keys(services[role].depends_on)]).toEqual([role, expect.arrayContaining(['redis'])]);
    for (const name of ['kurrentdb', 'mongo', 'redis', 'ingress']) expect(services[name].healthcheck).toBeDefined();
    // The ingress is healthy when a request gets through it, not merely when its file parses.
    expect(services.ingress.healthcheck.test.join(' ')).toContain('http://localhost:8080/health');
    // The read role serves the read models the projector keeps: started, not caught up, so that a
    // long catch-up (longer than the healthcheck's start period) holds up nothing.
    expect(services.read.depends_on.projector).toEqual({ condition: 'service_started' });
    for (const [name, service] of Object.entries<{ depends_on?: object }>(services))
      for (const [on, condition] of Object.entries(service.depends_on ?? {}))
        if (on === 'projector') expect([name, condition]).toEqual([name, { condition: 'service_started' }]);
    for (const name of ['kurrentdb', 'mongo', 'redis'])
      expect(services[name].volumes[0]).toMatch(
        new RegExp(`^${Object.keys(compose.volumes).find((v) => services[name].volumes[0].startsWith(v))}:`),
      );
    expect(services.redis.command).toEqual(expect.arrayContaining(['--maxmemory-policy', 'noeviction']));
    // Every image a pinned release, never a moving tag.
    // Every image a pinned release, never a moving tag.
    for (const [name, service] of Object.entries<{ image?: string }>(services)) {
      if (service.image)
        expect([name, service.image.split(':').pop()]).toEqual([name, expect.stringMatching(/^\d+\.\d+\.\d+$/)]);
    }
    expect(services.ingress.ports).toEqual(['8080:8080']);
    expect(services.ingress.volumes[0]).toMatch(/^\.\/deploy\/ingress\.conf:/);
    expect(services.embedded.command).toEqual(['node', '--import', 'tsx', 'app/main.ts', 'all']);
  });

  it('compose restarts every service, publishes no KurrentDB port, and pins a KurrentDB that needs no workaround (26.0.3 or later)', () => {
    const services = compose.services as Record<string, { restart?: string; ports?: string[]; image?: string }>;
    for (const [name, service] of Object.entries(services))
      expect([name, service.restart]).toEqual([name, 'unless-stopped']);
    // Insecure (no TLS, no users): only the other containers may reach it.
    expect(services.kurrentdb.ports).toBeUndefined();
    const published = Object.entries(services)
      .filter(([, service]) => service.ports)
      .map(([name]) => name);
    expect(published.sort()).toEqual(['embedded', 'ingress']);
    expect(atLeast(String(services.kurrentdb.image).split(':').pop()!, '26.0.3')).toBe(true);
  });

  it('compose asks passwords of MongoDB and Redis (required from .env), mounts no public example keys, and runs patched images', () => {
    const services = compose.services;
    // MongoDB: a root password, and the service's own user made from the password it is given.
    expect(services.mongo.environment).toMatchObject({
      MONGO_INITDB_ROOT_USERNAME: 'root',
      MONGO_INITDB_ROOT_PASSWORD: expect.stringMatching(/^\$\{MONGO_ROOT_PASSWORD:\?.+\}$/),
      MONGO_PASSWORD: expect.stringMatching(/^\$\{MONGO_PASSWORD:\?.+\}$/),
    });
    expect(services.mongo.volumes).toContain(
      './deploy/mongo-init.js:/docker-entrypoint-initdb.d/gamification-user.js:ro',
    );
    const init = fs.readFileSync(path.join(ROOT, 'deploy', 'mongo-init.js'), 'utf8');
    expect(init).toMatch(/createUser\(\{\s*user: 'gamification',\s*pwd: process\.env\.MONGO_PASSWORD,/);
    // Redis: every client gives the password; its healthcheck too.
    const requirepass = services.redis.command.indexOf('--requirepass');
    expect(services.redis.command[requirepass + 1]).toMatch(/^\$\{REDIS_PASSWORD:\?.+\}$/);
    expect(services.redis.healthcheck.test.join(' ')).toContain('-a "$$REDIS_PASSWORD"');
    // The API keys: the operator's own file, never the example (its keys are public), never made up by Docker.
    for (const [name, service] of Object.entries<{ volumes?: unknown[] }>(services))
      expect([name, JSON.stringify(service.volumes ?? [])]).not.toEqual([name, expect.stringContaining('example')]);
    for (const role of ['command', 'read', 'projector'])
      expect(services[role].volumes).toEqual([
        {
          type: 'bind',
          source: './deploy/api-keys.yaml',
          target: '/config/api-keys.yaml',
          read_only: true,
          bind: { create_host_path: false },
        },
      ]);
    const ignored = fs.readFileSync(path.join(ROOT, '.gitignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['.env', 'deploy/api-keys.yaml']));
    // Patched: MongoDB 7.0 with CVE-2025-14847 (7.0.28) and CVE-2026-6914 (7.0.32) fixed; Redis 7.2 with CVE-2025-49844 (7.2.11).
    const [mongo, redis] = ['mongo', 'redis'].map((name) => String(services[name].image).split(':').pop()!);
    expect([mongo.startsWith('7.0.'), atLeast(mongo, '7.0.32')]).toEqual([true, true]);
    expect([redis.startsWith('7.2.'), atLeast(redis, '7.2.11')]).toEqual([true, true]);
  });

  it('the image runs node itself as a user of no privilege, with a liveness healthcheck, on a pinned Node 22 that meets engines, installed from the lock file, without .git', () => {
    const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^CMD \["node", "--import", "tsx", "app\/main\.ts", "all"\]$/m);
    // Liveness, not readiness: a long start (catching up with the log) is not a reason to restart it.
    expect(dockerfile).toMatch(/^HEALTHCHECK .*--start-period=60m .*process\.env\.PORT\+'\/health'\)/m);
    // Not root, from before the service runs.
    expect([...dockerfile.matchAll(/^USER (\S+)$/gm)].map((m) => m[1])).toEqual(['node']);
    expect(dockerfile.indexOf('USER node')).toBeLessThan(dockerfile.indexOf('CMD '));
    const dockerignore = fs.readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n');
    expect(dockerignore).toEqual(expect.arrayContaining(['.git', '.env', 'deploy/api-keys.yaml', 'node_modules']));
    // Reached from outside the container: every interface (npm start: loopback only).
    expect(dockerfile).toMatch(/^ENV HOST=0\.0\.0\.0$/m);
    const node = /^FROM node:(\d+\.\d+\.\d+)-\w+$/m.exec(dockerfile)?.[1];
    expect(node).toBeDefined();
    // Node 20 reached its end of life on 2026-04-30: 22 LTS, with the June 2026 security releases.
    expect([node!.split('.')[0], atLeast(node!, '22.23.0')]).toEqual(['22', true]);
    const engines = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).engines.node as string;
    expect(atLeast(node!, engines.replace(/^>=/, ''))).toBe(true);
    expect(dockerfile).toMatch(/^RUN npm ci\b/m);
  });

  it("package.json's engines asks for at least the Node every dependency needs", () => {
    const own = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      engines: { node: string };
      dependencies: Record<string, string>;
    };
    const floor = /^>=(\d+\.\d+\.\d+)$/.exec(own.engines.node)?.[1];
    expect(floor).toBeDefined();
    for (const name of Object.keys(own.dependencies)) {
      const needs = (
        JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
          engines?: { node?: string };
        }
      ).engines?.node;
      const minimum = needs && /^>=\s*(\d+(?:\.\d+){0,2})/.exec(needs)?.[1];
      if (minimum) expect([name, needs, atLeast(floor!, minimum)]).toEqual([name, needs, true]);
    }
  });

  it('every npm script runs: the start scripts exec node (signals reach it), and every file a script names exists', () => {
    const npmScripts: Record<string, string> = JSON.parse(
      fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'),
    ).scripts;
    for (const [script, role] of [
      ['start', 'all'],
      ['start:command', 'command'],
      ['start:read', 'read'],
      ['start:projector', 'projector'],
    ]) {
      expect([script, npmScripts[script]]).toEqual([script, `exec node --import tsx app/main.ts ${role}`]);
    }
    for (const [script, line] of Object.entries(npmScripts)) {
      for (const file of line.split(/\s+/).filter((word) => /\.(ts|js|json)$/.test(word)))
        expect([script, file, fs.existsSync(path.join(ROOT, file))]).toEqual([script, file, true]);
    }
  });

  it('the ingress routes every registered path to the role that serves it, and the public paths too', async () => {
    const service = await startService({
      config: readRunConfig({ DATA_DIR: tempDir(), API_KEYS_FILE: writeKeysFile(tempDir()) }),
      log: pino({ level: 'silent' }),
    });
    try {
      const apiPaths = service.routes.map((r) => r.path);
      expect(apiPaths.length).toBeGreaterThan(20);
      for (const p of apiPaths) expect([p, ingressRole(p.replace(/:\w+/g, 'x'))]).toEqual([p, servedBy(p)]);
      for (const p of COMMAND_PATHS) expect([p, ingressRole(p.replace(/:\w+/g, 'x'))]).toEqual([p, 'command']);
      // Served by every role without a key: the ingress sends them to one, and they answer there.
      for (const p of Object.values(PUBLIC_PATHS)) {
        expect([p, ingressRole(p)]).toEqual([p, 'read']);
        expect([p, (await request(service.app).get(p)).status]).toEqual([p, 200]);
      }
      // Whole folders of public files: a prefix location of their own, to the same role.
      for (const prefix of Object.values(PUBLIC_PREFIXES)) {
        expect(ingressTable().prefixes).toContainEqual([prefix, 'read']);
        const file = `${prefix}swagger-ui.css`;
        expect([file, ingressRole(file), (await request(service.app).get(file)).status]).toEqual([file, 'read', 200]);
      }
    } finally {
      await service.close();
    }
  });

  it("the ingress finds recreated role containers again, and keeps the client's request id", () => {
    // Docker's DNS, looked up again at most 10 s after the last time; upstreams only through variables.
    expect(INGRESS).toMatch(/^resolver 127\.0\.0\.11 valid=10s\b/m);
    expect(INGRESS).not.toMatch(/\bupstream\b|proxy_pass\s+http:/);
    // X-Request-Id: the client's, else one nginx makes.
    const map = /map \$http_x_request_id \$(\w+) \{\s*default \$http_x_request_id;\s*""\s+\$request_id;\s*\}/.exec(
      INGRESS,
    );
    expect(map).not.toBeNull();
    expect(INGRESS).toContain(`proxy_set_header X-Request-Id $${map![1]};`);
  });

  it('gives each role its own default port, so that roles started side by side do not collide; PORT wins', () => {
    expect(DEFAULT_PORTS.all).toBe(8080);
    expect(new Set(Object.values(DEFAULT_PORTS)).size).toBe(ROLES.length);
    expect(readRunConfig({}, DEFAULT_PORTS.command).port).toBe(8081);
    expect(readRunConfig({ PORT: '9000' }, DEFAULT_PORTS.read).port).toBe(9000);
  });

  it('the ingress sends the console, its page and its files, to the role that serves it', () => {
    expect(servedBy(CONSOLE_PATH)).toBe('read');
    for (const p of [CONSOLE_PATH, `${CONSOLE_PATH}/`, `${CONSOLE_PATH}/main.js`])
      expect([p, ingressRole(p)]).toEqual([p, 'read']);
  });

  it("the ingress sends the web components' demo page and module to the role that serves them", () => {
    expect(servedBy(KIT_PATH)).toBe('read');
    for (const p of [KIT_PATH, COMPONENTS_PATH, `${KIT_PATH}/kit.js`]) expect([p, ingressRole(p)]).toEqual([p, 'read']);
  });
});

/** Response bodies are checked field by field. */
const json = async (res: Response): Promise<any> => res.json();

describe('the command and read roles as separate processes', () => {
  const stores = backing();
  let roles: ChildServer[] = [];
  const dataDir = tempDir();

  afterAll(async () => {
    await Promise.all(roles.map((r) => stopProcess(r.child, 'SIGTERM')));
    await stores.release();
  });

  it('an action processed through the command role is visible through the read role within the bounded wait', async () => {
    const env = {
      DATA_DIR: dataDir,
      API_KEYS_FILE: writeKeysFile(dataDir),
      MIN_POSITION_WAIT_MS: '5000',
      ...stores.env,
    };
    // The command role publishes the catalog first; the read role follows the published one.
    const command = await startServerProcess(env, { role: 'command' });
    const read = await startServerProcess(env, { role: 'read' });
    roles = [command, read];
    const base = (p: string) => (ingressRole(p) === 'command' ? command.url : read.url);
    const headers = { AuthKey: KEYS.server, 'Content-Type': 'application/json' };

    const playerId = randomUUID();
    const processPath = '/v1/action/process';
    const res = await fetch(base(processPath) + processPath, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        name: 'purchase',
        referenceId: `roles-${playerId}`,
        playerId,
        details: [{ name: 'amount', value: '120' }],
      }),
    });
    const body = await json(res);
    expect(body.code).toBe(200);
    const position = res.headers.get('X-Position');
    expect(Number(position)).toBeGreaterThan(0);

    // Reads of the player stream see the write at once; read models after waiting for its position.
    const profilePath = '/v1/player/profile';
    const profile = await json(
      await fetch(base(profilePath) + profilePath, { method: 'POST', headers, body: JSON.stringify({ playerId }) }),
    );
    expect(profile.data.points).toBe(body.data.earnedPoints);

    const boards = await json(await fetch(`${base('/v1/admin/leaderboards')}/v1/admin/leaderboards`, { headers }));
    const board = boards.data[0].uid as string;
    const standingsPath = `/v1/admin/leaderboards/${board}`;
    const standings = await json(
      await fetch(`${base(standingsPath)}${standingsPath}?playerId=${playerId}`, {
        headers: { ...headers, 'X-Min-Position': position! },
      }),
    );
    expect(standings.data[0].player).toMatchObject({ userId: playerId, points: body.data.earnedPoints });

    // A read asking for a position the read models have not reached in time: 503, never an older answer.
    const beyond = await fetch(`${base(standingsPath)}${standingsPath}?playerId=${playerId}`, {
      headers: { ...headers, 'X-Min-Position': String(Number(position) + 1_000_000) },
    });
    expect([beyond.status, beyond.headers.get('Retry-After'), await json(beyond)]).toEqual([
      503,
      '1',
      { code: 503, data: `Read models behind: position ${Number(position) + 1_000_000} is not projected yet; retry` },
    ]);

    // A path sent to a role that does not serve it says which role does (the ingress routes it there).
    const misrouted = await fetch(read.url + processPath, { method: 'POST', headers, body: '{}' });
    expect([misrouted.status, await json(misrouted)]).toEqual([
      404,
      { code: 404, data: 'Not served here: POST /v1/action/process is served by the command role' },
    ]);
    const misread = await fetch(`${command.url}${standingsPath}`, { headers });
    expect([misread.status, await json(misread)]).toEqual([
      404,
      { code: 404, data: `Not served here: GET ${standingsPath} is served by the read role` },
    ]);
  }, 60_000);

  it('the read role serves the console; the command role does not', async () => {
    const [command, read] = roles;
    const page = await fetch(read.url + CONSOLE_PATH);
    expect([page.status, page.headers.get('Content-Type')]).toEqual([200, expect.stringMatching(/^text\/html/)]);
    expect((await fetch(command.url + CONSOLE_PATH)).status).toBe(404);
  });

  it('SIGTERM lets the request in flight finish, then the process exits cleanly', async () => {
    const [command] = roles;
    const playerId = randomUUID();
    const actions = Array.from({ length: 100 }, (_, i) => ({
      name: 'login',
      referenceId: `term-${playerId}-${i}`,
      playerId,
    }));
    const inFlight = fetch(`${command.url}/v1/action/process`, {
      method: 'POST',
      headers: { AuthKey: KEYS.server, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'login', referenceId: `term-${playerId}`, playerId, actions }),
    });
    // In flight: the server has started writing the batch's events.
    const log = new SqliteEventStore(path.join(dataDir, 'events.sqlite'), { readonly: true });
    await eventually(async () => (await log.streamRevision(playerStream(playerId))) >= 0, 30_000, 5);
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

  it('SIGTERM with a live-feed client connected ends the stream and the process exits cleanly, without waiting for the client', async () => {
    const [, read] = roles;
    const stream = await fetch(`${read.url}/v1/feed/live?after=0`, { headers: { AuthKey: KEYS.server } });
    expect([stream.status, stream.headers.get('Content-Type')]).toEqual([200, 'text/event-stream; charset=utf-8']);
    const reader = stream.body!.getReader();
    // The first event has arrived: the stream is open and served.
    expect((await reader.read()).done).toBe(false);
    const exited = new Promise<number | null>((resolve) => read.child.once('exit', (code) => resolve(code)));
    read.child.kill('SIGTERM');
    // The client still connected and reading: the server ends its stream rather than waiting for it to leave.
    for (;;) if ((await reader.read()).done) break;
    expect(await exited).toBe(0);
  }, 30_000);
});
