import type { RunConfig } from '../shared/adapters/config/env';
import type { EventStore } from '../shared/adapters/event-store/port';
import type { ReadinessCheck } from '../shared/adapters/http/app';
import type { PlayerKeys } from '../shared/adapters/player-keys/port';
import type { RateLimiter } from '../shared/adapters/rate-limit/port';
import type { ReadStore } from '../shared/adapters/read-store/port';
import { CHECKPOINTS, LOG_CHECKPOINT } from '../projections/projector';
import { LEADERBOARD_COLLECTIONS, type ScoreDoc } from '../shared/read-models/leaderboards';
import { rankIndexOf } from '../shared/read-models/standings';
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

/** A player id no player has: reading its key asks the key store without a key in the answer. */
export const KEY_PROBE = 'readiness-probe';

/**
 * Readiness asks each server the role works with, by a small read (its answer is not used): the
 * event store (every role reads it), MongoDB's read models (the roles that read or write them;
 * the command role when it delivers webhooks, whose cursors are kept there), MongoDB's player
 * keys (every role: personal fields are written and read through them), Redis (the roles that
 * run jobs: the command role; with MongoDB, the read and projector roles too, which read and
 * write the leaderboards' standings there, shared/read-models/standings-redis.ts; the read
 * role's rate limits alone would go on in the process, openRateLimiter). The embedded stores
 * are the process's own files: their faults are the process's work problem.
 */
export function backendChecks(deps: {
  role: Role;
  config: RunConfig;
  events: EventStore;
  readStore: ReadStore;
  keys: PlayerKeys;
  limiter: RateLimiter;
  deliversWebhooks: boolean;
}): ReadinessCheck[] {
  const { role, config, events, readStore, keys, limiter } = deps;
  const checks: ReadinessCheck[] = [];
  if (config.eventStoreUrl) checks.push({ name: 'kurrentdb', problem: () => answers(() => events.headPosition()) });
  if (config.mongoUrl && (role !== 'command' || deps.deliversWebhooks)) {
    checks.push({
      name: 'mongodb',
      problem: () => answers(() => readStore.collection(CHECKPOINTS).findOne({ _id: LOG_CHECKPOINT })),
    });
  }
  if (config.mongoUrl) checks.push({ name: 'player keys', problem: () => answers(() => keys.get(KEY_PROBE)) });
  if (config.redisUrl && (role === 'all' || role === 'command'))
    checks.push({ name: 'redis', problem: () => limiter.problem() });
  else if (config.redisUrl && config.mongoUrl) {
    // A count of a board period no board has: the standings' Redis answers, with nothing in it.
    const probe = { board: KEY_PROBE, period: KEY_PROBE };
    checks.push({
      name: 'redis',
      problem: () =>
        answers(() => rankIndexOf(readStore.collection<ScoreDoc>(LEADERBOARD_COLLECTIONS.scores)).above(probe, 0)),
    });
  }
  return checks;
}
