import path from 'node:path';
import v8 from 'node:v8';
import type { LogFormat } from '../logging/logger';
import { DEFAULT_CACHED_PLAYERS } from '../event-store/player-states';
import { DEFAULT_KEY_CACHE_MS } from '../player-keys/cached';

/** Everything the service reads from its environment (docs/configuration.md). */
export interface RunConfig {
  port: number;
  /** The address the HTTP server listens on: loopback unless HOST opens it (the image: every interface). */
  host: string;
  dataDir: string;
  catalogFile: string;
  apiKeysFile: string | null;
  eventStoreUrl: string | null;
  mongoUrl: string | null;
  /** Database of the read models on MONGO_URL. */
  mongoDatabase: string;
  /** Database of the players' keys on MONGO_URL: never the read models', so that each is backed up on its own terms. */
  mongoKeysDatabase: string;
  redisUrl: string | null;
  /** Prefix of every Redis key the service writes (jobs, rate limits). */
  redisPrefix: string;
  /** Bound on how long a read waits for `X-Min-Position` to be projected. */
  minPositionWaitMs: number;
  /** How long an Idempotency-Key is honoured after its request. */
  idempotencyRetentionMs: number;
  /** How many players' states each process keeps folded in memory (the least recently used go first). */
  cachedPlayers: number;
  /** How long a process keeps a player's key it read; an erasure waits this long before it answers. */
  playerKeyCacheMs: number;
  /** How long an append to the embedded event store waits for another writer's lock before a 503. */
  sqliteBusyTimeoutMs: number;
  /** How many players a recompute's replay keeps in memory, the others spilled to a scratch file. */
  replayPlayersInMemory: number;
  /** The heap a simulation's replay may fill before it is stopped (9033): the thread's, shared between the threads of a split one. */
  simulateMaxHeapBytes: number;
  /** How long a client may take to send a request's headers, and the whole request. */
  http: { headersTimeoutMs: number; requestTimeoutMs: number };
  /** The webhooks file (null: no webhooks) and how deliveries are made. */
  webhooks: { file: string | null; concurrency: number; timeoutMs: number; retryBaseMs: number; maxAttempts: number };
  /**
   * Behind a proxy that says how the client connected (X-Forwarded-Proto): answers to HTTPS
   * clients then carry HSTS and upgrade-insecure-requests, which plain HTTP answers never do.
   */
  trustProxy: boolean;
  /** A start may publish a catalog that removes entries of the last published one (CATALOG_CONFIRM_REMOVALS). */
  catalogConfirmRemovals: boolean;
  logLevel: string;
  /** The format asked for; null: readable on a terminal, JSON otherwise. */
  logFormat: LogFormat | null;
}

export const DEMO_CATALOG_FILE = path.resolve(__dirname, '..', '..', '..', 'catalog', 'demo-catalog.yaml');

/** `defaultPort`: the HTTP port without PORT (each role has its own, app/roles.ts). */
export function readRunConfig(env: NodeJS.ProcessEnv = process.env, defaultPort = 8080): RunConfig {
  const port = env.PORT === undefined || env.PORT === '' ? defaultPort : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT: must be a port number, got "${env.PORT}"`);
  }
  const mongoDatabase = env.MONGO_DATABASE || 'gamification';
  const mongoKeysDatabase = env.MONGO_KEYS_DATABASE || `${mongoDatabase}_keys`;
  if (mongoKeysDatabase === mongoDatabase)
    throw new Error(
      `MONGO_KEYS_DATABASE: must not be the read models' database (MONGO_DATABASE, "${mongoDatabase}"): the keys are backed up apart from the plaintext read models`,
    );
  return {
    port,
    host: env.HOST || '127.0.0.1',
    dataDir: path.resolve(env.DATA_DIR || './data'),
    catalogFile: path.resolve(env.CATALOG_FILE || DEMO_CATALOG_FILE),
    apiKeysFile: env.API_KEYS_FILE ? path.resolve(env.API_KEYS_FILE) : null,
    eventStoreUrl: env.EVENTSTORE_URL || null,
    mongoUrl: env.MONGO_URL || null,
    mongoDatabase,
    mongoKeysDatabase,
    redisUrl: env.REDIS_URL || null,
    redisPrefix: env.REDIS_PREFIX || 'gamification',
    minPositionWaitMs: Number(env.MIN_POSITION_WAIT_MS || 5000),
    sqliteBusyTimeoutMs: positiveMs(env, 'SQLITE_BUSY_TIMEOUT_MS', 5000),
    cachedPlayers: positiveWhole(env, 'PLAYER_CACHE_SIZE', DEFAULT_CACHED_PLAYERS),
    playerKeyCacheMs: positiveMs(env, 'PLAYER_KEY_CACHE_MS', DEFAULT_KEY_CACHE_MS),
    replayPlayersInMemory: positiveWhole(env, 'REPLAY_PLAYERS_IN_MEMORY', DEFAULT_REPLAY_PLAYERS_IN_MEMORY),
    simulateMaxHeapBytes: positiveWhole(env, 'SIMULATE_MAX_HEAP_MB', defaultSimulateHeapMb()) * MIB,
    idempotencyRetentionMs: positiveHours(env, 'IDEMPOTENCY_KEY_RETENTION_HOURS', 24) * 3_600_000,
    http: httpTimeouts(env),
    webhooks: {
      file: env.WEBHOOKS_FILE ? path.resolve(env.WEBHOOKS_FILE) : null,
      concurrency: positiveWhole(env, 'WEBHOOK_CONCURRENCY', 16),
      timeoutMs: webhookTimeout(env),
      retryBaseMs: positiveMs(env, 'WEBHOOK_RETRY_BASE_MS', 5000),
      maxAttempts: positiveWhole(env, 'WEBHOOK_MAX_ATTEMPTS', 15),
    },
    catalogConfirmRemovals: flag(env, 'CATALOG_CONFIRM_REMOVALS'),
    logLevel: env.LOG_LEVEL || 'info',
    logFormat: logFormat(env),
    trustProxy: flag(env, 'TRUST_PROXY'),
  };
}

