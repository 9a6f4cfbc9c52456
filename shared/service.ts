import fs from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import type express from 'express';
import { PlayerRepository } from '../command-api/player/repository';
import { processActionRoute } from '../command-api/process-action/route';
import { latestCatalog, publishCatalog } from '../command-api/publish-catalog/publish';
import { registerPlayerRoute } from '../command-api/register-player/route';
import { reverseActionRoute } from '../command-api/reverse-action/route';
import { buyBundleRoute } from '../command-api/buy-bundle/route';
import { registerProvisionJobs } from '../command-api/provision-transactions/handler';
import { provisionTransactionRoutes } from '../command-api/provision-transactions/routes';
import type { CommandDeps, PublishedCatalog } from '../command-api/deps';
import { bundleStockProjector } from '../projections/bundle-stock';
import { catalogViewsProjector } from '../projections/catalog-views';
import { leaderboardsProjector } from '../projections/leaderboards';
import { ProjectionRunner } from '../projections/runner';
import { actionResponseRoute } from '../read-api/action-response/route';
import { adminRoutes } from '../read-api/admin/routes';
import { playerProfileRoute } from '../read-api/player-profile/route';
import { authorize } from './auth/access';
import { KeyRing, loadOrCreateDevKey, parseKeysFile, type ApiKey } from './auth/keys';
import { loadCatalogFile } from './catalog/load';
import type { RunConfig } from './config/env';
import { SqliteEventStore } from './event-store/sqlite';
import type { EventStore } from './event-store/port';
import { createHttpApp } from './http/app';
import { failure } from './http/envelope';
import type { AnyRoute } from './http/route';
import { newUid, secureRandom } from './ids';
import type { Logger } from './logging/logger';
import { MemoryReadStore } from './read-store/memory';
import type { ReadStore } from './read-store/port';
import { BullMqJobScheduler } from './jobs/bullmq';
import { SqliteJobScheduler } from './jobs/embedded';
import type { JobScheduler } from './jobs/port';
import { MemoryRateLimiter } from './rate-limit/memory';
import type { RateLimiter } from './rate-limit/port';
import { RedisRateLimiter } from './rate-limit/redis';

/** A start-up problem the operator must fix (bad catalog, bad keys file): one line per problem. */
export class ConfigurationError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigurationError';
  }
}

export interface ServiceOptions {
  config: RunConfig;
  log: Logger;
  now?: () => number;
  random?: () => number;
  /** Print the generated dev key (the CLI entry does; tests read it from the result). */
  announce?: (line: string) => void;
}

export interface RunningService {
  app: express.Express;
  events: EventStore;
  readStore: ReadStore;
  projections: ProjectionRunner;
  deps: CommandDeps;
  /** The generated Server key when no keys file is configured. */
  devKey: string | null;
  listen(port?: number): Promise<Server>;
  close(): Promise<void>;
}

async function loadKeys(config: RunConfig, announce: (line: string) => void): Promise<{ keys: ApiKey[]; devKey: string | null }> {
  if (config.apiKeysFile) {
    if (!fs.existsSync(config.apiKeysFile)) throw new ConfigurationError([`API_KEYS_FILE: no file at ${config.apiKeysFile}`]);
    const parsed = parseKeysFile(fs.readFileSync(config.apiKeysFile, 'utf8'), config.apiKeysFile);
    if (!parsed.ok) throw new ConfigurationError(parsed.problems.map((p) => `${path.basename(config.apiKeysFile!)}: ${p}`));
    return { keys: parsed.keys, devKey: null };
  }
  const dev = loadOrCreateDevKey(config.dataDir);
  announce(`No API_KEYS_FILE: using the ${dev.created ? 'new' : 'stored'} development Server key ${dev.key} (kept in ${path.join(config.dataDir, 'dev-api-key')})`);
  return { keys: [dev.apiKey], devKey: dev.key };
}

