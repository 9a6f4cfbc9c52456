/**
 * What a decider or handler returns: a value, or a domain failure with the API's error code and
 * a message for the client. Failures are values, never thrown strings, so the game rules do not
 * depend on the HTTP layer that turns them into envelopes.
 */
export interface Failure {
  code: number;
  message: string;
  /** Seconds, for 429. */
  retryAfterSeconds?: number;
  /** The recorded answer of an earlier request with the same Idempotency-Key. */
  replayed?: true;
}

/**
 * A command that lost the race for its streams on every attempt: nothing was decided against the
 * state, so it is no refusal of the rules; a retry may well succeed. The routes answer it as
 * "too many concurrent changes".
 */
export interface ConflictFailure {
  kind: 'conflict';
  attempts: number;
  /** For logs and thrown errors; the client's message is the route layer's. */
  message: string;
}

export type Result<T, F = Failure> = { ok: true; value: T } | { ok: false; failure: F };

export const conflict = (attempts: number): ConflictFailure => ({
  kind: 'conflict',
  attempts,
  message: `lost the race for its streams ${attempts} times`,
});
export const isConflict = (f: Failure | ConflictFailure): f is ConflictFailure => 'kind' in f && f.kind === 'conflict';

export const failure = (code: number, message: string): Failure => ({ code, message });
export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(code: number, message: string): Result<T> => ({
  ok: false,
  failure: { code, message },
});
