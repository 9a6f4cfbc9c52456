/**
 * One HTTP attempt of one delivery, signed as Standard Webhooks says: `webhook-id` (the event's
 * id, the same on every attempt, so a receiver can drop what it already has), `webhook-timestamp`
 * (the attempt's time, in seconds) and `webhook-signature` over id, timestamp and body.
 */
import { Webhook as Signer } from 'standardwebhooks';
import type { Webhook } from './config';

export interface AttemptResult {
  /** A 2xx answer. */
  ok: boolean;
  /** `HTTP 204`, `timeout after 5000 ms`, `connection refused`: what an operator reads. */
  result: string;
}

export type Send = (hook: Webhook, eventId: string, body: string) => Promise<AttemptResult>;

/** Sends with `fetch`, giving up after `timeoutMs` (the receiver's answer counts, not its body). */
export function httpSender(timeoutMs: number): Send {
  const signers = new Map<string, Signer>();
  return async (hook, eventId, body) => {
    let signer = signers.get(hook.secret);
    if (!signer) signers.set(hook.secret, (signer = new Signer(hook.secret)));
    const sentAt = new Date();
    const headers = {
      'content-type': 'application/json',
      'webhook-id': eventId,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signer.sign(eventId, sentAt, body),
    };
    try {
      const response = await fetch(hook.url, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      // The body is not read: drop it so the connection can be reused.
      await response.body?.cancel();
      return { ok: response.status >= 200 && response.status < 300, result: `HTTP ${response.status}` };
    } catch (error) {
      const e = error as Error & { cause?: { code?: string } };
      if (e.name === 'TimeoutError') return { ok: false, result: `timeout after ${timeoutMs} ms` };
      return { ok: false, result: e.cause?.code ?? e.message };
    }
  };
}
