/**
 * The command side's HTTP layer, apart from the pipeline: where a request's command comes from,
 * and what the routes answer of its outcome.
 */
import type { Reply, RequestContext } from '../shared/adapters/http/route';
import { ERRORS } from '../domain/errors';
import { failure, isConflict, type ConflictFailure, type Failure, type Result } from '../domain/result';
import type { Decided } from './command';
import type { CommandDeps, CommandOrigin } from './deps';

/** A request's command: its events' metadata (the request is their cause), and its Idempotency-Key. */
export function requestOrigin(ctx: RequestContext, deps: Pick<CommandDeps, 'catalog'>): CommandOrigin {
  const metadata = {
    correlationId: ctx.correlationId,
    causationId: ctx.correlationId,
    keyName: ctx.key.name,
    catalogVersion: deps.catalog().version,
  };
  return { metadata, idempotency: ctx.idempotency };
}

/** The HTTP reply of a command: its answer shaped for the wire, its position, and whether it was replayed. */
export function replyOf<Answer>(
  decided: Result<Decided<Answer>, Failure | ConflictFailure>,
  shape: (answer: Answer) => unknown,
): Reply {
  if (!decided.ok) return { ok: false, failure: refusalOf(decided.failure) };
  const { answer, position, replayed } = decided.value;
  return { ok: true, value: shape(answer), position, ...(replayed ? { replayed } : {}) };
}

/**
 * What the client is told of a failed command: a refusal as it is; a conflict (every attempt
 * lost a race) as "too many concurrent changes", a 503 the client may retry.
 */
export function refusalOf(f: Failure | ConflictFailure): Failure {
  if (!isConflict(f)) return f;
  return failure(ERRORS.TOO_MANY_CONCURRENT_CHANGES.code, ERRORS.TOO_MANY_CONCURRENT_CHANGES.message);
}
