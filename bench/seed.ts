/**
 * Writes event-store files straight through the EventStore port (no HTTP): player histories as
 * the real decider (decideProcessAction) produces them, every stream each decision writes (the
 * player's events, the referenceId's record, a cost's provision), appended in big batches.
 */
import fs from 'node:fs';
import { checkStoreFormat } from '../app/store-format';
import { decideProcessAction } from '../command-api/process-action/decider';
import { publishCatalog } from '../command-api/publish-catalog/publish';
import type { Catalog } from '../domain/catalog/schema';
import { loadCatalogFile, parseCatalog } from '../domain/catalog/load';
import type { EventMetadata, EventStore, StreamAppend } from '../shared/adapters/event-store/port';
import { playerEventOf } from '../domain/events';
import { newEventId } from '../domain/ids';
import { SqliteJobScheduler } from '../shared/adapters/jobs/embedded';
import { PlayerStates } from '../shared/adapters/event-store/player-states';
import { evolveInPlace, initialPlayerState } from '../domain/player/state';
import { StockStates } from '../shared/adapters/event-store/stock-states';
import { StreamStates } from '../shared/adapters/event-store/stream-states';
import { playerStream } from '../domain/streams';
import { actionBody, BENCH_CATALOG_FILE, prng } from './workload';

/** One event of a seeded history, with the stream it goes to. */
export interface SeedEvent {
  stream: string;
  type: string;
  data: unknown;
}

export const SEED_METADATA: EventMetadata = {
  correlationId: 'bench-seed',
  causationId: 'bench-seed',
  keyName: 'bench',
  catalogVersion: 1,
};

export async function loadBenchCatalog(file: string): Promise<{ catalog: Catalog; hash: string }> {
  const loaded = await loadCatalogFile(file);
  if (!loaded.ok) throw new Error(`bench catalog ${file}:\n${loaded.problems.join('\n')}`);
  return { catalog: loaded.catalog, hash: loaded.hash };
}

/**
 * The draft a simulation of the bench is measured under: the bench catalog with the purchase
 * action's points doubled, so that every player who bought something is affected.
 */
export function purchaseDoubledDraft(): Catalog {
  const text = fs.readFileSync(BENCH_CATALOG_FILE, 'utf8');
  const purchase = /(identifier: purchase[^\n]*\n(?:[^\n]*\n)*?\s*points: )(\d+)/;
  if (!purchase.test(text)) throw new Error('bench catalog: no purchase action with points');
  const draft = parseCatalog(
    text.replace(purchase, (_m, head: string, points: string) => `${head}${Number(points) * 2}`),
    'draft.yaml',
  );
  if (!draft.ok) throw new Error(draft.problems.join('\n'));
  return draft.catalog;
}

/** Declares the store's format and publishes the catalog as the service does at start, so a service started on the file finds both current. */
export async function publishBenchCatalog(events: EventStore, catalog: Catalog, hash: string): Promise<void> {
  await checkStoreFormat(events, true);
  const jobs = new SqliteJobScheduler(':memory:');
  const deps = {
    events,
    ...statesOf(events),
    jobs,
    catalog: () => ({ version: 0, catalog }),
    now: Date.now,
    random: Math.random,
    newUid: newEventId,
    idempotencyRetentionMs: 0,
  };
  const published = await publishCatalog(deps, catalog, hash, Date.now(), SEED_METADATA);
  await jobs.close();
  if (!published.ok) throw new Error(published.failure.message);
}

/**
 * One player's history, action after action of the bench mix through the real decider, the
 * state evolved by each decision's player events as the service would. Rejected actions (a cost
 * the player cannot pay) leave no event, as in the service. Limited triggers count as exhausted,
 * so no trigger-limit stream is needed, unless `limitedLeft`: then each has activations left for
 * the player (whose takings then go to the trigger-limit streams). `maxEvents` bounds the player's
 * own events.
 */
export function* playerHistory(
  catalog: Catalog,
  player: string,
  options: {
    actions: number;
    maxEvents?: number;
    startTs: number;
    stepMs: number;
    refPrefix: string;
    seed: number;
    limitedLeft?: boolean;
  },
): Generator<SeedEvent> {
  const maxEvents = options.maxEvents ?? Number.POSITIVE_INFINITY;
  const random = prng(options.seed);
  const exhausted = new Map(
    catalog.triggers.filter((t) => t.limited).map((t) => [t.uid, options.limitedLeft ? 0 : t.limit]),
  );
  const state = initialPlayerState(player);
  const stream = playerStream(player);
  let revision = -1;
  let uid = 0;
  for (let i = 0; i < options.actions && revision + 1 < maxEvents; i++) {
    const body = actionBody(player, `${options.refPrefix}-${i}`, random);
    const ts = options.startTs + i * options.stepMs;
    const newUid = () => (uid++).toString(16).padStart(32, '0');
    const cmd = {
      playerId: player,
      referenceId: body.referenceId,
      name: body.name,
      timestamp: ts,
      multiplier: 1,
      details: body.details ?? [],
    };
    const decision = decideProcessAction(
      cmd,
      { player: state, playerRevision: revision, referenceTaken: false, activationsTaken: exhausted },
      { now: ts, random, newUid, catalog },
    );
    if (!decision.ok) continue;
    for (const write of decision.value.writes) {
      for (const e of write.events) {
        if (write.stream === stream) {
          revision++;
          evolveInPlace(
            state,
            playerEventOf({
              id: '',
              type: e.type,
              data: e.data,
              metadata: SEED_METADATA,
              streamName: stream,
              revision,
              position: 0,
              createdAt: ts,
            })!,
          );
        }
        yield { stream: write.stream, type: e.type, data: e.data };
      }
    }
  }
}

/**
 * Appends a player's history in batches of about `batchSize` of its own events: each batch one
 * atomic append of the player's stream at its exact revision and the new streams of its actions.
 */
export async function appendHistory(
  events: EventStore,
  player: string,
  history: Iterable<SeedEvent>,
  batchSize: number,
): Promise<number> {
  const own = playerStream(player);
  let expected: number | 'no_stream' = 'no_stream';
  let batch = new Map<string, SeedEvent[]>();
  let ownCount = 0;
  let count = 0;
  const flush = async () => {
    if (!batch.size) return;
    const appends: StreamAppend[] = [...batch].map(([stream, list]) => ({
      stream,
      events: list.map((e) => ({ id: newEventId(), type: e.type, data: e.data, metadata: SEED_METADATA })),
      expectedRevision: stream === own ? expected : 'no_stream',
    }));
    const r = await events.appendToStreams(appends);
    if (r.revisions[own] !== undefined) expected = r.revisions[own];
    count += appends.reduce((n, a) => n + a.events.length, 0);
    batch = new Map();
    ownCount = 0;
  };
  for (const e of history) {
    const list = batch.get(e.stream);
    if (list) list.push(e);
    else batch.set(e.stream, [e]);
    if (e.stream === own && ++ownCount >= batchSize) await flush();
  }
  await flush();
  return count;
}

/** The state caches of a store, and the pipeline's reads through them. */
function statesOf(events: EventStore) {
  const players = new PlayerStates(events);
  const stocks = new StockStates(events);
  return { players, stocks, states: new StreamStates(events, [players, stocks]) };
}
