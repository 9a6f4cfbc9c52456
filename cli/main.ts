/**
 * `gamification <command>`: replay, export and trace the event log, export a player's data, rebuild
 * and verify read models, validate and diff catalogs, simulate a draft catalog, show the jobs queue and the webhooks. Reads the same environment as the
 * service (DATA_DIR, EVENTSTORE_URL, MONGO_URL, MONGO_DATABASE, MONGO_KEYS_DATABASE, REDIS_URL, REDIS_PREFIX, PORT) and
 * never writes events.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { readRunConfig, type RunConfig } from '../shared/adapters/config/env';
import { ConfigurationError } from '../app/configuration-error';
import { checkStoreFormat } from '../app/store-format';
import { kurrentDb, openPlayerKeys, withPersonalData } from '../app/adapters';
import type { FeedFilter } from '../read-api/feed/records';
import { STREAM_KINDS, type StreamKind } from '../domain/streams';
import type { EventStore } from '../shared/adapters/event-store/port';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { diffCatalog, listVersions, publishCatalogFile, revertVersion, showVersion, validateCatalog } from './catalog';
import { exportEvents, showEvents } from './events';
import { retryJobs, showJobs } from './jobs';
import { adjustPlayer, erasePlayer, exportPlayer } from './player';
import { UsageError } from './output';
import { PROJECTORS } from '../projections/projectors';
import { rebuild, verify } from './read-models';
import { runSimulation } from './simulate';
import { runRecompute } from './recompute';
import { showTrace } from './trace';
import { redeliverWebhook, showWebhooks } from './webhooks';

/** Each command's usage, as `gamification <command> --help` prints it and the full help lists it. */
const COMMAND_USAGE: Record<string, string> = {
  events: `  events --player <id> | --stream <name> [--from <revision>] [--json]
      A stream's events: time, stream@revision, position, type, key, correlation, summary.`,
  trace: `  trace --reference <referenceId> | --provision <provisionUid> | --opening <openingUid> --player <id> [--json]
      The causal chain: each request, its events, the rules behind its awards and the actions that
      made up their challenges, balances before/after. A chest opening is found on its player's stream.`,
  export: `  export [--from <position>] [--types <type,type>] [--streams <kind,kind>]
      The global log as NDJSON on stdout, after --from (exclusive), optionally only some event types
      or stream kinds (player, reference, provision, ...): the records of GET /v1/feed/events.`,
  rebuild: `  rebuild [projector...]
      Replay the log into fresh read models (${PROJECTORS.map((p) => p.name).join(', ')}) and report the rate:
      those of DATA_DIR/read-models.sqlite, which the next start resumes (refused while a service
      holds that file: stop it first); with MONGO_URL, those in MongoDB (stop the projector role first).`,
  verify: `  verify [--url <url>] [--key <key>]
      Compare the live read models with a fresh replay; exit 1 on any difference. Embedded mode
      asks the running server (--url, default http://127.0.0.1:$PORT, key from --key,
      GAMIFICATION_KEY or DATA_DIR/dev-api-key), or with no service running checks
      DATA_DIR/read-models.sqlite here; with MONGO_URL, compares MongoDB here.`,
  jobs: `  jobs [--json]
      The jobs queue: how many jobs wait, are delayed, run and failed, and the latest failures
      (REDIS_URL and REDIS_PREFIX: BullMQ; else DATA_DIR/jobs.sqlite).
  jobs retry [jobId...]
      Put the failed jobs (all, or those named) back to run now, with a fresh set of attempts;
      exit 1 if a job named has not failed.`,
  webhooks: `  webhooks [--url <url>] [--key <key>] [--json]
      Each webhook: how far it got in the log, delivered, waiting and failed deliveries, the failures.
  webhooks redeliver <webhook> --after <position> [--url <url>] [--key <key>]
      Send the webhook's events after the position again (failed ones included), in order.
      Both ask the running server, as verify does (a Server key; an Auditor key for the list).`,
  simulate: `  simulate --catalog <file> [--player <id>]... [--json]
      What the draft catalog would change had it always been in force: the log replayed with every
      action decided again, nothing written; players affected, boards now and under the draft,
      facts the draft makes impossible. Exit 1 with one line per problem if the catalog is invalid.`,
  recompute: `  recompute [--from <local date-time>] [--dry-run] [--yes]
      The history re-decided under the published catalog, as simulate reports it, then applied: one
      PlayerRecomputed per affected player. Asks before applying unless --yes; --dry-run writes nothing;
      --from: each player's actions processed before their first one dated from it on stand as they
      stand now. Opens the store for writing.`,
  player: `  player export <playerId>
      All of the player's data as one JSON document (GET /v1/admin/players/{playerId}/export):
      profile, holdings, transactions, chests, powerups, streaks, every action and adjustment; exit 1
      for an unknown player, or an erased one (saying when it was erased).
  player adjust <playerId> --reason <text> [--points <n>] [--deliverable <uid>=<amount>]... [--url <url>] [--key <key>]
      Grant (positive) or take back (negative: --points=-5) points and deliverables, never below
      zero (POST /v1/admin/players/adjust): the reason and the key's name are kept with it.
  player erase <playerId> [--url <url>] [--key <key>]
      Erase the player (POST /v1/admin/players/erase): their personal data reads [erased] everywhere.
      Both ask the running server, as verify does (a Server key).`,
  catalog: `  catalog validate <file>
      One line per problem; exit 1 if any.
  catalog diff <file>
      Entries added, removed or changed (by uid) and settings changed, against the version in force.
  catalog publish <file> [--comment <text>] [--at <ISO time>] [--until <ISO time>] [--url <url>] [--key <key>]
      The file published as the next version (POST /v1/admin/catalog/publish): in force at once, or
      from --at, until --until (a live event).
  catalog versions [--url <url>] [--key <key>]
      Every version, newest first: status, source, author, times, comment.
  catalog show <version> [--url <url>] [--key <key>]
      A version's catalog, as a catalog file.
  catalog revert <version> [--comment <text>] [--url <url>] [--key <key>]
      The version's content published again as the next version, in force at once.
      publish, versions, show and revert ask the running server, as verify does (a Server key; an
      Auditor key for versions and show).`,
};

