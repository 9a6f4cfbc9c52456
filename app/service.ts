import fs from 'node:fs';
import http, { type Server } from 'node:http';
import path from 'node:path';
import type express from 'express';
import { buyBundleRoute } from '../command-api/buy-bundle/route';
import type { CommandDeps } from '../command-api/deps';
import { openChestRoute } from '../command-api/open-chest/route';
import { registerPowerupJobs } from '../command-api/powerup-activation/expiry';
import { registerCurrencyJobs } from '../command-api/currency-expiry/job';
import { registerMomentJobs } from '../command-api/moments/job';
import { registerLeagueJobs } from '../command-api/settle-league/job';
import { registerSeasonJobs } from '../command-api/settle-season/job';
import { powerupActivationRoutes } from '../command-api/powerup-activation/route';
import { processActionRoute } from '../command-api/process-action/route';
import { RECOMPUTE_PROGRESS, RecomputeProgress } from '../command-api/recompute/progress';
import { recomputeRoutes } from '../command-api/recompute/route';
import { provisionTransactionRoutes } from '../command-api/provision-transactions/routes';
import { simulationRunner } from './simulate-shares';
import { registerProvisionJobs } from '../command-api/provision-transactions/timeout';
import { publishCatalog } from '../command-api/publish-catalog/publish';
import { CatalogInForce } from '../command-api/publish-catalog/in-force';
import { registerCatalogJobs } from '../command-api/publish-catalog/in-force-job';
import { catalogRoutes } from '../command-api/publish-catalog/routes';
import { registerPlayerRoute } from '../command-api/register-player/route';
import { updatePlayerRoute } from '../command-api/update-player/route';
import { reverseActionRoute } from '../command-api/reverse-action/route';
import { LogCheckpointWatcher } from '../projections/log-checkpoint-watcher';
import { ProjectorLease } from '../projections/lease';
import { PROJECTORS } from '../projections/projectors';
import { ProjectionRunner } from '../projections/runner';
import { LiveReadModels } from '../projections/generations';
import { verifyReadModels } from '../projections/verify';
import { actionResponseRoute } from '../read-api/action-response/route';
import { jobsRetryRoute, jobsRoute } from '../read-api/admin/jobs';
import { adminRoutes } from '../read-api/admin/routes';
import { leagueRoutes } from '../read-api/leagues/routes';
import { analyticsRoute } from '../read-api/analytics/route';
import { playerSearchRoute } from '../read-api/player-search/route';
import { auditRoutes } from '../read-api/audit/routes';
import { AUDIT_RUNS, AuditRuns } from '../read-api/audit/runs';
import { apiKeyRoute } from '../read-api/api-key/route';
import { chestRoutes } from '../read-api/chests/routes';
import { CONSOLE_PATH, consolePages } from '../read-api/console/route';
import { KIT_PATH, kitPages } from '../read-api/kit/route';
import { feedRoutes } from '../read-api/feed/routes';
import { playerExportRoute } from '../read-api/player-export/route';
import { playerProfileRoute } from '../read-api/player-profile/route';
import { powerupListRoute } from '../read-api/powerups/route';
import { missionListRoute } from '../read-api/missions/route';
import { streakListRoute } from '../read-api/streaks/route';
import { playerMomentsRoute } from '../read-api/moments/route';
import { transactionHistoryRoute } from '../read-api/transactions/history-route';
import { transactionStatusRoute } from '../read-api/transactions/route';
import { authorize } from '../shared/adapters/auth/access';
import { KeyRing, loadOrCreateDevKey, parseKeysFile, type ApiKey } from '../shared/adapters/auth/keys';
import { PLAYER_TOKEN_SECRET_ID, PlayerTokens } from '../shared/adapters/auth/player-tokens';
import { playerTokenRoute } from '../read-api/player-token/route';
import { loadCatalogFile } from '../domain/catalog/load';
import type { Catalog } from '../domain/catalog/types';
import { removedEntries } from '../domain/catalog/removals';
import { CATALOG_VERSIONS_FOLD, lastFromFile, versionInForceAt } from '../domain/catalog/versions';
import { foldStream } from '../domain/stream-fold';
import { mutableCopy } from '../domain/deep-readonly';
import { CATALOG_STREAM } from '../domain/streams';
import type { RunConfig } from '../shared/adapters/config/env';
import { StoreFaultError, type EventStore } from '../shared/adapters/event-store/port';
import { createHttpApp, expressMessageClasses } from '../shared/adapters/http/app';
import { failure } from '../domain/result';
import { openApiDocument, withExamples } from '../shared/adapters/http/openapi';
import { exampleValues } from './api-examples';
import type { AnyRoute } from '../shared/adapters/http/route';
import { newUid, secureRandom } from '../domain/ids';
import { droppedLogLines, type Logger } from '../shared/adapters/logging/logger';
import { PlayerStates } from '../shared/adapters/event-store/player-states';
import type { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { FileBackedReadStore } from '../shared/adapters/read-store/file-backed';
import { ForwardedReadStore } from '../shared/adapters/read-store/forwarded';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import type { ReadStore } from '../shared/adapters/read-store/port';
import type { JobScheduler } from '../shared/adapters/jobs/port';
import { ServiceMetrics } from '../shared/adapters/metrics';
import { StockStates } from '../shared/adapters/event-store/stock-states';
import { StreamStates } from '../shared/adapters/event-store/stream-states';
import { erasePlayerRoute } from '../command-api/erase-player/route';
import { adjustPlayerRoute } from '../command-api/adjust-player/route';
import {
  dropVerificationScratches,
  openEventStore,
  openJobScheduler,
  openPlayerKeys,
  openRateLimiter,
  openReadStore,
  withPersonalData,
} from './adapters';
import { ConfigurationError } from './configuration-error';
import { ProjectionThread } from './projection-thread';
import { servedBy, serves, type Role } from './roles';
import { backendChecks } from './readiness';
import { checkStoreFormat } from './store-format';
import { parseWebhooksFile, type Webhook } from '../webhooks/config';
import { dropRemovedWebhookJobs, WebhookDispatcher } from '../webhooks/dispatcher';
import { webhookRoutes } from '../webhooks/routes';
import { httpSender } from '../webhooks/sender';
import { LEADERBOARD_COLLECTIONS, type ScoreDoc } from '../shared/read-models/leaderboards';
import { rankIndexOf } from '../shared/read-models/standings';

/** Idle keep-alive connections are closed after this long (Node's default, stated). */
const KEEP_ALIVE_TIMEOUT_MS = 5000;

/** How long a completed recompute waits for the read models to show it before it says Completed. */
const RECOMPUTE_PROJECTED_WAIT_MS = 10 * 60_000;
/** How long a season's settlement waits for the projector to reach the log's head before the job is tried again. */
const SEASON_PROJECTED_WAIT_MS = 60_000;
/** How often a process reads the versions published elsewhere: a publication is in force everywhere within 2 s. */
const CATALOG_REFRESH_MS = 1000;
/** How long a verification waits for the live read models to reach the position it replayed to. */
const VERIFY_LIVE_WAIT_MS = 10_000;

/** The package version: the OpenAPI document's version. */
const SERVICE_VERSION = (
  JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }
).version;

