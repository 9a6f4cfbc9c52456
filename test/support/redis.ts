/**
 * The Redis the tests share (REDIS_URL, default 127.0.0.1:6379). Every test writes under a key
 * prefix of its own and deletes those keys afterwards: the shared server is never flushed.
 */
import { Redis } from 'ioredis';

export const TEST_REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** Deletes every key of the shared Redis that starts with `prefix`. */
export async function deleteRedisKeys(prefix: string, url = TEST_REDIS_URL): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    for await (const batch of redis.scanStream({ match: `${prefix}*`, count: 1000 })) {
      if ((batch as string[]).length > 0) await redis.unlink(...(batch as string[]));
    }
  } finally {
    redis.disconnect();
  }
}
