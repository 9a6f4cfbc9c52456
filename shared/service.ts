import fs from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import type express from 'express';
import { PlayerRepository } from '../command-api/player/repository';
import { processActionRoute } from '../command-api/process-action/route';
import { latestCatalog, publishCatalog } from '../command-api/publish-catalog/publish';
import { registerPlayerRoute } from '../command-api/register-player/route';
import { registerReversalJobs } from '../command-api/reverse-action/handler';
import { reverseActionRoute } from '../command-api/reverse-action/route';
import { buyBundleRoute } from '../command-api/buy-bundle/route';
import { registerProvisionJobs } from '../command-api/provision-transactions/handler';
import { provisionTransactionRoutes } from '../command-api/provision-transactions/routes';
import { registerChestJobs } from '../command-api/open-chest/handler';
import { openChestRoute } from '../command-api/open-chest/route';
import { registerPowerupJobs } from '../command-api/powerup-activation/handler';
import { powerupActivationRoutes } from '../command-api/powerup-activation/route';
import type { CommandDeps, PublishedCatalog } from '../command-api/deps';
import { PROJECTORS } from '../projections/projectors';
import { ProjectionRunner } from '../projections/runner';
import { actionResponseRoute } from '../read-api/action-response/route';
import { adminRoutes } from '../read-api/admin/routes';
import { auditRoutes } from '../read-api/audit/routes';
import { playerProfileRoute } from '../read-api/player-profile/route';
import { chestRoutes } from '../read-api/chests/routes';
import { powerupListRoute } from '../read-api/powerups/route';
import { authorize } from './auth/access';
import { KeyRing, loadOrCreateDevKey, parseKeysFile, type ApiKey } from './auth/keys';
import { loadCatalogFile } from './catalog/load';
import type { RunConfig } from './config/env';
import type { EventStore } from './event-store/port';
import { createHttpApp } from './http/app';
import { documentationPage, openApiDocument } from './http/openapi';
import { failure } from './http/envelope';
import type { AnyRoute } from './http/route';
import { newUid, secureRandom } from './ids';
import type { Logger } from './logging/logger';
import type { ReadStore } from './read-store/port';
import { openEventStore, openJobScheduler, openRateLimiter, openReadStore } from './adapters';
import { LogCheckpointWatcher } from '../projections/log-checkpoint-watcher';
import { serves, type Role } from './roles';

/** The package version: the OpenAPI document's version. */
const SERVICE_VERSION = (JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;

/** A start-up problem the operator must fix (bad catalog, bad keys file): one line per problem. */
export class ConfigurationError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigurationError';
  }
}

export interface ServiceOptions {
  config: RunConfig;
  /** Default 'all': command API, read API and projectors in one process. */
  role?: Role;
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
  /** The API routes this process serves (its role's share). */
  routes: AnyRoute[];
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
 * Starts one role of the service (default: all of them in one process). In the all-in-one process
 * writes return after their events are projected, so a read right after sees them; across
 * processes a read waits (bounded) for the position a write returned in `X-Position`.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { config, log } = options;
  const role = options.role ?? 'all';
  if (role === 'projector' && !config.mongoUrl) throw new ConfigurationError(['MONGO_URL: the projector role writes read models that other processes read, so it needs MongoDB']);
  const now = options.now ?? Date.now;
  fs.mkdirSync(config.dataDir, { recursive: true });

  const loaded = await loadCatalogFile(config.catalogFile);
  if (!loaded.ok) throw new ConfigurationError(loaded.problems);
  const { keys, devKey } = await loadKeys(config, options.announce ?? (() => undefined));

  const events = openEventStore(config);
  let current: PublishedCatalog;
  if (role === 'all' || role === 'command') {
    // The writers publish the operator's file; readers follow what was published.
    const published = await publishCatalog(events, loaded.catalog, loaded.hash, now(), { correlationId: 'startup', causationId: 'startup', keyName: 'operator' });
    if (published.published) log.info({ catalogVersion: published.version }, 'catalog published');
    current = { version: published.version, catalog: published.catalog };
  } else {
    const latest = await latestCatalog(events);
    current = latest ? { version: latest.version, catalog: latest.catalog } : { version: 0, catalog: loaded.catalog };
  }

  const readStore = await openReadStore(config);
  const projections = new ProjectionRunner(events, readStore, PROJECTORS, log);
  // A read process without MongoDB keeps its own read models; with MongoDB the projector role does.
  const projectsHere = role === 'all' || role === 'projector' || (role === 'read' && !config.mongoUrl);
  const positions = projectsHere ? projections : new LogCheckpointWatcher(readStore);
  if (projectsHere) {
    await projections.start();
    await projections.waitFor(await events.headPosition(), 60 * 60_000);
  }

  const jobs = openJobScheduler(config, log);
  const limiter = openRateLimiter(config);
  // Jobs run where commands are decided; a read process may still schedule (recovery on get-response).
  const runsJobs = role === 'all' || role === 'command';

  const deps: CommandDeps = {
    events,
    players: new PlayerRepository(events),
    jobs,
    catalog: () => current,
    now,
    random: options.random ?? secureRandom,
    newUid,
    staleReservationMs: config.staleReservationMs,
  };
  if (runsJobs) {
    registerProvisionJobs(deps);
    registerChestJobs(deps);
    registerPowerupJobs(deps);
    registerReversalJobs(deps);
  }
  const keyRing = new KeyRing(keys);
  const routes: AnyRoute[] = [
    processActionRoute(deps),
    reverseActionRoute(deps),
    actionResponseRoute(deps),
    registerPlayerRoute(deps),
    buyBundleRoute(deps),
    ...provisionTransactionRoutes(deps),
    playerProfileRoute(deps),
    openChestRoute(deps),
    ...chestRoutes(deps),
    powerupListRoute(deps),
    ...powerupActivationRoutes(deps),
    ...adminRoutes({ store: readStore, now }),
    ...auditRoutes({ events, store: readStore, projectors: projections.projectors, positions }),
  ];
  let ready = false;
  const served = routes.filter((r) => serves(role, r.path));
  const document = openApiDocument(served, SERVICE_VERSION);
  const app = createHttpApp(served, {
    log,
    documentation: { document, page: documentationPage(document) },
    isReady: () => ready,
    authorize: (req, tiers, nested) => authorize(req, keyRing, tiers, nested),
    async rateLimit(key) {
      const setting = key.rateLimit ?? current.catalog.settings.rateLimit;
      const taken = await limiter.take(key.name, setting);
      return taken.allowed ? null : { ...failure(429, 'Too many requests: rate limit exceeded'), retryAfterSeconds: taken.retryAfterSeconds };
    },
    afterWrite: async (position) => {
      if (role === 'all') await projections.waitFor(position, config.minPositionWaitMs);
    },
    waitForPosition: async (position) => {
      await positions.waitFor(position, config.minPositionWaitMs);
    },
  });
  if (runsJobs) await jobs.start();
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
    routes: served,
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