export interface ServiceOptions {
  config: RunConfig;
  /** Default 'all': command API, read API and projectors in one process. */
  role?: Role;
  log: Logger;
  now?: () => number;
  random?: () => number;
}

/** The read models' projections: a ProjectionRunner, or the all-in-one process's worker running one. */
export type Projections = Pick<
  ProjectionRunner,
  'position' | 'drops' | 'projectors' | 'problem' | 'waitFor' | 'start' | 'stop'
>;

export interface RunningService {
  app: express.Express;
  events: EventStore;
  readStore: ReadStore;
  projections: Projections;
  deps: CommandDeps;
  /** The API routes this process serves (its role's share). */
  routes: AnyRoute[];
  /** The generated Server key when no keys file is configured. */
  devKey: string | null;
  /** Rejects (EADDRINUSE: the port is taken) when the port cannot be listened on. */
  listen(port?: number): Promise<Server>;
  close(): Promise<void>;
}

interface LoadedKeys {
  keys: ApiKey[];
  devKey: string | null;
  /** The keys file's secret of player tokens; null: the one the players' key store keeps. */
  playerTokenSecret: string | null;
}

async function loadKeys(config: RunConfig, log: Logger): Promise<LoadedKeys> {
  if (config.apiKeysFile) {
    if (!fs.existsSync(config.apiKeysFile))
      throw new ConfigurationError([`API_KEYS_FILE: no file at ${config.apiKeysFile}`]);
    const parsed = parseKeysFile(fs.readFileSync(config.apiKeysFile, 'utf8'), config.apiKeysFile);
    if (!parsed.ok)
      throw new ConfigurationError(parsed.problems.map((p) => `${path.basename(config.apiKeysFile!)}: ${p}`));
    return { keys: parsed.keys, devKey: null, playerTokenSecret: parsed.playerTokenSecret };
  }
  const file = path.join(config.dataDir, 'dev-api-key');
  let dev: ReturnType<typeof loadOrCreateDevKey>;
  try {
    dev = loadOrCreateDevKey(config.dataDir);
  } catch (error) {
    throw new ConfigurationError([
      `DATA_DIR: cannot keep the development key in ${file} (${(error as Error).message}); make ${config.dataDir} writable by the user the service runs as, or set API_KEYS_FILE`,
    ]);
  }
  // Logs never carry a key (docs/api.md): only where it is kept, which only its owner may read.
  if (dev.created)
    log.info(
      { keyFile: file },
      `No API_KEYS_FILE: generated a development Server key, kept in ${file} (read it there)`,
    );
  else log.info({ keyFile: file }, `No API_KEYS_FILE: using the development Server key kept in ${file}`);
  return { keys: [dev.apiKey], devKey: dev.key, playerTokenSecret: null };
}

