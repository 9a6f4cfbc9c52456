/** What the command routes answer: a command's outcome as an HTTP reply. */
import type { Reply } from '../shared/adapters/http/route';
import { ERRORS } from '../shared/domain/errors';
import { failure, isConflict, type ConflictFailure, type Failure, type Result } from '../shared/domain/result';
import type { Decided } from './command';

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
