/**
 * Token buckets in Redis, shared by every process that uses the same Redis and prefix. One
 * Lua script reads, refills, takes and writes a bucket atomically, on Redis's own clock
 * (TIME), so processes with skewed clocks still agree. A bucket expires once it would be full
 * again, since a missing bucket counts as a full one.
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { RateLimiter, RateLimitResult, RateLimitSetting } from './port';
import { retryAfterSeconds, StoreUnavailableError } from './port';

export interface RedisRateLimiterOptions {
  /**
   * How long take() waits for the first connection to Redis before StoreUnavailableError.
   * Once connected, a lost connection fails take() at once until it is back. Default 1000.
   */
  connectWaitMs?: number;
}

/**
 * KEYS[1]: the bucket, a hash {tokens, at (ms)}. ARGV: tokens per second, capacity.
 * Returns {1, 0} when a token was taken, {0, ms until one is back} when not.
 */
const TAKE_SCRIPT = `
local rate = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = capacity
if bucket[1] then
  local elapsed = math.max(0, now - tonumber(bucket[2]))
  tokens = math.min(capacity, tonumber(bucket[1]) + elapsed * rate / 1000)
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tokens, 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) * 1000 / rate))
if allowed == 1 then
  return {1, 0}
end
return {0, math.ceil((1 - tokens) * 1000 / rate)}
`;

const TAKE_SHA = createHash('sha1').update(TAKE_SCRIPT).digest('hex');

/** Error replies meaning Redis cannot serve right now (loading, failing over), not a bug here. */
const UNAVAILABLE_REPLY = /^(LOADING|BUSY|MASTERDOWN|READONLY|CLUSTERDOWN|TRYAGAIN)\b/;

export class RedisRateLimiter implements RateLimiter {
  private readonly client: Redis;
  /** Only a client made here from a URL is closed by close(); a passed one belongs to the caller. */
  private readonly ownsClient: boolean;
  private readonly connectWaitMs: number;
  private connectedOnce: boolean;
  private closed = false;

  /**
   * `redis` is a URL, or an ioredis client the caller configured (it should fail fast the same
   * way: `enableOfflineQueue: false`, a `commandTimeout`). Keys are `prefix + key`.
   */
  constructor(
    redis: string | Redis,
    private readonly prefix: string,
    options: RedisRateLimiterOptions = {},
  ) {
    this.connectWaitMs = options.connectWaitMs ?? 1000;
    if (typeof redis === 'string') {
      this.client = new Redis(redis, {
        // While Redis is away a take fails at once instead of waiting in a queue...
        enableOfflineQueue: false,
        // ...one in flight when the connection drops fails too (resent, it could take twice)...
        maxRetriesPerRequest: 0,
        autoResendUnfulfilledCommands: false,
        // ...and a server that stops answering cannot hold a request for long.
        commandTimeout: 1000,
        connectTimeout: 1000,
        // Reconnects forever, at most a second apart, so takes work again soon after Redis is back.
        retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
        // Closing a connection that never came up would otherwise keep a 2 s timer alive.
        disconnectTimeout: 200,
      });
      // Connection errors reach callers as StoreUnavailableError from take(); without a
      // listener ioredis would also print every reconnect failure.
      this.client.on('error', () => {});
      this.ownsClient = true;
    } else {
      this.client = redis;
      this.ownsClient = false;
    }
    this.connectedOnce = this.client.status === 'ready';
    if (!this.connectedOnce) this.client.once('ready', () => (this.connectedOnce = true));
  }

  async take(key: string, setting: RateLimitSetting): Promise<RateLimitResult> {
    if (setting.perSecond <= 0) return { allowed: true };
    if (this.closed) throw new StoreUnavailableError('rate limiter is closed');
    let reply: unknown;
    try {
      if (!this.connectedOnce) await this.firstConnection();
      reply = await this.runTake(this.prefix + key, setting.perSecond, Math.max(1, setting.burst));
    } catch (error) {
      if (error instanceof StoreUnavailableError || !isUnavailable(error)) throw error;
      throw new StoreUnavailableError(`rate limiter: redis unavailable: ${(error as Error).message}`, error);
    }
    const [allowed, waitMs] = reply as [number, number];
    return allowed === 1 ? { allowed: true } : { allowed: false, retryAfterSeconds: retryAfterSeconds(waitMs) };
  }

  async problem(): Promise<string | null> {
    if (this.closed) return 'rate limiter is closed';
    try {
      if (!this.connectedOnce) await this.firstConnection();
      await this.client.ping();
      return null;
    } catch (error) {
      return error instanceof StoreUnavailableError ? error.message : `redis unavailable: ${(error as Error).message}`;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.ownsClient) return;
    // QUIT lets replies in flight arrive; when Redis is away there is nothing to wait for.
    await this.client.quit().catch(() => this.client.disconnect());
  }

  /** Runs the script by its hash; Redis forgets scripts on restart, so then sends it whole once. */
  private async runTake(key: string, perSecond: number, capacity: number): Promise<unknown> {
    try {
      return await this.client.evalsha(TAKE_SHA, 1, key, perSecond, capacity);
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
      return this.client.eval(TAKE_SCRIPT, 1, key, perSecond, capacity);
    }
  }

  /** Waits, bounded, for a connection that has not come up yet (just after start). */
  private firstConnection(): Promise<void> {
    if (this.client.status === 'wait') this.client.connect().catch(() => {}); // a lazyConnect client
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.client.off('ready', onReady);
      };
      const onReady = () => {
        done();
        resolve();
      };
      const timer = setTimeout(() => {
        done();
        reject(new StoreUnavailableError(`rate limiter: no connection to redis within ${this.connectWaitMs} ms`));
      }, this.connectWaitMs);
      this.client.once('ready', onReady);
    });
  }
}

/**
 * Whether a failed take means "Redis unavailable" (503). Everything but an error reply comes
 * from the connection (refused, closed, timed out); of the error replies only a few do.
 */
function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'ReplyError') return UNAVAILABLE_REPLY.test(error.message);
  return true;
}