/**
 * The webhooks of WEBHOOKS_FILE, none without it; one line per problem stops the start. Their
 * cursors must outlive the process that delivers them (one that runs jobs): they are kept in
 * MongoDB, or in the all-in-one process's read models file.
 */
function loadWebhooks(config: RunConfig, role: Role): Webhook[] {
  const file = config.webhooks.file;
  if (!file) return [];
  if (!fs.existsSync(file)) throw new ConfigurationError([`WEBHOOKS_FILE: no file at ${file}`]);
  const parsed = parseWebhooksFile(fs.readFileSync(file, 'utf8'), file);
  if (!parsed.ok) throw new ConfigurationError(parsed.problems.map((p) => `${path.basename(file)}: ${p}`));
  if (role === 'command' && !config.mongoUrl)
    throw new ConfigurationError([
      'WEBHOOKS_FILE: the command role keeps webhook cursors in the read store, which must outlive it: set MONGO_URL',
    ]);
  return parsed.hooks;
}

/** Delivers the webhooks from a process that runs jobs. */
async function startWebhooks(ctx: {
  config: RunConfig;
  hooks: Webhook[];
  events: EventStore;
  readStore: ReadStore;
  /** Another process holds the read models file of DATA_DIR: this one keeps its read models in memory only. */
  fileHeldElsewhere: boolean;
  jobs: JobScheduler;
  metrics: ServiceMetrics;
  log: Logger;
}): Promise<WebhookDispatcher | null> {
  const { config, readStore, log } = ctx;
  if (ctx.fileHeldElsewhere) {
    // A second all-in-one process on the same DATA_DIR: the first one, which holds the file, delivers.
    log.warn({}, 'webhooks not delivered by this process: another one holds the read models file of DATA_DIR');
    return null;
  }
  const dispatcher = new WebhookDispatcher({
    hooks: ctx.hooks,
    events: ctx.events,
    store: readStore,
    jobs: ctx.jobs,
    send: httpSender(config.webhooks.timeoutMs),
    settings: config.webhooks,
    metrics: ctx.metrics,
    log,
  });
  await dispatcher.start();
  // The new webhooks' cursors reach the file before anything is served: a crash right after
  // must not restart them at a later head.
  if (readStore instanceof FileBackedReadStore) readStore.flush();
  if (readStore instanceof ForwardedReadStore) await readStore.flush();
  return dispatcher;
}

/**
 * Starts one role of the service (default: all of them in one process). In the all-in-one process
 * writes return after their events are projected, so a read right after sees them; across
 * processes a read waits (bounded) for the position a write returned in `X-Position`.
 */
/**
 * A catalog file that removes entries of the catalog version in force (another game's file started
 * on this data, an entry deleted by mistake) is published only when CATALOG_CONFIRM_REMOVALS says
 * so: each section's removals are logged, and without it the start stops.
 */
