/**
 * What a service under test runs on besides its embedded stores. In the "redis" test project
 * (jest.config.js) its jobs and rate limits go to the shared Redis, under a key prefix of its own
 * that is deleted afterwards; in the "embedded" project, nothing: everything stays in process.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { deleteRedisKeys, TEST_REDIS_URL } from './redis';

export const SERVICES_ON_REDIS = (globalThis as { SERVICES_ON_REDIS?: boolean }).SERVICES_ON_REDIS === true;

export interface Backing {
  /** The service's environment for it. */
  env: Record<string, string>;
  /** Deletes what the service left there; after the service (every process of it) has stopped. */
  release(): Promise<void>;
  /**
   * For a test that moves a stopped service's clock on (test/support/shifted-clock.cjs): moves on
   * what Redis counts in its own time too, as far as BullMQ's recovery of a job whose process was
   * killed mid-run goes. Each check for stalled jobs leaves a mark for one check interval, during
   * which no other worker checks: deleted, the restarted worker checks as it starts and finds the
   * job cut off, and its next check, one interval later, runs it again (rather than two
   * intervals later). Nothing to do embedded, where the claims follow the service's clock.
   */
  expireStalledChecks(): Promise<void>;
}

export function backing(): Backing {
  if (!SERVICES_ON_REDIS)
    return { env: {}, release: async () => undefined, expireStalledChecks: async () => undefined };
  const prefix = `test-service-${randomUUID()}`;
  return {
    env: { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix },
    release: () => deleteRedisKeys(`${prefix}:`),
    expireStalledChecks: async () => {
      const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
      try {
        // BullMQ's key for the mark, one per queue.
        for await (const marks of redis.scanStream({ match: `${prefix}:*:stalled-check`, count: 1000 })) {
          if ((marks as string[]).length > 0) await redis.unlink(...(marks as string[]));
        }
      } finally {
        redis.disconnect();
      }
    },
  };
}
