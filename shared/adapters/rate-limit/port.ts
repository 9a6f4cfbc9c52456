/**
 * The rate limiter port (docs/api.md, "Limits"): a token bucket per key, refused requests get a
 * 429 with `Retry-After` (§2). In memory for one process; on Redis when several processes
 * must share one bucket. The Redis adapter throws `StoreUnavailableError` (503) when Redis
 * cannot be reached.
 */
export { StoreUnavailableError } from '../event-store/port';

/**
 * Bucket of capacity `burst`, refilled at `perSecond` tokens a second, full at first.
 * `perSecond` 0 means unlimited. A burst below 1 counts as 1: a bucket must hold one token
 * to let anything through.
 */
export interface RateLimitSetting {
  perSecond: number;
  burst: number;
}

export type RateLimitResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface RateLimiter {
  /** Takes one token for `key`; when none is left, says after how many whole seconds (>= 1) to retry. */
  take(key: string, setting: RateLimitSetting): Promise<RateLimitResult>;
  /** Why takes would fail now (its Redis out of reach), or null; takes no token (readiness asks it). */
  problem(): Promise<string | null>;
  close(): Promise<void>;
}

/** `Retry-After` for a wait in ms: whole seconds, rounded up, at least 1. */
export function retryAfterSeconds(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}