async function checkRemovals(
  config: RunConfig,
  log: Logger,
  events: EventStore,
  catalog: Catalog,
  hash: string,
  now: number,
): Promise<void> {
  const versions = foldStream(CATALOG_STREAM, CATALOG_VERSIONS_FOLD, await events.readStream(CATALOG_STREAM)).state;
  // An unchanged file publishes nothing (command-api/publish-catalog): there is nothing to confirm.
  if (lastFromFile(versions)?.hash === hash) return;
  const replaced = versionInForceAt(versions, now);
  const removed = replaced ? removedEntries(mutableCopy<Catalog>(replaced.catalog), catalog) : [];
  for (const { section, uids } of removed)
    log.warn(
      { catalogFile: config.catalogFile, catalogVersion: replaced!.version, section, removed: uids },
      `the catalog file removes ${uids.length} ${section} of catalog version ${replaced!.version}: ${uids.join(', ')}`,
    );
  if (removed.length > 0 && !config.catalogConfirmRemovals)
    throw new ConfigurationError([
      `${config.catalogFile} removes entries of the published catalog (version ${replaced!.version}): ${removed
        .map(({ section, uids }) => `${section} ${uids.join(', ')}`)
        .join(
          '; ',
        )}. Start with CATALOG_CONFIRM_REMOVALS=true to publish it anyway, or put them back (docs/catalog.md, "Changing the catalog")`,
    ]);
}

