import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { StoreUnavailableError } from '../shared/adapters/rate-limit/port';
import { RedisRateLimiter } from '../shared/adapters/rate-limit/redis';
import { rateLimitContract } from './contracts/rate-limit.contract';
import { eventually, freePort, startRedisServer, startServerProcess, stopChild, stopProcess } from './support/process';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Every key this file writes to the shared Redis starts with this; afterAll deletes them. */
const PREFIX = `test:rate-limit:${randomUUID()}:`;

/** Time passes on Redis's own clock (the script reads TIME): the contract's clock is advanced by waiting. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

let admin: Redis;

beforeAll(() => {
  admin = new Redis(REDIS_URL);
});

afterAll(async () => {
  const keys: string[] = [];
  for await (const batch of admin.scanStream({ match: `${PREFIX}*`, count: 1000 })) keys.push(...(batch as string[]));
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

rateLimitContract('RedisRateLimiter', async () => ({
  limiter: new RedisRateLimiter(REDIS_URL, PREFIX),
  advance: sleep,
}));

describe('RedisRateLimiter specifics', () => {
  it('shares one bucket between limiters (processes) on the same Redis and prefix', async () => {
    const fromUrl = new RedisRateLimiter(REDIS_URL, PREFIX);
    const client = new Redis(REDIS_URL, { enableOfflineQueue: false, commandTimeout: 1000 });
    const fromClient = new RedisRateLimiter(client, PREFIX);
    const setting = { perSecond: 1, burst: 3 };
    try {
      expect(await fromUrl.take('shared', setting)).toEqual({ allowed: true });
      expect(await fromUrl.take('shared', setting)).toEqual({ allowed: true });
      expect(await fromClient.take('shared', setting)).toEqual({ allowed: true });
      expect(await fromClient.take('shared', setting)).toMatchObject({ allowed: false });
      expect(await fromUrl.take('shared', setting)).toMatchObject({ allowed: false });
    } finally {
      await fromUrl.close();
      await fromClient.close();
      // A client passed in stays the caller's: still usable after the limiter closed.
      expect(await client.ping()).toBe('PONG');
      await client.quit();
    }
  });

  it('reports no problem to readiness while Redis answers, and one once closed', async () => {
    const limiter = new RedisRateLimiter(REDIS_URL, PREFIX);
    try {
      expect(await limiter.problem()).toBeNull();
    } finally {
      await limiter.close();
    }
    expect(await limiter.problem()).toBe('rate limiter is closed');
  });

  it('lets a bucket expire once it has refilled', async () => {
    const limiter = new RedisRateLimiter(REDIS_URL, PREFIX);
    try {
      await limiter.take('expiring', { perSecond: 20, burst: 2 });
      const ttl = await admin.pttl(`${PREFIX}expiring`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(50); // one token back at 20 a second
      await eventually(async () => expect(await admin.exists(`${PREFIX}expiring`)).toBe(0), 5000, 20);
    } finally {
      await limiter.close();
    }
  });

  describe('with a private redis-server that goes away', () => {
    let port: number;
    let server: ChildProcess | undefined;
    const setting = { perSecond: 100, burst: 100 };

    beforeEach(async () => {
      port = await freePort();
      server = await startRedisServer(port);
    });

    afterEach(async () => {
      if (server) await stopChild(server);
    });

    it('throws StoreUnavailableError within 3 s while Redis is down, and works again once it is back', async () => {
      const limiter = new RedisRateLimiter(`redis://127.0.0.1:${port}`, 'rl:');
      try {
        expect(await limiter.take('k', setting)).toEqual({ allowed: true });
        await stopChild(server!);

        const startedAt = Date.now();
        await expect(limiter.take('k', setting)).rejects.toBeInstanceOf(StoreUnavailableError);
        expect(Date.now() - startedAt).toBeLessThan(3000);

        server = await startRedisServer(port);
        await eventually(async () => expect(await limiter.take('k', setting)).toEqual({ allowed: true }), 5000, 50);
      } finally {
        await limiter.close();
      }
    });

    it('throws StoreUnavailableError within 3 s when Redis stops answering', async () => {
      const limiter = new RedisRateLimiter(`redis://127.0.0.1:${port}`, 'rl:');
      try {
        expect(await limiter.take('k', setting)).toEqual({ allowed: true });
        server!.kill('SIGSTOP');
        const startedAt = Date.now();
        await expect(limiter.take('k', setting)).rejects.toBeInstanceOf(StoreUnavailableError);
        expect(Date.now() - startedAt).toBeLessThan(3000);
        server!.kill('SIGCONT');
        await eventually(async () => expect(await limiter.take('k', setting)).toEqual({ allowed: true }), 5000, 50);
      } finally {
        await limiter.close();
      }
    });

    it('throws StoreUnavailableError promptly when Redis is down from the start', async () => {
      await stopChild(server!);
      server = undefined;
      const limiter = new RedisRateLimiter(`redis://127.0.0.1:${port}`, 'rl:');
      try {
        const startedAt = Date.now();
        await expect(limiter.take('k', setting)).rejects.toBeInstanceOf(StoreUnavailableError);
        expect(Date.now() - startedAt).toBeLessThan(3000);
      } finally {
        await limiter.close();
      }
    });
  });
});

describe('two service processes on one Redis', () => {
  // A fresh prefix of its own, like a deployment's REDIS_PREFIX; afterAll deletes it with the rest.
  const prefix = `${PREFIX}service`;
  const children: ChildProcess[] = [];
  afterAll(async () => {
    await Promise.all(children.map((child) => stopProcess(child, 'SIGTERM')));
  });

  it('share the rate limit of a key they both serve: past its burst, both refuse it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gam-rate-'));
    const keys = path.join(dir, 'keys.yaml');
    // A bucket that refills one token every 100 s: nothing comes back while the test runs.
    fs.writeFileSync(
      keys,
      'keys:\n  - { name: app, tier: Mobile, key: "mobile-key-0123456789abcdef", rateLimit: { perSecond: 0.01, burst: 4 } }\n',
    );
    const catalog = path.join(dir, 'catalog.yaml');
    fs.writeFileSync(catalog, 'version: 1\nactions: [{ uid: act-a, identifier: a, points: 1 }]\n');
    const start = async (name: string) => {
      const dataDir = path.join(dir, name);
      const started = await startServerProcess({
        DATA_DIR: dataDir,
        API_KEYS_FILE: keys,
        CATALOG_FILE: catalog,
        REDIS_URL,
        REDIS_PREFIX: prefix,
      });
      children.push(started.child);
      return started.url;
    };
    const [first, second] = await Promise.all([start('first'), start('second')]);
    const send = async (url: string) => {
      const res = await fetch(`${url}/v1/action/process`, {
        method: 'POST',
        headers: { AuthKey: 'mobile-key-0123456789abcdef', 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'a', referenceId: randomUUID(), playerId: randomUUID() }),
      });
      return res.status;
    };
    const answers = [];
    for (const url of [first, second, first, second, first, second]) answers.push(await send(url));
    // Each process alone would have let four through.
    expect(answers).toEqual([200, 200, 200, 200, 429, 429]);
    expect(Number(await admin.exists(`${prefix}:rate:app`))).toBe(1);
  }, 120_000);
});