const MIB = 1024 * 1024;

/**
 * Players a recompute's replay keeps in memory by default (REPLAY_PLAYERS_IN_MEMORY): each holds
 * two states, what a reversal or the recompute reads of each of its actions and their
 * contributions to the boards, about 100 KiB for a player of 50 actions in the bench's log
 * (bench/recompute-heap.ts), so about 200 MiB; past them the least recently replayed go to a
 * scratch file.
 */
export const DEFAULT_REPLAY_PLAYERS_IN_MEMORY = 2_000;

/**
 * Half of node's heap limit (`--max-old-space-size`, or what node chose for the machine's
 * memory): a simulation is stopped with room left for the service's own heap and its collector.
 */
const defaultSimulateHeapMb = (): number => Math.floor(v8.getHeapStatistics().heap_size_limit / MIB / 2);

const LOG_FORMATS: readonly LogFormat[] = ['pretty', 'json'];

function logFormat(env: NodeJS.ProcessEnv): LogFormat | null {
  const raw = env.LOG_FORMAT;
  if (raw === undefined || raw === '') return null;
  if (!(LOG_FORMATS as readonly string[]).includes(raw))
    throw new Error(
      `LOG_FORMAT: must be one of ${LOG_FORMATS.join(', ')} (unset: readable on a terminal, JSON otherwise), got "${raw}"`,
    );
  return raw as LogFormat;
}

function httpTimeouts(env: NodeJS.ProcessEnv): RunConfig['http'] {
  const headersTimeoutMs = positiveMs(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000);
  const requestTimeoutMs = positiveMs(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000);
  // Node refuses headers given more time than the whole request.
  if (headersTimeoutMs > requestTimeoutMs)
    throw new Error(
      `HTTP_HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not be above HTTP_REQUEST_TIMEOUT_MS (${requestTimeoutMs})`,
    );
  return { headersTimeoutMs, requestTimeoutMs };
}

/** A webhook's run (10 s of attempts, then the last one's answer) must end within its job's 30 s claim. */
const MAX_WEBHOOK_TIMEOUT_MS = 15_000;

function webhookTimeout(env: NodeJS.ProcessEnv): number {
  const ms = positiveMs(env, 'WEBHOOK_TIMEOUT_MS', 5000);
  if (ms > MAX_WEBHOOK_TIMEOUT_MS)
    throw new Error(
      `WEBHOOK_TIMEOUT_MS: must be at most ${MAX_WEBHOOK_TIMEOUT_MS} (a webhook run must end within its job's 30 s claim), got "${ms}"`,
    );
  return ms;
}

/** A duration in ms from the environment: a whole number > 0, or the default when unset. */
const positiveMs = (env: NodeJS.ProcessEnv, name: string, fallback: number): number =>
  positiveWhole(env, name, fallback, ' of milliseconds');

/** A whole number > 0 from the environment, or the default when unset. */
/** `true` or `false` from the environment; unset is false. */
function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new Error(`${name}: must be true or false, got "${raw}"`);
}

function positiveWhole(env: NodeJS.ProcessEnv, name: string, fallback: number, unit = ''): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`${name}: must be a whole number${unit} above 0, got "${raw}"`);
  return value;
}

/** A duration in hours from the environment: a number > 0 (fractions allowed), or the default when unset. */
function positiveHours(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name}: must be a number of hours above 0, got "${raw}"`);
  return value;
}
