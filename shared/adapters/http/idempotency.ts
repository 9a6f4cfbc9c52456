/**
 * The `Idempotency-Key` request header: a client names an attempt of a state-changing request, so
 * that a retry of it (a lost answer, a timeout) gets the first answer instead of being done twice
 * (docs/api.md, "Safe retries").
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../domain/canonical-json';
import type { IdempotencyKey } from '../../../domain/events/idempotency-events';
import { fail, ok, type Result } from '../../../domain/result';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Set on an answer that is the recorded answer of an earlier request with the same key. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** 1 to 255 visible ASCII characters (a UUID is what clients usually send). */
const KEY = /^[\x21-\x7e]{1,255}$/;

/** The request's key, null when it sent none, or 1001 for a malformed one. */
export function idempotencyKeyOf(
  header: string | undefined,
  keyName: string,
  method: string,
  path: string,
  body: unknown,
): Result<IdempotencyKey | null> {
  if (header === undefined) return ok(null);
  if (!KEY.test(header)) return fail(1001, `${IDEMPOTENCY_HEADER}: must be 1 to 255 visible ASCII characters`);
  const fingerprint = createHash('sha256')
    .update(`${method} ${path}\n${canonicalJson(body ?? null)}`)
    .digest('hex');
  return ok({ keyName, key: header, fingerprint });
}
