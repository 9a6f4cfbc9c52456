/**
 * Retries with exponential backoff and full jitter: a 429 or 503 (the service refused or could not
 * take the request, and says to retry later), and a network error where a retry cannot do the
 * request twice (a GET, or a write carrying its Idempotency-Key, which the service answers once).
 * A 503 with code 1004 (the write's outcome unknown: it may have been done) is like a network
 * error: retried only where it cannot be done twice.
 */
import { GamificationError } from './errors.ts';

export interface RetryPolicy {
  /** Attempts in all, the first included (default 5; 1: no retry). */
  attempts?: number;
  /** No retry starts after this many milliseconds since the first attempt (default 30000). */
  totalMs?: number;
  /** The first backoff, doubled at each retry (default 200 ms)... */
  baseDelayMs?: number;
  /** ...up to this (default 5000 ms); a Retry-After the service sends is waited for instead, within totalMs. */
  maxDelayMs?: number;
}

const DEFAULTS: Required<RetryPolicy> = { attempts: 5, totalMs: 30_000, baseDelayMs: 200, maxDelayMs: 5_000 };

const RETRIED_STATUSES = new Set([429, 503]);

/** The code of a write the service could not confirm (docs/api.md, "Safe retries"). */
const OUTCOME_UNKNOWN = 1004;

const sleep = (ms: number, signal: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', aborted);
    };
    const aborted = () => {
      done();
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, ms);
    signal?.addEventListener('abort', aborted, { once: true });
  });

/** The wait before retry number `retry` (1, 2, ...): a random share of the doubled backoff, or what Retry-After asks. */
export function backoffMs(
  policy: Required<RetryPolicy>,
  retry: number,
  retryAfter: string | null,
  random: () => number,
) {
  const seconds = retryAfter === null ? NaN : Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  return random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
}

/** A fetch that retries as the policy says; the same request (and Idempotency-Key) is sent each time. */
export function retryingFetch(
  fetchImpl: typeof fetch,
  settings: RetryPolicy = {},
  random: () => number = Math.random,
): (request: Request) => Promise<Response> {
  const policy = { ...DEFAULTS, ...settings };
  return async (request) => {
    const started = Date.now();
    const safe = request.method === 'GET' || request.headers.has('Idempotency-Key');
    for (let attempt = 1; ; attempt++) {
      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await fetchImpl(request.clone());
      } catch (error) {
        if (request.signal.aborted) throw error;
        failure = error;
      }
      const retryable = response
        ? RETRIED_STATUSES.has(response.status) && (safe || !(await outcomeUnknown(response)))
        : safe;
      const wait = backoffMs(policy, attempt, response?.headers.get('Retry-After') ?? null, random);
      if (!retryable || attempt >= policy.attempts || Date.now() - started + wait > policy.totalMs) {
        if (response) return response;
        throw new GamificationError(0, `No answer from ${request.url}: ${messageOf(failure)}`, 0, undefined, {
          cause: failure,
        });
      }
      // The body of an answer not given to the caller is dropped, so its connection can be reused.
      await response?.body?.cancel();
      await sleep(wait, request.signal);
    }
  };
}

/** Whether a 503 says the write's outcome is unknown; its body is read from a copy, left whole for the caller. */
async function outcomeUnknown(response: Response): Promise<boolean> {
  if (response.status !== 503) return false;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  return (body as { code?: unknown } | undefined)?.code === OUTCOME_UNKNOWN;
}

function messageOf(error: unknown): string {
  const e = error as { message?: string; cause?: { code?: string; message?: string } };
  return [e?.message, e?.cause?.code ?? e?.cause?.message].filter(Boolean).join(': ') || String(error);
}
