import path from 'node:path';

/** The run contract of decisions.md §1: everything the service reads from its environment. */
export interface RunConfig {
  port: number;
  dataDir: string;
  catalogFile: string;
  apiKeysFile: string | null;
  eventStoreUrl: string | null;
  mongoUrl: string | null;
  /** Database of the read models on MONGO_URL. */
  mongoDatabase: string;
  redisUrl: string | null;
  /** Prefix of every Redis key the service writes (jobs, rate limits). */
  redisPrefix: string;
  /** Bound on how long a read waits for `X-Min-Position` to be projected. */
  minPositionWaitMs: number;
  /** How old a reservation (reference, purchase, chest opening) must be before recovery may finish or release it. */
  staleReservationMs: number;
  /** How long an append to the embedded event store waits for another writer's lock before a 503. */
  sqliteBusyTimeoutMs: number;
  logLevel: string;
}

export const DEMO_CATALOG_FILE = path.resolve(__dirname, '..', '..', 'catalog', 'demo-catalog.yaml');

export function readRunConfig(env: NodeJS.ProcessEnv = process.env): RunConfig {
  const port = env.PORT === undefined || env.PORT === '' ? 8080 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT: must be a port number, got "${env.PORT}"`);
  }
  return {
    port,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    catalogFile: path.resolve(env.CATALOG_FILE || DEMO_CATALOG_FILE),
    apiKeysFile: env.API_KEYS_FILE ? path.resolve(env.API_KEYS_FILE) : null,
    eventStoreUrl: env.EVENTSTORE_URL || null,
    mongoUrl: env.MONGO_URL || null,
    mongoDatabase: env.MONGO_DATABASE || 'gamification',
    redisUrl: env.REDIS_URL || null,
    redisPrefix: env.REDIS_PREFIX || 'gamification',
    minPositionWaitMs: Number(env.MIN_POSITION_WAIT_MS || 5000),
    staleReservationMs: positiveMs(env, 'STALE_RESERVATION_MS', 30_000),
    sqliteBusyTimeoutMs: positiveMs(env, 'SQLITE_BUSY_TIMEOUT_MS', 5000),
    logLevel: env.LOG_LEVEL || 'info',
  };
}

/** A duration in ms from the environment: a whole number > 0, or the default when unset. */
function positiveMs(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name}: must be a whole number of milliseconds above 0, got "${raw}"`);
  return value;
}
