/**
 * /health/ready asks the backends each role works with, each within a short timeout, and says
 * which failed and why. The servers here are ones that cannot answer (nothing listens on the
 * port): a role whose store is down is not ready.
 */
import pino from 'pino';
import request from 'supertest';
import { openRateLimiter } from '../app/adapters';
import { backendChecks, KEY_PROBE } from '../app/readiness';
import type { Role } from '../app/roles';
import { readRunConfig } from '../shared/adapters/config/env';
import { KurrentDbEventStore } from '../shared/adapters/event-store/kurrentdb';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { createHttpApp, READY_CHECK_TIMEOUT_MS, type ReadinessCheck } from '../shared/adapters/http/app';
import { ServiceMetrics } from '../shared/adapters/metrics';
import { StoreUnavailableError } from '../shared/adapters/event-store/port';
import { SqlitePlayerKeys } from '../shared/adapters/player-keys/sqlite';
import { FallbackRateLimiter } from '../shared/adapters/rate-limit/fallback';
import { MemoryRateLimiter } from '../shared/adapters/rate-limit/memory';
import { RedisRateLimiter } from '../shared/adapters/rate-limit/redis';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import { RankedReadStore } from '../shared/read-models/standings-redis';
import { failure } from '../domain/result';
import { freePort } from './support/process';
import { tempDir } from './support/service';

function appWith(readiness: ReadinessCheck[]) {
  return createHttpApp([], {
    metrics: new ServiceMetrics(),
    log: pino({ level: 'silent' }),
    clientDomains: new Set(),
    isStarted: () => true,
    workProblem: () => null,
    documentation: { document: {} },
    elsewhere: [],
    readiness,
    trustProxy: false,
    authorize: () => ({ ok: false, failure: failure(401, 'no key') }),
    rateLimit: async () => null,
    afterWrite: async () => undefined,
    waitForPosition: async () => true,
  });
}

describe('/health/ready', () => {
  it('is ready when every check is', async () => {
    const res = await request(
      appWith([
        { name: 'kurrentdb', problem: async () => null },
        { name: 'projections', problem: () => null },
      ]),
    ).get('/health/ready');
    expect([res.status, res.body]).toEqual([200, { code: 200, data: { status: 'ready' } }]);
  });

  it('names each check that fails and why, a check that does not answer within its timeout included', async () => {
    const startedAt = Date.now();
    const res = await request(
      appWith([
        { name: 'kurrentdb', problem: async () => null },
        { name: 'mongodb', problem: () => new Promise<string | null>(() => undefined) },
        { name: 'redis', problem: async () => 'redis unavailable: connect ECONNREFUSED' },
        { name: 'projections', problem: () => Promise.reject(new Error('boom')) },
      ]),
    ).get('/health/ready');
    expect([res.status, res.body]).toEqual([
      503,
      {
        code: 503,
        data: `Not ready: mongodb: no answer within ${READY_CHECK_TIMEOUT_MS} ms; redis: redis unavailable: connect ECONNREFUSED; projections: boom`,
      },
    ]);
    expect(Date.now() - startedAt).toBeLessThan(READY_CHECK_TIMEOUT_MS + 8000);
  });
});

