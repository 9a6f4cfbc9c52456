import type { RunConfig } from '../shared/adapters/config/env';
import type { EventStore } from '../shared/adapters/event-store/port';
import type { ReadinessCheck } from '../shared/adapters/http/app';
import type { RateLimiter } from '../shared/adapters/rate-limit/port';
import type { ReadStore } from '../shared/adapters/read-store/port';
import { CHECKPOINTS, LOG_CHECKPOINT } from '../projections/runner';
import type { Role } from './roles';

/** The failure's message, as the reason readiness gives. */
async function answers(call: () => Promise<unknown>): Promise<string | null> {
  try {
    await call();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Readiness asks each server the role works with, by a small read (its answer is not used): the
 * event store (every role reads it), MongoDB (the roles that read or write read models; the
 * command role when it delivers webhooks, whose cursors are kept there), Redis (the roles that
 * serve rate-limited routes or run jobs, all but the projector). The embedded stores are the
 * process's own files: their faults are the process's work problem.
 */
export function backendChecks(deps: {
  role: Role;
  config: RunConfig;
  events: EventStore;
  readStore: ReadStore;
  limiter: RateLimiter;
  deliversWebhooks: boolean;
}): ReadinessCheck[] {
  const { role, config, events, readStore, limiter } = deps;
  const checks: ReadinessCheck[] = [];
  if (config.eventStoreUrl) checks.push({ name: 'kurrentdb', problem: () => answers(() => events.headPosition()) });
  if (config.mongoUrl && (role !== 'command' || deps.deliversWebhooks)) {
    checks.push({
      name: 'mongodb',
      problem: () => answers(() => readStore.collection(CHECKPOINTS).findOne({ _id: LOG_CHECKPOINT })),
    });
  }
  if (config.redisUrl && role !== 'projector') checks.push({ name: 'redis', problem: () => limiter.problem() });
  return checks;
}
