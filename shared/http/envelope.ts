import type { Response } from 'express';

/**
 * The envelope of api.md: `{code, data}`; a failure carries a numeric code and a text.
 * HTTP statuses follow decisions.md §2.
 */
export interface Failure {
  code: number;
  message: string;
  /** Seconds, for 429. */
  retryAfterSeconds?: number;
}

export const failure = (code: number, message: string): Failure => ({ code, message });

/** 503: a stream stayed contended through every retry of a decision; the request changed nothing for good. */
export const TOO_MANY_CONCURRENT_CHANGES = 'Too many concurrent changes; retry later';

/** What a handler or decider returns: a value, or a domain failure (never a thrown string). */
export type Result<T> = { ok: true; value: T } | { ok: false; failure: Failure };
export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(code: number, message: string): Result<T> => ({ ok: false, failure: { code, message } });

/** HTTP status of an envelope error code. */
export function httpStatusOf(code: number): number {
  switch (code) {
    case 4001:
      return 401;
    case 4002:
    case 4003:
    case 4004:
      return 403;
    case 429:
      return 429;
    case 500:
      return 500;
    case 503:
      return 503;
    case 5002: // "PlayerId already exists" is informational (decisions.md §5)
      return 200;
    default:
      return 400;
  }
}

export function sendData(res: Response, data: unknown): void {
  res.status(200).json(data === undefined ? { code: 200 } : { code: 200, data });
}

export function sendFailure(res: Response, f: Failure, httpStatus = httpStatusOf(f.code)): void {
  if (f.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(f.retryAfterSeconds));
  res.status(httpStatus).json({ code: f.code, data: f.message });
}
