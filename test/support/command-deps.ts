import type { CommandDeps } from '../../command-api/deps';
import { publishCatalog } from '../../command-api/publish-catalog/publish';
import { parseCatalog } from '../../domain/catalog/load';
import type { Catalog } from '../../domain/catalog/schema';
import type { EventMetadata, EventStore } from '../../shared/adapters/event-store/port';
import { newUid } from '../../domain/ids';
import { SqliteJobScheduler } from '../../shared/adapters/jobs/embedded';
import { PlayerStates } from '../../shared/adapters/event-store/player-states';
import { StockStates } from '../../shared/adapters/event-store/stock-states';
import { StreamStates } from '../../shared/adapters/event-store/stream-states';
import { seededRandom } from '../../bench/seeded-random';

/** Command deps over a store, for tests that run commands without the HTTP service: jobs in memory, a fixed clock unless given. */
export function commandDepsFor(
  events: EventStore,
  catalog: Catalog,
  now: () => number = () => Date.UTC(2026, 5, 1),
): CommandDeps {
  return {
    events,
    ...statesOf(events),
    jobs: new SqliteJobScheduler(':memory:'),
    catalog: () => ({ version: 1, catalog }),
    now,
    random: seededRandom(1),
    newUid,
    idempotencyRetentionMs: 24 * 3_600_000,
  };
}

/** A catalog given as YAML, which must be valid. */
export function catalogOfYaml(yaml: string): Catalog {
  const parsed = parseCatalog(yaml, 'catalog.yaml');
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  return parsed.catalog;
}

/** Publishes a catalog given as YAML onto a store, as the service does at start. */
export async function publishYaml(
  events: EventStore,
  yaml: string,
  now: number,
  metadata: Pick<EventMetadata, 'correlationId' | 'causationId' | 'keyName'>,
): Promise<void> {
  const parsed = parseCatalog(yaml, 'catalog.yaml');
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  const deps = commandDepsFor(events, parsed.catalog, () => now);
  const published = await publishCatalog(deps, parsed.catalog, parsed.hash, now, metadata);
  await deps.jobs.close();
  if (!published.ok) throw new Error(published.failure.message);
}

/** The state caches of a store, and the pipeline's reads through them. */
function statesOf(events: EventStore) {
  const players = new PlayerStates(events);
  const stocks = new StockStates(events);
  return { players, stocks, states: new StreamStates(events, [players, stocks]) };
}
