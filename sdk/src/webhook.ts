/**
 * For a webhook's receiver: checks a delivery's Standard Webhooks signature (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`, the service's sender in webhooks/sender.ts) before
 * trusting its body.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

export { WebhookVerificationError };

/** One delivery's body: an event of the log (docs/webhooks.md). */
export interface WebhookDelivery {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/**
 * The delivery's body, parsed, when it is signed with `secret` (`whsec_...`) and was sent within
 * the last five minutes; else throws WebhookVerificationError. `body` is the raw text received, not
 * a re-serialised object (the signature covers the exact bytes).
 */
export function verifyWebhook(
  secret: string,
  headers: Headers | Record<string, string | string[] | undefined>,
  body: string,
): WebhookDelivery {
  const byName: Record<string, string> = {};
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value !== undefined) byName[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return new Webhook(secret).verify(body, byName) as WebhookDelivery;
}
