import type { PublishedCatalog } from '../domain/catalog/published';
import type { IdempotencyKey } from '../domain/events/idempotency-events';
import type { EventMetadata, EventStore } from '../shared/adapters/event-store/port';
import type { JobScheduler } from '../shared/adapters/jobs/port';
import type { PlayerStates } from '../shared/adapters/event-store/player-states';
import type { DecideEnv } from './decision';
import type { StockStates } from '../shared/adapters/event-store/stock-states';
import type { StreamStates } from '../shared/adapters/event-store/stream-states';

/** What command handlers need; the clock and randomness are here so tests can fix them. */
export interface CommandDeps {
  events: EventStore;
  players: PlayerStates;
  stocks: StockStates;
  /** Every stream's state by its fold, through the caches above where they hold it: what the pipeline reads. */
  states: StreamStates;
  /** Business-time work that must survive a restart: a Pending provision's timeout, a powerup's expiry. */
  jobs: JobScheduler;
  catalog(): PublishedCatalog;
  now(): number;
  random(): number;
  newUid(): string;
  /** How long an Idempotency-Key is honoured after its request. */
  idempotencyRetentionMs: number;
}

/** The outside world a decision sees: one clock reading per command, randomness, new uids, the catalog. */
export const decisionEnv = (deps: CommandDeps): DecideEnv => ({
  now: deps.now(),
  random: deps.random,
  newUid: deps.newUid,
  catalog: deps.catalog().catalog,
});

/** Where a command comes from (a request: see http.ts; a job): its events' metadata, and the request's Idempotency-Key, if any. */
export interface CommandOrigin {
  metadata: EventMetadata;
  idempotency: IdempotencyKey | null;
}

/** Metadata of events a scheduled job appends: the job is their cause. */
export function jobMetadata(jobId: string, deps: CommandDeps): EventMetadata {
  return { correlationId: jobId, causationId: jobId, keyName: 'scheduler', catalogVersion: deps.catalog().version };
}