const USAGE = `Usage: gamification <command> [options]   (gamification <command> --help: that command only)

${Object.values(COMMAND_USAGE).join('\n')}
  --version
      The package version.

The event store is DATA_DIR/events.sqlite, opened read-only (the server may be running) except by
recompute, which writes to it, or KurrentDB at EVENTSTORE_URL. On a terminal, rebuild, verify, export and simulate show their progress on stderr.`;

/** The package's version, read where the CLI runs from. */
const VERSION = (JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string })
  .version;

type Options = NonNullable<ParseArgsConfig['options']>;

function args<O extends Options>(argv: string[], options: O, command: string) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
}

function position(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`${option} must be a whole number, got "${value}"`);
  return Number(value);
}

/** The service's event store, read-only where it can be (unless `writable`), refused when it holds another stored format. */
async function openEventStore(config: RunConfig, writable = false): Promise<EventStore> {
  let events: EventStore;
  if (config.eventStoreUrl) events = await kurrentDb().KurrentDbEventStore.connect(config.eventStoreUrl);
  else {
    const file = path.join(config.dataDir, 'events.sqlite');
    if (!fs.existsSync(file))
      throw new Error(`no event store at ${file}: set DATA_DIR to the service's data directory, or EVENTSTORE_URL`);
    // WAL lets this reader in while the server writes.
    events = new SqliteEventStore(file, { readonly: !writable });
  }
  // Personal fields read in plain text while the player's key is kept, `[erased]` once it is deleted.
  events = withPersonalData(events, await openPlayerKeys(config));
  try {
    await checkStoreFormat(events, false);
  } catch (error) {
    await events.close();
    throw error instanceof ConfigurationError ? new Error(error.problems.join('\n')) : error;
  }
  return events;
}

async function withEvents(
  config: RunConfig,
  use: (events: EventStore) => Promise<number>,
  writable = false,
): Promise<number> {
  const events = await openEventStore(config, writable);
  try {
    return await use(events);
  } finally {
    await events.close();
  }
}

