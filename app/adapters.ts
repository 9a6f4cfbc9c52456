import path from 'node:path';
import type { RunConfig } from '../shared/adapters/config/env';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { PersonalDataCodec } from '../shared/adapters/event-store/personal-data';
import { CachedPlayerKeys } from '../shared/adapters/player-keys/cached';
import type { PlayerKeys } from '../shared/adapters/player-keys/port';
import { SqlitePlayerKeys } from '../shared/adapters/player-keys/sqlite';
import { SqliteJobScheduler } from '../shared/adapters/jobs/embedded';
import type { JobLogger, JobScheduler } from '../shared/adapters/jobs/port';
import type { Logger } from '../shared/adapters/logging/logger';
import type { ServiceMetrics } from '../shared/adapters/metrics';
import type { Role } from './roles';
import { ConfigurationError } from './configuration-error';
import { FallbackRateLimiter } from '../shared/adapters/rate-limit/fallback';
import { MemoryRateLimiter } from '../shared/adapters/rate-limit/memory';
import type { RateLimiter } from '../shared/adapters/rate-limit/port';
import { StoreUnavailableError, type EventStore } from '../shared/adapters/event-store/port';
import { FileBackedReadStore } from '../shared/adapters/read-store/file-backed';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import type { ReadStore } from '../shared/adapters/read-store/port';
import { PROJECTORS } from '../projections/projectors';
import type * as KurrentDbAdapter from '../shared/adapters/event-store/kurrentdb';
import type * as MongoPlayerKeysAdapter from '../shared/adapters/player-keys/mongo';
import type * as BullMqAdapter from '../shared/adapters/jobs/bullmq';
import type * as RedisRateLimitAdapter from '../shared/adapters/rate-limit/redis';
import type * as MongoReadStoreAdapter from '../shared/adapters/read-store/mongo';
import type * as RedisStandingsAdapter from '../shared/read-models/standings-redis';

/*
 * The production engines' adapters, loaded only when their URL is set: their clients (KurrentDB's
 * gRPC, MongoDB, BullMQ and ioredis) take longer to load than the rest of the service, and the
 * embedded service never uses them (a restart's time, bench figure 7).
 */
/* eslint-disable @typescript-eslint/no-require-imports */
export const kurrentDb = (): typeof KurrentDbAdapter => require('../shared/adapters/event-store/kurrentdb');
const mongoPlayerKeys = (): typeof MongoPlayerKeysAdapter => require('../shared/adapters/player-keys/mongo');
const bullMq = (): typeof BullMqAdapter => require('../shared/adapters/jobs/bullmq');
const redisRateLimit = (): typeof RedisRateLimitAdapter => require('../shared/adapters/rate-limit/redis');
const mongoReadStore = (): typeof MongoReadStoreAdapter => require('../shared/adapters/read-store/mongo');
const redisStandings = (): typeof RedisStandingsAdapter => require('../shared/read-models/standings-redis');
/* eslint-enable @typescript-eslint/no-require-imports */

/** Each port's adapter: its URL set selects the production engine, else the embedded one (docs/configuration.md). */
/** `onFault`: the embedded store found a lasting fault while running (its file deleted or damaged). */
/** `onCommit`: after each group commit (the projections' worker is told of it). */
export async function openEventStore(
  config: RunConfig,
  metrics: ServiceMetrics,
  onFault: (reason: string) => void,
  onCommit: () => void = () => undefined,
): Promise<EventStore> {
  // The embedded file is checked (PRAGMA quick_check) before anything reads it.
  if (config.eventStoreUrl) return kurrentDb().KurrentDbEventStore.connect(config.eventStoreUrl);
  return new SqliteEventStore(path.join(config.dataDir, 'events.sqlite'), {
    busyTimeoutMs: config.sqliteBusyTimeoutMs,
    checkIntegrity: true,
    onFault,
    onGroupCommit: (appends) => {
      metrics.groupCommit(appends);
      onCommit();
    },
    // The cached players' streams, and room for the other streams read between their actions
    // (catalog, stocks, limited triggers), which stay remembered while read often.
    rememberedStreams: 2 * config.cachedPlayers,
  });
}

/**
 * The players' keys: in MongoDB's MONGO_KEYS_DATABASE with MONGO_URL (moved there from the read
 * models' database where an earlier version kept them), else in `DATA_DIR/player-keys.sqlite`.
 */