export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { config, log } = options;
  const role = options.role ?? 'all';
  if (role === 'projector' && !config.mongoUrl)
    throw new ConfigurationError([
      'MONGO_URL: the projector role writes read models that other processes read, so it needs MongoDB',
    ]);
  const now = options.now ?? Date.now;
  try {
    fs.mkdirSync(config.dataDir, { recursive: true });
  } catch (error) {
    throw new ConfigurationError([
      `DATA_DIR: cannot create ${config.dataDir} (${(error as Error).message}); create it, writable by the user the service runs as`,
    ]);
  }

  const loaded = await loadCatalogFile(config.catalogFile);
  if (!loaded.ok) throw new ConfigurationError(loaded.problems);
  const { keys, devKey, playerTokenSecret } = await loadKeys(config, log);
  const hooks = loadWebhooks(config, role);

  const metrics = new ServiceMetrics();
  metrics.watchLogDrops(() => droppedLogLines(log));
  /** The embedded log once open: a fault the worker's connection finds stops this thread's writes as well. */
  let sqliteLog: SqliteEventStore | null = null;
  // The all-in-one embedded process projects in a worker thread (app/projection-thread.ts), told
  // of each commit. Started first, it loads and indexes the read models while this thread opens and
  // checks the log (with KurrentDB the runner stays on this thread).
  const thread =
    role === 'all' && !config.mongoUrl && !config.eventStoreUrl
      ? new ProjectionThread(
          config,
          log,
          (lag) => metrics.projected(lag),
          (reason) => sqliteLog?.faultFoundElsewhere(reason),
        )
      : null;
  try {
    const playerKeys = await openPlayerKeys(config);
    // Without the keys file's, a secret generated once and kept with the players' keys, which every process of a deployment shares.
    const playerTokens = new PlayerTokens(
      playerTokenSecret ??
        (await playerKeys.getOrCreate(PLAYER_TOKEN_SECRET_ID).catch(async (error: unknown) => {
          await playerKeys.close();
          throw error;
        })),
    );
    // Found while running (the file deleted or damaged): said once, here; every write is refused since.
    const eventLog = await openEventStore(
      config,
      metrics,
      (reason) => log.error({ reason }, 'event store fault: writes stopped'),
      () => thread?.appended(),
    );
    // The worker runs over the embedded log only.
    if (thread) sqliteLog = eventLog as SqliteEventStore;
    const events = metrics.measured(withPersonalData(eventLog, playerKeys));
    const writes = role === 'all' || role === 'command';
    await checkStoreFormat(events, writes);
    // Before anything else is opened: a start refused here lets the log and the keys go.
    if (writes)
      await checkRemovals(config, log, events, loaded.catalog, loaded.hash, now()).catch(async (error: unknown) => {
        await events.close();
        await playerKeys.close();
        throw error;
      });

    const jobs = openJobScheduler(config, log);
    metrics.watchJobs(jobs);
    // The versions published, and the one in force at this process's clock (command-api/publish-catalog/in-force.ts).
    const inForce = new CatalogInForce(events, now, loaded.catalog);
    const players = new PlayerStates(events, config.cachedPlayers);
    const stocks = new StockStates(events);
    const deps: CommandDeps = {
      events,
      players,
      stocks,
      states: new StreamStates(events, [players, stocks]),
      jobs,
      catalog: () => inForce.current(),
      now,
      random: options.random ?? secureRandom,
      newUid,
      idempotencyRetentionMs: config.idempotencyRetentionMs,
    };
    if (writes) {
      // The writers publish the operator's file; readers follow what was published.
      const published = await publishCatalog(deps, loaded.catalog, loaded.hash, now(), {
        correlationId: 'startup',
        causationId: 'startup',
        keyName: 'operator',
      });
      if (!published.ok) throw new Error(`publishing the catalog: ${published.failure.message}`);
      if (published.value.published) log.info({ catalogVersion: published.value.version }, 'catalog published');
    }
    await inForce.refresh();

    const readStore = thread?.readStore ?? (await openReadStore(config, role, log));
    // A read process without MongoDB keeps its own read models; with MongoDB the projector role does.
    const projectsHere = role === 'all' || role === 'projector' || (role === 'read' && !config.mongoUrl);
    // Read models in MongoDB are shared: one projector writes them, its writes fenced by its lease (projections/lease.ts).
    const lease =
      projectsHere && config.mongoUrl
        ? new ProjectorLease(readStore, log, { onLost: () => void projections.stop() })
        : null;
    const projections: Projections =
      thread ??
      new ProjectionRunner(
        events,
        readStore,
        PROJECTORS,
        log,
        (_position, createdAt) => metrics.projected((Date.now() - createdAt) / 1000),
        // Other processes serve MongoDB's read models: a rebuild is made beside them (projections/generations.ts).
        { lease: lease ?? undefined, buildAside: Boolean(config.mongoUrl) },
      );
    // Read models in MongoDB are read in the generation made live last, followed as it changes.
    const live = config.mongoUrl ? new LiveReadModels(readStore, PROJECTORS) : null;
    await live?.follow((error) => log.warn({ err: error.message }, 'which read models are live: not read; retrying'));
    const readModels = live?.store ?? readStore;
    const positions = projectsHere ? projections : new LogCheckpointWatcher(readModels);
    if (projectsHere) metrics.watchProjections(projections);
    if (projectsHere) {
      await lease?.acquire();
      await projections.start();
      const caughtUp = await projections.waitFor(await events.headPosition(), 60 * 60_000);
      const problem = events.writeProblem();
      if (!caughtUp && problem?.lasting) throw new StoreFaultError(problem.reason);
      await live?.refresh().catch(() => undefined);
    }

    const limiter = openRateLimiter(config, role, log);
    // Business-time jobs run where commands are decided.
    if (writes) {
      registerProvisionJobs(deps);
      registerPowerupJobs(deps);
      registerCurrencyJobs(deps);
      registerMomentJobs(deps);
      registerLeagueJobs(deps);
      registerSeasonJobs({
        ...deps,
        waitForProjected: (position) => positions.waitFor(position, SEASON_PROJECTED_WAIT_MS),
        seasonStandings: async (leaderboardUid, season, count) =>
          (
            await rankIndexOf(readModels.collection<ScoreDoc>(LEADERBOARD_COLLECTIONS.scores)).slice(
              { board: leaderboardUid, period: season },
              0,
              count,
            )
          ).map((s) => ({ playerId: s.owner, score: s.score })),
      });
      registerCatalogJobs(deps);
    }
    if (writes) await dropRemovedWebhookJobs(jobs, hooks, log);
    const dispatcher =
      writes && hooks.length
        ? await startWebhooks({
            config,
            hooks,
            events,
            readStore,
            fileHeldElsewhere: thread ? !thread.keepsFile : readStore instanceof MemoryReadStore,
            jobs,
            metrics,
            log,
          })
        : null;
    const keyRing = new KeyRing(keys);
    // Aborted first on close: live streams end, so the server's close does not wait on their clients.
    const shuttingDown = new AbortController();
    // One verification and one simulation at a time per deployment: with MongoDB, seen by every process.
    const auditRuns = new AuditRuns(
      (config.mongoUrl ? readStore : new MemoryReadStore()).collection(AUDIT_RUNS),
      (error) => log.warn({ err: error }, 'audit run progress not written to the shared store'),
    );
    /** Verifications and simulations under way, waited for at close (also those whose request has ended). */
    const auditWork = new Set<Promise<unknown>>();
    const untilEnded = <T>(work: Promise<T>): Promise<T> => {
      auditWork.add(work);
      void work.catch(() => undefined).finally(() => auditWork.delete(work));
      return work;
    };
    const simulate = simulationRunner(config, events, metrics, auditRuns, shuttingDown.signal);
    const routes: AnyRoute[] = [
      processActionRoute(deps),
      reverseActionRoute(deps),
      actionResponseRoute(deps),
      registerPlayerRoute(deps),
      updatePlayerRoute(deps),
      buyBundleRoute(deps),
      transactionStatusRoute(deps),
      transactionHistoryRoute(deps),
      ...provisionTransactionRoutes(deps),
      playerProfileRoute(deps),
      openChestRoute(deps),
      ...chestRoutes(deps),
      apiKeyRoute(),
      playerTokenRoute({ tokens: playerTokens, now }),
      powerupListRoute(deps),
      streakListRoute(deps),
      playerMomentsRoute(deps),
      playerExportRoute(deps),
      erasePlayerRoute(deps, playerKeys, config.playerKeyCacheMs),
      adjustPlayerRoute(deps),
      missionListRoute(deps),
      ...leagueRoutes({ ...deps, store: readStore }),
      ...powerupActivationRoutes(deps),
      ...adminRoutes({ store: readModels, now }),
      ...catalogRoutes({ ...deps, inForce }),
      analyticsRoute({ store: readModels }),
      playerSearchRoute({ store: readModels }),
      ...feedRoutes({ events }),
      jobsRoute(jobs),
      jobsRetryRoute(jobs),
      ...recomputeRoutes({
        ...deps,
        waitForProjected: (position) => positions.waitFor(position, RECOMPUTE_PROJECTED_WAIT_MS),
        replayPlayersInMemory: config.replayPlayersInMemory,
        // Several command processes see each other's recomputes through the shared store; the all-in-one process is the only one.
        progress: new RecomputeProgress(role === 'command' ? readStore.collection(RECOMPUTE_PROGRESS) : null, (error) =>
          log.warn({ err: error }, 'recompute progress not written to the shared store'),
        ),
      }),
      ...webhookRoutes({ hooks, store: readStore, events, wake: async (name) => dispatcher?.wake(name), log }),
      ...auditRoutes({
        events,
        simulate: (draft, options) => untilEnded(simulate(draft, options)),
        // Compared at the position replayed to, once the live read models have projected it (projections/verify.ts).
        verify: (onProgress) => {
          const verification = verifyReadModels(events, readModels, PROJECTORS, {
            waitForLive: (position) => positions.waitFor(position, VERIFY_LIVE_WAIT_MS),
            onProgress: (eventsReplayed, position) => {
              // Stopping: the verification ends here, its scratch store dropped, before the store closes.
              if (shuttingDown.signal.aborted) throw new Error('the service stopped before the verification ended');
              onProgress(eventsReplayed, position);
            },
          });
          return untilEnded(verification);
        },
        removeLeftovers: async () => {
          // The embedded scratch stores end with their process.
          const left = config.mongoUrl ? await dropVerificationScratches(config) : [];
          if (left.length) log.warn({ databases: left }, 'scratch databases of interrupted verifications dropped');
        },
        runs: auditRuns,
      }),
    ];
    let started = false;
    const served = routes.filter((r) => serves(role, r.path));
    // The document describes the whole API, whichever role serves it (the ingress routes /openapi.json to one of them).
    const document = openApiDocument(routes, SERVICE_VERSION);
    const app = createHttpApp(served, {
      metrics,
      elsewhere: routes
        .filter((r) => !serves(role, r.path))
        .map((r) => ({ method: r.method, path: r.path, servedBy: `the ${servedBy(r.path)} role` })),
      log,
      // Examples of the catalog in force, and a fresh player, each time the document is asked for.
      documentation: {
        get document() {
          return withExamples(
            document,
            exampleValues(
              inForce.current().catalog,
              hooks.map((h) => h.name),
              { inForce: inForce.current().version, newest: inForce.versions().versions.length },
            ),
          );
        },
      },
      clientDomains: keyRing.clientDomains(),
      isStarted: () => started,
      shutdown: shuttingDown.signal,
      pages: [...(serves(role, CONSOLE_PATH) ? [consolePages()] : []), ...(serves(role, KIT_PATH) ? [kitPages()] : [])],
      pagePaths: {
        ...(serves(role, CONSOLE_PATH) ? { console: CONSOLE_PATH } : {}),
        ...(serves(role, KIT_PATH) ? { kit: KIT_PATH } : {}),
      },
      trustProxy: config.trustProxy,
      // A process that takes no writes is kept from its work only by a lasting fault.
      workProblem: () => {
        const problem = events.writeProblem();
        return writes || problem?.lasting ? problem : null;
      },
      readiness: [
        ...backendChecks({
          role,
          config,
          events,
          readStore: readModels,
          keys: playerKeys,
          limiter,
          deliversWebhooks: dispatcher !== null,
        }),
        ...(projectsHere ? [{ name: 'projections', problem: () => projections.problem() }] : []),
        ...(lease ? [{ name: 'projector lease', problem: () => lease.problem() }] : []),
        // Nothing to serve until a projector has made read models live: an empty answer would look like data.
        ...(live && (role === 'read' || role === 'all')
          ? [{ name: 'read models', problem: () => live.problem() }]
          : []),
      ],
      authorize: (req, tiers, nested) => authorize(req, keyRing, tiers, nested),
      playerToken: (token) => playerTokens.verify(token, now()),
      async rateLimit(key) {
        const setting = key.rateLimit ?? inForce.current().catalog.settings.rateLimit;
        const taken = await limiter.take(key.name, setting);
        if (taken.allowed) return null;
        metrics.rateLimitRefused(key.name);
        return {
          ...failure(429, 'Too many requests: rate limit exceeded'),
          retryAfterSeconds: taken.retryAfterSeconds,
        };
      },
      afterWrite: async (position) => {
        if (role === 'all') await projections.waitFor(position, config.minPositionWaitMs);
      },
      waitForPosition: (position) => positions.waitFor(position, config.minPositionWaitMs),
    });
    if (writes) await jobs.start();
    started = true;

    // Versions published by another process are seen within a second or two; those published here at once.
    const follow = setInterval(() => {
      inForce.refresh().catch((e: Error) => log.warn({ err: e.message }, 'catalog refresh failed'));
    }, CATALOG_REFRESH_MS);
    follow.unref();

    let server: Server | null = null;
    return {
      app,
      events,
      readStore: readModels,
      projections,
      deps,
      routes: served,
      devKey,
      listen: (port = config.port) =>
        new Promise((resolve, reject) => {
          const { headersTimeoutMs, requestTimeoutMs } = config.http;
          // A client gets headersTimeoutMs to send its headers and requestTimeoutMs for the whole
          // request (408, connection closed), checked every second; idle keep-alive connections close after 5 s.
          const listening = http.createServer(
            {
              headersTimeout: headersTimeoutMs,
              requestTimeout: requestTimeoutMs,
              keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
              connectionsCheckingInterval: Math.min(1000, headersTimeoutMs),
              ...expressMessageClasses(app),
            },
            app,
          );
          listening.once('error', reject);
          listening.listen(port, config.host, () => {
            listening.off('error', reject);
            server = listening;
            resolve(listening);
          });
        }),
      async close() {
        started = false;
        clearInterval(follow);
        shuttingDown.abort();
        if (server) await new Promise<void>((r) => server!.close(() => r()));
        dispatcher?.stop();
        try {
          await jobs.close();
          await Promise.allSettled(auditWork);
          auditRuns.close();
          await projections.stop();
          live?.stop();
          await lease?.release();
          await limiter.close();
          await readStore.close();
          // The worker's connection to the log closes first: the last one to close merges the WAL into the file.
          await thread?.close();
        } finally {
          // Whatever failed before, the appends accepted are committed and the writer thread ends.
          await events.close();
        }
      },
    };
  } catch (error) {
    // The worker holds the read models file: a start that failed lets it go.
    await thread?.close();
    throw error;
  }
}