/**
 * Starts the all-in-one service on the embedded adapters: command API, read API and projectors in
 * one process. Writes return after their events are projected, so a read right after sees them.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { config, log } = options;
  const now = options.now ?? Date.now;
  fs.mkdirSync(config.dataDir, { recursive: true });

  const loaded = await loadCatalogFile(config.catalogFile);
  if (!loaded.ok) throw new ConfigurationError(loaded.problems);
  const { keys, devKey } = await loadKeys(config, options.announce ?? (() => undefined));

  const events = new SqliteEventStore(path.join(config.dataDir, 'events.sqlite'));
  const published = await publishCatalog(events, loaded.catalog, loaded.hash, now(), { correlationId: 'startup', causationId: 'startup', keyName: 'operator' });
  if (published.published) log.info({ catalogVersion: published.version }, 'catalog published');
  let current: PublishedCatalog = { version: published.version, catalog: published.catalog };

  const readStore = new MemoryReadStore();
  const projections = new ProjectionRunner(events, readStore, [catalogViewsProjector, leaderboardsProjector, bundleStockProjector], log);
  await projections.start();
  await projections.waitFor(await events.headPosition(), 60 * 60_000);

  // With REDIS_URL, jobs and rate limits are shared by every process of the deployment.
  const jobs: JobScheduler = config.redisUrl
    ? new BullMqJobScheduler({ connection: config.redisUrl, queueName: 'jobs', prefix: config.redisPrefix, logger: log })
    : new SqliteJobScheduler(path.join(config.dataDir, 'jobs.sqlite'), { logger: log });
  const limiter: RateLimiter = config.redisUrl ? new RedisRateLimiter(config.redisUrl, `${config.redisPrefix}:rate:`) : new MemoryRateLimiter();

  const deps: CommandDeps = {
    events,
    players: new PlayerRepository(events),
    jobs,
    catalog: () => current,
    now,
    random: options.random ?? secureRandom,
    newUid,
    staleReservationMs: 30_000,
  };
  registerProvisionJobs(deps);
  const keyRing = new KeyRing(keys);
  const routes: AnyRoute[] = [
    processActionRoute(deps),
    reverseActionRoute(deps),
    actionResponseRoute(deps),
    registerPlayerRoute(deps),
    buyBundleRoute(deps),
    ...provisionTransactionRoutes(deps),
    playerProfileRoute(deps),
    ...adminRoutes({ store: readStore, now }),
  ];
  let ready = false;
  const app = createHttpApp(routes, {
    log,
    isReady: () => ready,
    authorize: (req, tiers, nested) => authorize(req, keyRing, tiers, nested),
    async rateLimit(key) {
      const setting = key.rateLimit ?? current.catalog.settings.rateLimit;
      const taken = await limiter.take(key.name, setting);
      return taken.allowed ? null : { ...failure(429, 'Too many requests: rate limit exceeded'), retryAfterSeconds: taken.retryAfterSeconds };
    },
    afterWrite: async (position) => {
      await projections.waitFor(position, config.minPositionWaitMs);
    },
    waitForPosition: async (position) => {
      await projections.waitFor(position, config.minPositionWaitMs);
    },
  });
  await jobs.start();
  ready = true;

  // Another process may publish a newer catalog version: follow it.
  const follow = setInterval(() => {
    latestCatalog(events)
      .then((latest) => {
        if (latest && latest.version > current.version) current = { version: latest.version, catalog: latest.catalog };
      })
      .catch((e: Error) => log.warn({ err: e.message }, 'catalog refresh failed'));
  }, 5000);
  follow.unref();

  let server: Server | null = null;
  return {
    app,
    events,
    readStore,
    projections,
    deps,
    devKey,
    listen: (port = config.port) =>
      new Promise((resolve) => {
        server = app.listen(port, () => resolve(server!));
      }),
    async close() {
      ready = false;
      clearInterval(follow);
      if (server) await new Promise<void>((r) => server!.close(() => r()));
      await jobs.close();
      await projections.stop();
      await limiter.close();
      await events.close();
      await readStore.close();
    },
  };
}