export async function openPlayerKeyStore(config: RunConfig): Promise<PlayerKeys> {
  if (!config.mongoUrl)
    return new SqlitePlayerKeys(path.join(config.dataDir, 'player-keys.sqlite'), config.sqliteBusyTimeoutMs);
  const mongo = mongoPlayerKeys();
  try {
    return await mongo.MongoPlayerKeys.connect(config.mongoUrl, config.mongoKeysDatabase, config.mongoDatabase);
  } catch (error) {
    if (error instanceof mongo.KeysInTwoDatabasesError) throw new ConfigurationError([error.message]);
    throw error;
  }
}

/** The players' keys, the most recently used kept in memory (CACHED_PLAYERS of them). */
export async function openPlayerKeys(config: RunConfig): Promise<CachedPlayerKeys> {
  return new CachedPlayerKeys(await openPlayerKeyStore(config), config.cachedPlayers, config.playerKeyCacheMs);
}

/** The event store with the players' personal fields encrypted under their keys (closing it closes the keys). */
export function withPersonalData(events: EventStore, keys: PlayerKeys): EventStore {
  return new PersonalDataCodec(events, keys);
}

/** The embedded read models file of the all-in-one process (held by the one process that has it open). */
export const readModelsFile = (config: RunConfig): string => path.join(config.dataDir, 'read-models.sqlite');

/**
 * MONGO_URL's read models, the leaderboards' standings beside them in Redis (REDIS_URL, required
 * then: MongoDB counts a rank by walking the players ahead), under
 * `<REDIS_PREFIX>:standings:<MONGO_DATABASE>:`.
 */
export async function openMongoReadStore(config: RunConfig): Promise<ReadStore> {
  if (!config.redisUrl)
    throw new ConfigurationError([
      "REDIS_URL: required with MONGO_URL, which keeps the leaderboards' standings in Redis (docs/operations.md)",
    ]);
  const mongo = await mongoReadStore().MongoReadStore.connect(config.mongoUrl!, config.mongoDatabase);
  return redisStandings().RankedReadStore.connect(
    mongo,
    config.redisUrl,
    `${config.redisPrefix}:standings:${config.mongoDatabase}:`,
  );
}

/**
 * Drops the scratch databases MONGO_URL's verifications left when their process stopped before
 * their end (they hold plain-text names): on a connection of its own, as the read store in use is
 * wrapped (its standings in Redis).
 */
export async function dropVerificationScratches(config: RunConfig): Promise<string[]> {
  const mongo = await mongoReadStore().MongoReadStore.connect(config.mongoUrl!, config.mongoDatabase);
  try {
    return await mongo.dropScratches();
  } finally {
    await mongo.close();
  }
}

/**
 * MongoDB with MONGO_URL (openMongoReadStore). Else the all-in-one process keeps its read
 * models in memory and in `DATA_DIR/read-models.sqlite`, so a restart resumes the projections
 * instead of replaying the log; a read process (or a second process on the same DATA_DIR)
 * keeps its own in memory only.
 */
export async function openReadStore(config: RunConfig, role: Role, log: Logger): Promise<ReadStore> {
  if (config.mongoUrl) return openMongoReadStore(config);
  if (role !== 'all') return new MemoryReadStore();
  const file = readModelsFile(config);
  try {
    return new FileBackedReadStore(
      file,
      (error) =>
        log.warn({ err: String(error) }, 'read models not written to their file; retrying with the next changes'),
      { indexes: PROJECTORS.flatMap((p) => p.indexes ?? []) },
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
    ? new (bullMq().BullMqJobScheduler)({
        connection: config.redisUrl,
        queueName: 'jobs',
        prefix: config.redisPrefix,
        logger: log,
      })
    : new SqliteJobScheduler(path.join(config.dataDir, 'jobs.sqlite'), { logger: log });
}

/**
 * Rate limits shared through Redis with REDIS_URL, else in the process. The read role needs Redis
 * for nothing else its requests do: while Redis is away it limits in the process rather than
 * answering 503 (and its readiness does not ask Redis).
 */
export function openRateLimiter(config: RunConfig, role: Role, log: Logger): RateLimiter {
  if (!config.redisUrl) return new MemoryRateLimiter();
  const shared = new (redisRateLimit().RedisRateLimiter)(config.redisUrl, `${config.redisPrefix}:rate:`);
  if (role !== 'read') return shared;
  return new FallbackRateLimiter(shared, new MemoryRateLimiter(), (fallen, reason) =>
    fallen
      ? log.warn({ reason }, 'rate limits: redis unavailable; limiting in this process until it is back')
      : log.info({ reason }, 'rate limits: shared through redis again'),
  );
}
