/**
 * In-process token buckets: the rate limiter of a single process (no REDIS_URL). Buckets that
 * have refilled are dropped now and then, so idle keys do not pile up.
 */
import type { RateLimiter, RateLimitResult, RateLimitSetting } from './port';
import { retryAfterSeconds } from './port';

export interface MemoryRateLimiterOptions {
  /** Clock in Unix ms. Default Date.now; tests pass a fake one. */
  now?: () => number;
}

interface Bucket {
  tokens: number;
  /** When `tokens` was computed. */
  at: number;
  /** When the bucket is full again: from then on, no bucket at all means the same. */
  fullAt: number;
}

/** How often full buckets are swept out. */
const SWEEP_INTERVAL_MS = 60_000;

export class MemoryRateLimiter implements RateLimiter {
  private readonly now: () => number;
  private readonly buckets = new Map<string, Bucket>();
  private lastSweep: number;

  constructor(options: MemoryRateLimiterOptions = {}) {
    this.now = options.now ?? Date.now;
    this.lastSweep = this.now();
  }

  /** Buckets held (keys used recently enough that they have not refilled). */
  get size(): number {
    return this.buckets.size;
  }

  async take(key: string, setting: RateLimitSetting): Promise<RateLimitResult> {
    if (setting.perSecond <= 0) return { allowed: true };
    const now = this.now();
    this.sweep(now);
    const capacity = Math.max(1, setting.burst);
    const bucket = this.buckets.get(key);
    // A clock that went back refills nothing rather than taking tokens away.
    const elapsedMs = bucket ? Math.max(0, now - bucket.at) : 0;
    let tokens = bucket ? Math.min(capacity, bucket.tokens + (elapsedMs * setting.perSecond) / 1000) : capacity;
    const allowed = tokens >= 1;
    if (allowed) tokens -= 1;
    const fullAt = now + ((capacity - tokens) * 1000) / setting.perSecond;
    this.buckets.set(key, { tokens, at: now, fullAt });
    if (allowed) return { allowed: true };
    return { allowed: false, retryAfterSeconds: retryAfterSeconds(((1 - tokens) * 1000) / setting.perSecond) };
  }

  async problem(): Promise<string | null> {
    return null;
  }

  async close(): Promise<void> {
    this.buckets.clear();
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    for (const [key, bucket] of this.buckets) if (bucket.fullAt <= now) this.buckets.delete(key);
  }
}
