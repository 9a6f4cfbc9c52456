import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { StoreUnavailableError } from '../shared/rate-limit/port';
import { RedisRateLimiter } from '../shared/rate-limit/redis';
import { rateLimitContract } from './contracts/rate-limit.contract';
import { eventually, freePort, startRedisServer, stopChild } from './support/process';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Every key this file writes to the shared Redis starts with this; afterAll deletes them. */
const PREFIX = `test:rate-limit:${randomUUID()}:`;

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

  it('lets a bucket expire once it has refilled', async () => {
    const limiter = new RedisRateLimiter(REDIS_URL, PREFIX);
    try {
      await limiter.take('expiring', { perSecond: 20, burst: 2 });
      const ttl = await admin.pttl(`${PREFIX}expiring`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(50); // one token back at 20 a second
      await sleep(150);
      expect(await admin.exists(`${PREFIX}expiring`)).toBe(0);
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