describe('the backends each role checks', () => {
  const config = readRunConfig({
    DATA_DIR: tempDir(),
    EVENTSTORE_URL: 'kurrentdb://kurrentdb:2113?tls=false',
    MONGO_URL: 'mongodb://mongo:27017',
    REDIS_URL: 'redis://redis:6379',
  });
  const names = (role: Role, deliversWebhooks = false) =>
    backendChecks({
      role,
      config,
      events: new SqliteEventStore(':memory:'),
      readStore: new MemoryReadStore(),
      keys: new SqlitePlayerKeys(':memory:'),
      limiter: { take: async () => ({ allowed: true }), problem: async () => null, close: async () => undefined },
      deliversWebhooks,
    }).map((c) => c.name);

  it.each<[Role, boolean, string[]]>([
    ['all', false, ['kurrentdb', 'mongodb', 'player keys', 'redis']],
    // The keys are in MongoDB: a command role that keeps no read models there still needs it.
    ['command', false, ['kurrentdb', 'player keys', 'redis']],
    ['command', true, ['kurrentdb', 'mongodb', 'player keys', 'redis']],
    // With MongoDB the leaderboards' standings are in Redis: read and written there (its rate limits alone would go on in the process).
    ['read', false, ['kurrentdb', 'mongodb', 'player keys', 'redis']],
    ['projector', false, ['kurrentdb', 'mongodb', 'player keys', 'redis']],
  ])('%s (delivering webhooks: %s): %j', (role, webhooks, expected) => {
    expect(names(role, webhooks)).toEqual(expected);
  });

  it('none on the embedded stores: they are the process own files', () => {
    const embedded = readRunConfig({ DATA_DIR: tempDir() });
    expect(
      backendChecks({
        role: 'all',
        config: embedded,
        events: new SqliteEventStore(':memory:'),
        readStore: new MemoryReadStore(),
        keys: new SqlitePlayerKeys(':memory:'),
        limiter: { take: async () => ({ allowed: true }), problem: async () => null, close: async () => undefined },
        deliversWebhooks: false,
      }),
    ).toEqual([]);
  });

  it("with MongoDB, a read role whose standings' Redis does not answer fails its check, with the reason", async () => {
    const closed = await freePort();
    const readStore = RankedReadStore.connect(new MemoryReadStore(), `redis://127.0.0.1:${closed}`, 'readiness-test:');
    const config = readRunConfig({
      DATA_DIR: tempDir(),
      MONGO_URL: 'mongodb://mongo:27017',
      REDIS_URL: `redis://127.0.0.1:${closed}`,
    });
    try {
      const checks = backendChecks({
        role: 'read',
        config,
        events: new SqliteEventStore(':memory:'),
        readStore,
        keys: new SqlitePlayerKeys(':memory:'),
        limiter: { take: async () => ({ allowed: true }), problem: async () => null, close: async () => undefined },
        deliversWebhooks: false,
      }).filter((c) => c.name === 'redis');
      const res = await request(appWith(checks)).get('/health/ready');
      expect([res.status, res.body.data]).toEqual([
        503,
        expect.stringMatching(/^Not ready: redis: standings in redis unavailable: .+/),
      ]);
    } finally {
      await readStore.close();
    }
  });

  it('a KurrentDB or a Redis that does not answer fails its check, with the reason', async () => {
    const closed = await freePort();
    const events = new KurrentDbEventStore(`kurrentdb://127.0.0.1:${closed}?tls=false&defaultDeadline=500`);
    const limiter = new RedisRateLimiter(`redis://127.0.0.1:${closed}`, 'readiness-test:');
    const unreachable = readRunConfig({
      DATA_DIR: tempDir(),
      EVENTSTORE_URL: `kurrentdb://127.0.0.1:${closed}?tls=false`,
      REDIS_URL: `redis://127.0.0.1:${closed}`,
    });
    try {
      const res = await request(
        appWith(
          backendChecks({
            role: 'command',
            config: unreachable,
            events,
            readStore: new MemoryReadStore(),
            keys: new SqlitePlayerKeys(':memory:'),
            limiter,
            deliversWebhooks: false,
          }),
        ),
      ).get('/health/ready');
      expect(res.status).toBe(503);
      expect(res.body.data).toMatch(/^Not ready: kurrentdb: event store unavailable: .+; redis: .*redis/);
    } finally {
      await limiter.close();
      await events.close();
    }
  });
});

describe('the player keys check', () => {
  it('a key store that does not answer fails it, with the reason; it asks for a key no player has', async () => {
    const asked: string[] = [];
    const keys = {
      getOrCreate: async () => Buffer.alloc(32),
      get: async (playerId: string) => {
        asked.push(playerId);
        throw new StoreUnavailableError('key store unavailable: connection refused');
      },
      delete: async () => undefined,
      close: async () => undefined,
    };
    const config = readRunConfig({ DATA_DIR: tempDir(), MONGO_URL: 'mongodb://mongo:27017' });
    const checks = backendChecks({
      role: 'command',
      config,
      events: new SqliteEventStore(':memory:'),
      readStore: new MemoryReadStore(),
      keys,
      limiter: { take: async () => ({ allowed: true }), problem: async () => null, close: async () => undefined },
      deliversWebhooks: false,
    });
    const res = await request(appWith(checks)).get('/health/ready');
    expect([res.status, res.body.data]).toEqual([
      503,
      'Not ready: player keys: key store unavailable: connection refused',
    ]);
    expect(asked).toEqual([KEY_PROBE]);
  });
});

describe("the read role's rate limits while Redis is away", () => {
  it('are kept in the process, said once each way, never a 503', async () => {
    const closed = await freePort();
    const said: [boolean, string][] = [];
    const limiter = new FallbackRateLimiter(
      new RedisRateLimiter(`redis://127.0.0.1:${closed}`, 'fallback-test:'),
      new MemoryRateLimiter(),
      (fallen, reason) => said.push([fallen, reason]),
    );
    try {
      // Each take waits for Redis to refuse; a rate this slow refills nothing meanwhile.
      const setting = { perSecond: 0.001, burst: 2 };
      const taken = [];
      for (let i = 0; i < 3; i++) taken.push(await limiter.take('app', setting));
      expect(taken).toEqual([
        { allowed: true },
        { allowed: true },
        { allowed: false, retryAfterSeconds: expect.any(Number) },
      ]);
      expect(said).toEqual([[true, expect.stringMatching(/^rate limiter: /)]]);
      expect(await limiter.problem()).toBeNull();
    } finally {
      await limiter.close();
    }
  });

  it('the read role opens them so; the command role, which needs Redis for its jobs, does not', async () => {
    const config = readRunConfig({ DATA_DIR: tempDir(), REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    const log = pino({ level: 'silent' });
    const read = openRateLimiter(config, 'read', log);
    const command = openRateLimiter(config, 'command', log);
    try {
      expect(await read.take('app', { perSecond: 1, burst: 1 })).toEqual({ allowed: true });
      await expect(command.take('app', { perSecond: 1, burst: 1 })).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await Promise.all([read.close(), command.close()]);
    }
  });
});
