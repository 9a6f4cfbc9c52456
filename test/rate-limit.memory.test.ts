import { MemoryRateLimiter } from '../shared/adapters/rate-limit/memory';
import { rateLimitContract } from './contracts/rate-limit.contract';

/** A clock that only moves when told to. */
function fakeClock(): { now: () => number; advance: (ms: number) => Promise<void> } {
  let now = 1_700_000_000_000;
  return { now: () => now, advance: async (ms) => void (now += ms) };
}

rateLimitContract('MemoryRateLimiter', async () => {
  const clock = fakeClock();
  return { limiter: new MemoryRateLimiter({ now: clock.now }), advance: clock.advance };
});

describe('MemoryRateLimiter specifics', () => {
  it('drops buckets once they have refilled, so idle keys do not pile up', async () => {
    const clock = fakeClock();
    const limiter = new MemoryRateLimiter({ now: clock.now });
    await limiter.take('idle', { perSecond: 1, burst: 10 }); // full again a second later
    await clock.advance(59_000);
    await limiter.take('busy', { perSecond: 0.01, burst: 10 }); // full again 100 s later
    expect(limiter.size).toBe(2);

    // The sweep (once a minute) drops `idle`, which has refilled, and keeps `busy`.
    await clock.advance(1_000);
    await limiter.take('fresh', { perSecond: 1, burst: 10 });
    expect(limiter.size).toBe(2);
    expect(await limiter.take('idle', { perSecond: 1, burst: 1 })).toEqual({ allowed: true });
    await limiter.close();
  });
});
