/**
 * Writes event-store files straight through the EventStore port (no HTTP): player histories as
 * the real decider (decideProcessAction) produces them, appended in big batches.
 */
import { decideProcessAction } from '../command-api/process-action/decider';
import { evolve, initialPlayerState } from '../command-api/player/state';
import { playerStream } from '../command-api/player/repository';
import { publishCatalog } from '../command-api/publish-catalog/publish';
import type { Catalog } from '../shared/catalog/schema';
import { loadCatalogFile } from '../shared/catalog/load';
import type { EventMetadata, EventStore } from '../shared/event-store/port';
import { newEventId } from '../shared/ids';
import { actionBody, prng } from './workload';

export interface SeedEvent {
  type: string;
  data: unknown;
}

export const SEED_METADATA: EventMetadata = { correlationId: 'bench-seed', causationId: 'bench-seed', keyName: 'bench', catalogVersion: 1 };

export async function loadBenchCatalog(file: string): Promise<{ catalog: Catalog; hash: string }> {
  const loaded = await loadCatalogFile(file);
  if (!loaded.ok) throw new Error(`bench catalog ${file}:\n${loaded.problems.join('\n')}`);
  return { catalog: loaded.catalog, hash: loaded.hash };
}

/** Publishes the catalog as the service does at start, so a service started on the file finds it current. */
export async function publishBenchCatalog(events: EventStore, catalog: Catalog, hash: string): Promise<void> {
  await publishCatalog(events, catalog, hash, Date.now(), SEED_METADATA);
}

/**
 * One player's history, action after action of the bench mix through the real decider, the
 * state evolved by each decision's events as the repository would. Rejected actions (a cost the
 * player cannot pay) leave no event, as in the service. Limited triggers count as exhausted, so
 * no trigger-limit stream is needed.
 */
export function* playerHistory(
  catalog: Catalog,
  player: string,
  options: { actions: number; maxEvents?: number; startTs: number; stepMs: number; refPrefix: string; seed: number },
): Generator<SeedEvent> {
  const maxEvents = options.maxEvents ?? Number.POSITIVE_INFINITY;
  const random = prng(options.seed);
  const exhausted = new Set(catalog.triggers.filter((t) => t.limited).map((t) => t.uid));
  const state = initialPlayerState(player);
  let revision = -1;
  let uid = 0;
  for (let i = 0; i < options.actions && revision + 1 < maxEvents; i++) {
    const body = actionBody(player, `${options.refPrefix}-${i}`, random);
    const ts = options.startTs + i * options.stepMs;
    const newUid = () => (uid++).toString(16).padStart(32, '0');
    // Not an object literal at the call: extra fields (the decider's env grows) stay harmless.
    const env = { now: ts, random, newUid, catalog, exhaustedTriggers: exhausted, costProvisionUid: newUid() };
    const decision = decideProcessAction({ playerId: player, referenceId: body.referenceId, name: body.name, timestamp: ts, multiplier: 1, details: body.details ?? [] }, state, env);
    if (!decision.ok) continue;
    for (const e of decision.value.events) {
      revision++;
      evolve(state, { id: '', type: e.type, data: e.data, metadata: SEED_METADATA, streamName: playerStream(player), revision, position: 0, createdAt: ts });
      yield e;
    }
  }
}

/** Appends a player's events in batches at exact expected revisions. */
export async function appendHistory(events: EventStore, player: string, history: Iterable<SeedEvent>, batchSize: number): Promise<number> {
  let expected: number | 'no_stream' = 'no_stream';
  let batch: SeedEvent[] = [];
  let count = 0;
  const flush = async () => {
    if (!batch.length) return;
    const r = await events.appendToStream(
      playerStream(player),
      batch.map((e) => ({ id: newEventId(), type: e.type, data: e.data, metadata: SEED_METADATA })),
      expected,
    );
    expected = r.nextExpectedRevision;
    count += batch.length;
    batch = [];
  };
  for (const e of history) {
    batch.push(e);
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  return count;
}
