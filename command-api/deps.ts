import type { Catalog } from '../shared/catalog/schema';
import type { EventMetadata, EventStore } from '../shared/event-store/port';
import type { RequestContext } from '../shared/http/route';
import type { JobScheduler } from '../shared/jobs/port';
import type { DecisionEnv } from './player/grants';
import type { PlayerRepository } from './player/repository';

export interface PublishedCatalog {
  version: number;
  catalog: Catalog;
}

/** What command handlers need; the clock and randomness are here so tests can fix them. */
export interface CommandDeps {
  events: EventStore;
  players: PlayerRepository;
  /** Delayed work that must survive a restart: provision settlement, powerup expiry. */
  jobs: JobScheduler;
  catalog(): PublishedCatalog;
  now(): number;
  random(): number;
  newUid(): string;
  /** How old a reservation must be before recovery may finish or release it. */
  staleReservationMs: number;
}

export const decisionEnv = (deps: CommandDeps): DecisionEnv => ({ now: deps.now(), random: deps.random, newUid: deps.newUid });

export function requestMetadata(ctx: RequestContext, deps: CommandDeps): EventMetadata {
  return { correlationId: ctx.correlationId, causationId: ctx.correlationId, keyName: ctx.key.name, catalogVersion: deps.catalog().version };
}

/** Metadata of events a scheduled job appends: the job is their cause. */
export function jobMetadata(jobId: string, deps: CommandDeps): EventMetadata {
  return { correlationId: jobId, causationId: jobId, keyName: 'scheduler', catalogVersion: deps.catalog().version };
}
