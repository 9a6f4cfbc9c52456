import { setImmediate } from 'node:timers/promises';
import type { Response } from 'express';
import type { Failure } from '../../../domain/result';

/**
 * The envelope every answer is wrapped in: `{code: 200, data}` on success, `{code, data:
 * "<message>"}` on failure; the HTTP status follows the code (docs/api.md, "Envelope and statuses").
 */

/** 503: a read's X-Min-Position was not projected within MIN_POSITION_WAIT_MS (the message adds the position). */
export const NOT_YET_PROJECTED = 'Read models behind';

/** HTTP status of an envelope error code. */
export function httpStatusOf(code: number): number {
  switch (code) {
    case 4001:
    case 4005: // a player token not issued here
    case 4006: // a player token expired
      return 401;
    case 4002:
    case 4003:
    case 4004:
    case 4007: // a player token for another player
      return 403;
    case 429:
      return 429;
    case 1003: // an Idempotency-Key reused for another request
      return 422;
    case 500:
      return 500;
    case 503:
    case 1004: // a write's outcome unknown (ERRORS.OUTCOME_UNKNOWN): the store's fault, not the request's
      return 503;
    case 9032: // a simulation is running: the request conflicts with it, not a fault of its own
    case 9034: // a verification is running: likewise
      return 409;
    case 5002: // "PlayerId already exists" is informational
      return 200;
    default:
      return 400;
  }
}

export function sendData(res: Response, data: unknown): void {
  sendEnvelope(res, 200, data === undefined ? { code: 200 } : { code: 200, data });
}

/**
 * The envelope of data in pieces (route.ts, DataInPieces), each piece written on a turn of the
 * event loop of its own, and only once the client has taken the last ones; a client gone stops
 * it. A fault once the answer has begun can only cut it short: the connection is closed.
 */
export async function sendDataInPieces(res: Response, pieces: Iterable<string>): Promise<void> {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  try {
    res.write('{"code":200,"data":');
    for (const piece of pieces) {
      if (res.destroyed) return;
      if (!res.write(piece)) await taken(res);
      else await setImmediate();
    }
    res.end('}');
  } catch (e) {
    res.destroy();
    throw e;
  }
}

/** Resolves when what was written to `res` has been taken by the client, or the client has gone. */
function taken(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

export function sendFailure(res: Response, f: Failure, httpStatus = httpStatusOf(f.code)): void {
  if (f.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(f.retryAfterSeconds));
  sendEnvelope(res, httpStatus, { code: f.code, data: f.message });
}

/**
 * Writes the envelope straight to the response: every answer of the API is fresh JSON, so
 * express's `res.json` work (charset parsing, ETag and freshness checks) is cost without use.
 */
function sendEnvelope(res: Response, status: number, envelope: object): void {
  const body = JSON.stringify(envelope);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
