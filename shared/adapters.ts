import path from 'node:path';
import type { RunConfig } from './config/env';
import { KurrentDbEventStore } from './event-store/kurrentdb';
import type { EventStore } from './event-store/port';
import { SqliteEventStore } from './event-store/sqlite';
import { BullMqJobScheduler } from './jobs/bullmq';
import { SqliteJobScheduler } from './jobs/embedded';
import type { JobScheduler } from './jobs/port';
import type { Logger } from './logging/logger';
import { MemoryRateLimiter } from './rate-limit/memory';
import type { RateLimiter } from './rate-limit/port';
import { RedisRateLimiter } from './rate-limit/redis';
import { MemoryReadStore } from './read-store/memory';
import { MongoReadStore } from './read-store/mongo';
import type { ReadStore } from './read-store/port';

/** Each port's adapter, chosen by decisions.md §1: a URL selects the production engine, else embedded. */
export function openEventStore(config: RunConfig): EventStore {
  return config.eventStoreUrl ? new KurrentDbEventStore(config.eventStoreUrl) : new SqliteEventStore(path.join(config.dataDir, 'events.sqlite'), { busyTimeoutMs: config.sqliteBusyTimeoutMs });
}

export async function openReadStore(config: RunConfig): Promise<ReadStore> {
  return config.mongoUrl ? MongoReadStore.connect(config.mongoUrl, config.mongoDatabase) : new MemoryReadStore();
}

/** With REDIS_URL, jobs and rate limits are shared by every process of the deployment. */
export function openJobScheduler(config: RunConfig, log: Logger): JobScheduler {
  return config.redisUrl
    ? new BullMqJobScheduler({ connection: config.redisUrl, queueName: 'jobs', prefix: config.redisPrefix, logger: log })
    : new SqliteJobScheduler(path.join(config.dataDir, 'jobs.sqlite'), { logger: log });
}

export function openRateLimiter(config: RunConfig): RateLimiter {
  return config.redisUrl ? new RedisRateLimiter(config.redisUrl, `${config.redisPrefix}:rate:`) : new MemoryRateLimiter();
}
