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

export type Result<T> = { ok: true; value: T } | { ok: false; failure: Failure };

export const failure = (code: number, message: string): Failure => ({ code, message });
export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(code: number, message: string): Result<T> => ({
  ok: false,
  failure: { code, message },
});
