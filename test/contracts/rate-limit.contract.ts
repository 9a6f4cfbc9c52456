/**
 * What every RateLimiter adapter must do, written once and run against each of them. Every
 * test uses its own keys, so the suite can run against a shared Redis.
 */
import { randomUUID } from 'node:crypto';
import type { RateLimiter } from '../../shared/adapters/rate-limit/port';

export interface RateLimitFixture {
  limiter: RateLimiter;
  /** Lets `ms` pass for the limiter: moves a fake clock, or waits in real time. */
  advance(ms: number): Promise<void>;
}

export function rateLimitContract(name: string, makeFixture: () => Promise<RateLimitFixture>): void {
  describe(`RateLimiter contract: ${name}`, () => {
    let limiter: RateLimiter;
    let advance: (ms: number) => Promise<void>;
    const newKey = () => `key-${randomUUID()}`;

    /** Takes `count` tokens and returns how many were allowed. */
    async function takeMany(key: string, count: number, perSecond: number, burst: number): Promise<number> {
      let allowed = 0;
      for (let n = 0; n < count; n += 1) if ((await limiter.take(key, { perSecond, burst })).allowed) allowed += 1;
      return allowed;
    }

    beforeEach(async () => {
      ({ limiter, advance } = await makeFixture());
    });

    afterEach(async () => {
      await limiter.close();
    });

    it('allows a full burst, then refuses with a retry-after of at least one second', async () => {
      const key = newKey();
      expect(await takeMany(key, 5, 1, 5)).toBe(5);
      expect(await limiter.take(key, { perSecond: 1, burst: 5 })).toEqual({ allowed: false, retryAfterSeconds: 1 });
    });

    it('rounds the retry-after up to whole seconds', async () => {
      const slow = newKey();
      expect(await limiter.take(slow, { perSecond: 0.25, burst: 1 })).toEqual({ allowed: true });
      expect(await limiter.take(slow, { perSecond: 0.25, burst: 1 })).toEqual({ allowed: false, retryAfterSeconds: 4 });

      const fast = newKey();
      // 200 ms a token: wide enough that a slow round trip to Redis does not refill one between takes.
      expect(await takeMany(fast, 3, 5, 2)).toBe(2);
      expect(await limiter.take(fast, { perSecond: 5, burst: 2 })).toMatchObject({ retryAfterSeconds: 1 });
    });

    it('refills at perSecond tokens a second', async () => {
      const key = newKey();
      expect(await takeMany(key, 4, 2, 3)).toBe(3);
      await advance(600); // 1.2 tokens back; a second token would take 400 ms more, far beyond a slow round trip
      expect(await takeMany(key, 3, 2, 3)).toBe(1);
    });

    it('never holds more than burst tokens', async () => {
      const key = newKey();
      expect(await limiter.take(key, { perSecond: 10, burst: 2 })).toEqual({ allowed: true });
      await advance(500); // 5 tokens' worth of time, capped at 2
      expect(await takeMany(key, 4, 10, 2)).toBe(2);
    });

    it('always allows when perSecond is 0', async () => {
      expect(await takeMany(newKey(), 50, 0, 1)).toBe(50);
    });

    it('counts a burst below 1 as 1', async () => {
      expect(await takeMany(newKey(), 2, 1, 0)).toBe(1);
    });

    it('keeps keys independent', async () => {
      const busy = newKey();
      const quiet = newKey();
      expect(await takeMany(busy, 3, 1, 2)).toBe(2);
      expect(await takeMany(quiet, 3, 1, 2)).toBe(2);
    });
  });
}
