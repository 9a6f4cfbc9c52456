import path from 'node:path';
import type { RunConfig } from '../shared/adapters/config/env';
import { KurrentDbEventStore } from '../shared/adapters/event-store/kurrentdb';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { PersonalDataCodec } from '../shared/adapters/event-store/personal-data';
import { CachedPlayerKeys } from '../shared/adapters/player-keys/cached';
import { MongoPlayerKeys } from '../shared/adapters/player-keys/mongo';
import type { PlayerKeys } from '../shared/adapters/player-keys/port';
import { SqlitePlayerKeys } from '../shared/adapters/player-keys/sqlite';
import { BullMqJobScheduler } from '../shared/adapters/jobs/bullmq';
import { SqliteJobScheduler } from '../shared/adapters/jobs/embedded';
import type { JobLogger, JobScheduler } from '../shared/adapters/jobs/port';
import type { Logger } from '../shared/adapters/logging/logger';
import type { ServiceMetrics } from '../shared/adapters/metrics';
import type { Role } from './roles';
import { MemoryRateLimiter } from '../shared/adapters/rate-limit/memory';
import type { RateLimiter } from '../shared/adapters/rate-limit/port';
import { RedisRateLimiter } from '../shared/adapters/rate-limit/redis';
import { StoreUnavailableError, type EventStore } from '../shared/adapters/event-store/port';
import { FileBackedReadStore } from '../shared/adapters/read-store/file-backed';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import { MongoReadStore } from '../shared/adapters/read-store/mongo';
import type { ReadStore } from '../shared/adapters/read-store/port';

/** Each port's adapter: its URL set selects the production engine, else the embedded one (README, "Configuration"). */
/** `onFault`: the embedded store found a lasting fault while running (its file deleted or damaged). */
export async function openEventStore(
  config: RunConfig,
  metrics: ServiceMetrics,
  onFault: (reason: string) => void,
): Promise<EventStore> {
  // The embedded file is checked (PRAGMA quick_check) before anything reads it.
  if (config.eventStoreUrl) return KurrentDbEventStore.connect(config.eventStoreUrl);
  return new SqliteEventStore(path.join(config.dataDir, 'events.sqlite'), {
    busyTimeoutMs: config.sqliteBusyTimeoutMs,
    checkIntegrity: true,
    onFault,
    onGroupCommit: (appends) => metrics.groupCommit(appends),
  });
}

/**
 * The players' keys: in MongoDB with MONGO_URL, else in `DATA_DIR/player-keys.sqlite`; the most
 * recently used kept in memory (CACHED_PLAYERS of them).
 */
export async function openPlayerKeys(config: RunConfig): Promise<CachedPlayerKeys> {
  const store: PlayerKeys = config.mongoUrl
    ? await MongoPlayerKeys.connect(config.mongoUrl, config.mongoDatabase)
    : new SqlitePlayerKeys(path.join(config.dataDir, 'player-keys.sqlite'), config.sqliteBusyTimeoutMs);
  return new CachedPlayerKeys(store, config.cachedPlayers);
}

/** The event store with the players' personal fields encrypted under their keys (closing it closes the keys). */
export function withPersonalData(events: EventStore, keys: PlayerKeys): EventStore {
  return new PersonalDataCodec(events, keys);
}

/** The embedded read models file of the all-in-one process (held by the one process that has it open). */
export const readModelsFile = (config: RunConfig): string => path.join(config.dataDir, 'read-models.sqlite');

/**
 * MongoDB with MONGO_URL. Else the all-in-one process keeps its read models in memory and in
 * `DATA_DIR/read-models.sqlite`, so a restart resumes the projections instead of replaying the
 * log; a read process (or a second process on the same DATA_DIR) keeps its own in memory only.
 */
export async function openReadStore(config: RunConfig, role: Role, log: Logger): Promise<ReadStore> {
  if (config.mongoUrl) return MongoReadStore.connect(config.mongoUrl, config.mongoDatabase);
  if (role !== 'all') return new MemoryReadStore();
  const file = readModelsFile(config);
  try {
    return new FileBackedReadStore(file, (error) =>
      log.warn({ err: String(error) }, 'read models not written to their file; retrying with the next changes'),
    );
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) throw error;
    log.warn({ file, err: error.message }, 'read models file in use by another process: keeping them in memory only');
    return new MemoryReadStore();
  }
}

/** With REDIS_URL, jobs and rate limits are shared by every process of the deployment. */
export function openJobScheduler(config: RunConfig, log: JobLogger): JobScheduler {
  return config.redisUrl
    ? new BullMqJobScheduler({
        connection: config.redisUrl,
        queueName: 'jobs',
        prefix: config.redisPrefix,
        logger: log,
      })
    : new SqliteJobScheduler(path.join(config.dataDir, 'jobs.sqlite'), { logger: log });
}

export function openRateLimiter(config: RunConfig): RateLimiter {
  return config.redisUrl
    ? new RedisRateLimiter(config.redisUrl, `${config.redisPrefix}:rate:`)
    : new MemoryRateLimiter();
}