async function run(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // Help comes before anything the command would check (its options, the environment, a server).
  if (Object.hasOwn(COMMAND_USAGE, command ?? '') && rest.some((a) => a === '--help' || a === '-h')) {
    console.log(`Usage:\n${COMMAND_USAGE[command]}`);
    return 0;
  }
  if (command === '--version' || command === 'version') {
    console.log(VERSION);
    return 0;
  }
  const config = readRunConfig();
  switch (command) {
    case 'events': {
      const { values } = args(
        rest,
        {
          player: { type: 'string' },
          stream: { type: 'string' },
          from: { type: 'string' },
          json: { type: 'boolean', default: false },
        },
        command,
      );
      return withEvents(config, (events) =>
        showEvents(events, {
          player: values.player,
          stream: values.stream,
          from: position(values.from, '--from'),
          json: values.json,
        }),
      );
    }
    case 'trace': {
      const { values } = args(
        rest,
        {
          reference: { type: 'string' },
          provision: { type: 'string' },
          opening: { type: 'string' },
          player: { type: 'string' },
          json: { type: 'boolean', default: false },
        },
        command,
      );
      return withEvents(config, (events) =>
        showTrace(events, {
          reference: values.reference,
          provision: values.provision,
          opening: values.opening,
          player: values.player,
          json: values.json,
        }),
      );
    }
    case 'export': {
      const { values } = args(
        rest,
        { from: { type: 'string' }, types: { type: 'string' }, streams: { type: 'string' } },
        command,
      );
      const listed = (text: string | undefined) =>
        text === undefined
          ? undefined
          : text
              .split(',')
              .map((t) => t.trim())
              .filter(Boolean);
      const streams = listed(values.streams);
      const unknown = streams?.filter((k) => !STREAM_KINDS.includes(k as StreamKind));
      if (unknown?.length)
        throw new UsageError(
          `export: --streams takes stream kinds (${STREAM_KINDS.join(', ')}), got "${unknown.join(', ')}"`,
        );
      const filter: FeedFilter = {
        ...(values.types ? { types: new Set(listed(values.types)) } : {}),
        ...(streams ? { streams: new Set(streams as StreamKind[]) } : {}),
      };
      return withEvents(config, (events) => exportEvents(events, { from: position(values.from, '--from'), filter }));
    }
    case 'rebuild': {
      const { positionals } = args(rest, {}, command);
      return withEvents(config, (events) => rebuild(events, config, positionals));
    }
    case 'verify': {
      const { values } = args(rest, { url: { type: 'string' }, key: { type: 'string' } }, command);
      return verify(() => openEventStore(config), config, values);
    }
    case 'jobs': {
      const { values, positionals } = args(rest, { json: { type: 'boolean', default: false } }, command);
      if (positionals[0] === 'retry') return retryJobs(config, positionals.slice(1));
      if (positionals.length) throw new UsageError(`jobs: unknown subcommand "${positionals[0]}" (known: retry)`);
      return showJobs(config, { json: values.json });
    }
    case 'webhooks': {
      const { values, positionals } = args(
        rest,
        {
          url: { type: 'string' },
          key: { type: 'string' },
          json: { type: 'boolean', default: false },
          after: { type: 'string' },
        },
        command,
      );
      const server = { url: values.url, key: values.key };
      if (positionals.length === 0) return showWebhooks(config, { ...server, json: values.json });
      if (positionals[0] !== 'redeliver' || positionals.length !== 2 || values.after === undefined)
        throw new UsageError('webhooks: use "webhooks" or "webhooks redeliver <webhook> --after <position>"');
      return redeliverWebhook(config, {
        ...server,
        webhook: positionals[1],
        after: position(values.after, '--after')!,
      });
    }
    case 'simulate': {
      const { values } = args(
        rest,
        {
          catalog: { type: 'string' },
          player: { type: 'string', multiple: true },
          json: { type: 'boolean', default: false },
        },
        command,
      );
      if (values.catalog === undefined) throw new UsageError('simulate: give --catalog <file>, the draft catalog');
      return withEvents(config, (events) =>
        runSimulation(events, { catalog: values.catalog!, players: values.player ?? [], json: values.json }),
      );
    }
    case 'recompute': {
      const { values } = args(
        rest,
        {
          from: { type: 'string' },
          'dry-run': { type: 'boolean', default: false },
          yes: { type: 'boolean', default: false },
        },
        command,
      );
      return withEvents(
        config,
        (events) => runRecompute(events, { from: values.from, dryRun: values['dry-run'], yes: values.yes }),
        // It appends each affected player's PlayerRecomputed (a dry run writes nothing).
        !values['dry-run'],
      );
    }
    case 'player': {
      const { values, positionals } = args(
        rest,
        {
          url: { type: 'string' },
          key: { type: 'string' },
          reason: { type: 'string' },
          points: { type: 'string' },
          deliverable: { type: 'string', multiple: true },
        },
        command,
      );
      const [action, playerId] = positionals;
      if (positionals.length !== 2 || !['export', 'adjust', 'erase'].includes(action))
        throw new UsageError(
          'player: use "player export <playerId>", "player adjust <playerId> --reason <text> ..." or "player erase <playerId>"',
        );
      const server = { url: values.url, key: values.key };
      if (action === 'adjust')
        return adjustPlayer(config, {
          ...server,
          playerId,
          reason: values.reason,
          points: values.points,
          deliverables: values.deliverable ?? [],
        });
      if (action === 'erase') return erasePlayer(config, { ...server, playerId });
      return withEvents(config, (events) => exportPlayer(events, playerId));
    }
    case 'catalog': {
      const { values, positionals } = args(
        rest,
        {
          url: { type: 'string' },
          key: { type: 'string' },
          comment: { type: 'string' },
          at: { type: 'string' },
          until: { type: 'string' },
        },
        command,
      );
      const [action, target] = positionals;
      const server = { url: values.url, key: values.key };
      const usage = () =>
        new UsageError(
          'catalog: use "catalog validate <file>", "catalog diff <file>", "catalog publish <file>", "catalog versions", "catalog show <version>" or "catalog revert <version>"',
        );
      if (action === 'versions') {
        if (positionals.length !== 1) throw usage();
        return listVersions(config, server);
      }
      if (!target || positionals.length > 2) throw usage();
      switch (action) {
        case 'validate':
          return validateCatalog(target);
        case 'diff':
          return withEvents(config, (events) => diffCatalog(events, target));
        case 'publish':
          return publishCatalogFile(config, {
            ...server,
            file: target,
            comment: values.comment,
            at: values.at,
            until: values.until,
          });
        case 'show':
          return showVersion(config, { ...server, version: target });
        case 'revert':
          return revertVersion(config, { ...server, version: target, comment: values.comment });
        default:
          throw usage();
      }
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return command === undefined ? 2 : 0;
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

// A reader that stops early (`| head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(0);
});

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(error.message);
      console.error('Run "gamification help" for the commands.');
      process.exitCode = 2;
    } else {
      console.error(error instanceof Error ? error.message : String(error));
      process.exitCode = 1;
    }
  },
);
