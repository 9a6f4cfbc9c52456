import { z } from 'zod';

/**
 * A request sent with an `Idempotency-Key`, on the stream of that key (per API key name), in the
 * same append as the request's effects: the first answer, which a retry with the same key and
 * the same request gets again.
 */
export const idempotentRequestSchema = z.object({
  /** The API key's name: keys are scoped per API key. */
  keyName: z.string(),
  idempotencyKey: z.string(),
  /** Of the request's method, path and body (canonical JSON): another request may not reuse the key. */
  fingerprint: z.string(),
  /** The decision's answer, or the domain refusal it was. */
  outcome: z.union([
    z.object({ ok: z.literal(true), answer: z.unknown() }),
    z.object({ ok: z.literal(false), code: z.number().int(), message: z.string() }),
  ]),
  /** Unix ms: the key is honoured for the retention period after this. */
  recordedAt: z.number(),
});
export type IdempotentRequest = z.infer<typeof idempotentRequestSchema>;

/**
 * A request of several commands (nested actions) sent with an `Idempotency-Key` has begun: written
 * before its first command, so that a concurrent duplicate waits for its answer instead of
 * running (and recording a refusal of its own). Its `IdempotentRequestRecorded` follows.
 */
export const idempotentRequestStartedSchema = z.object({
  keyName: z.string(),
  idempotencyKey: z.string(),
  fingerprint: z.string(),
  /** Unix ms: a start this old without an answer is of a request that died mid-way. */
  startedAt: z.number(),
});
export type IdempotentRequestStart = z.infer<typeof idempotentRequestStartedSchema>;

/** A key as the command pipeline keeps it: scoped to the API key that sent it, with the request it named. */
export interface IdempotencyKey {
  keyName: string;
  key: string;
  /** Of the method, path and body: another request may not reuse the key. */
  fingerprint: string;
}
