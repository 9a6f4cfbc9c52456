/**
 * What a service under test runs on besides its embedded stores. In the "redis" test project
 * (jest.config.js) its jobs and rate limits go to the shared Redis, under a key prefix of its own
 * that is deleted afterwards; in the "embedded" project, nothing: everything stays in process.
 */
import { randomUUID } from 'node:crypto';
import { deleteRedisKeys, TEST_REDIS_URL } from './redis';

export const SERVICES_ON_REDIS = (globalThis as { SERVICES_ON_REDIS?: boolean }).SERVICES_ON_REDIS === true;

export interface Backing {
  /** The service's environment for it. */
  env: Record<string, string>;
  /** Deletes what the service left there; after the service (every process of it) has stopped. */
  release(): Promise<void>;
}

export function backing(): Backing {
  if (!SERVICES_ON_REDIS) return { env: {}, release: async () => undefined };
  const prefix = `test-service-${randomUUID()}`;
  return { env: { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix }, release: () => deleteRedisKeys(`${prefix}:`) };
}
