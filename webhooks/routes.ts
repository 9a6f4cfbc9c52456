/**
 * The operators' view of the webhooks (GET /v1/admin/webhooks) and their one lever: send again
 * every event after a position (POST /v1/admin/webhooks/redeliver).
 */
import { z } from 'zod';
import { OPERATORS } from '../shared/adapters/auth/access';
import type { EventStore } from '../shared/adapters/event-store/port';
import { text } from '../shared/adapters/http/fields';
import { defineRoute, parseWith, requireObject, type AnyRoute } from '../shared/adapters/http/route';
import type { Logger } from '../shared/adapters/logging/logger';
import type { ReadStore } from '../shared/adapters/read-store/port';
import { fail, ok } from '../domain/result';
import type { Webhook } from './config';
import { WEBHOOK_COLLECTIONS, type CursorDoc, type DeliveryDoc, type SummaryDoc } from './deliveries';

/** Failures listed per webhook, newest first. */
const FAILURES_LISTED = 20;

const outcomeShape = z.object({
  eventId: z.string(),
  type: z.string(),
  position: z.number().int(),
  outcome: z.enum(['delivered', 'retrying', 'failed']),
  attempts: z.number().int(),
  at: z.number().int().describe('Unix ms of the attempt'),
  result: z.string().describe('the receiver\'s answer: "HTTP 204", "timeout after 5000 ms", "ECONNREFUSED"'),
});

const webhookShape = z.object({
  name: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  cursor: z.number().int().describe('every event up to this position was delivered, given up, or waits'),
  head: z.number().int().describe("the log's last position: head - cursor is how far behind the webhook is"),
  waiting: z.number().int().describe('deliveries waiting for a retry, or queued behind one in their lane'),
  failed: z.number().int().describe('deliveries given up (their attempts used up), kept until redelivered'),
  delivered: z.number().int().describe('deliveries that succeeded since the webhook was first configured'),
  recent: z.array(outcomeShape).describe('the latest attempts, newest first'),
  failures: z.array(
    z.object({
      eventId: z.string(),
      type: z.string(),
      position: z.number().int(),
      attempts: z.number().int(),
      lastResult: z.string().nullable(),
    }),
  ),
});

/** A webhook as operators see it (the CLI prints it). */
export type WebhookView = z.infer<typeof webhookShape>;

const redeliverBody = z.object({
  webhook: text(),
  after: z
    .number({ error: 'must be a log position' })
    .int('must be a log position')
    .nonnegative('must be a log position'),
});

export interface WebhookRouteDeps {
  hooks: readonly Webhook[];
  store: ReadStore;
  events: Pick<EventStore, 'headPosition'>;
  /** Runs a webhook's job now. */
  wake(name: string): Promise<void>;
  log: Logger;
}

export function webhookRoutes(deps: WebhookRouteDeps): AnyRoute[] {
  const cursors = deps.store.collection<CursorDoc>(WEBHOOK_COLLECTIONS.cursors);
  const deliveries = deps.store.collection<DeliveryDoc>(WEBHOOK_COLLECTIONS.deliveries);
  const summaries = deps.store.collection<SummaryDoc>(WEBHOOK_COLLECTIONS.summaries);
  return [
    defineRoute({
      method: 'GET',
      path: '/v1/admin/webhooks',
      tiers: OPERATORS,
      doc: {
        operationId: 'webhooks',
        summary: 'The configured webhooks: how far each got in the log, what waits, what failed, the latest attempts',
        response: z.array(webhookShape),
        errors: {},
      },
      parse: () => ok({}),
      async handle() {
        const head = await deps.events.headPosition();
        const views = [];
        for (const hook of deps.hooks) {
          const summary = await summaries.findOne({ _id: hook.name });
          const failures = await deliveries.find(
            { hook: hook.name, status: 'failed' },
            { sort: { position: -1 }, limit: FAILURES_LISTED },
          );
          views.push({
            name: hook.name,
            url: hook.url,
            events: [...hook.events],
            // Not started yet: it will start at the head.
            cursor: (await cursors.findOne({ _id: hook.name }))?.position ?? head,
            head,
            waiting: await deliveries.countDocuments({ hook: hook.name, status: 'waiting' }),
            failed: await deliveries.countDocuments({ hook: hook.name, status: 'failed' }),
            delivered: summary?.delivered ?? 0,
            recent: summary?.recent ?? [],
            failures: failures.map((d) => ({
              eventId: d.eventId,
              type: d.type,
              position: d.position,
              attempts: d.attempts,
              lastResult: d.lastResult,
            })),
          });
        }
        return ok(views);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/v1/admin/webhooks/redeliver',
      tiers: ['Server'],
      doc: {
        operationId: 'redeliverWebhook',
        summary:
          "Sends a webhook's events after a log position again, failed ones included, in order; deliveries waiting for a retry get a fresh set of attempts",
        body: redeliverBody,
        response: z.object({ webhook: z.string(), after: z.number().int(), cursorBefore: z.number().int() }),
        errors: {
          1001: "Payload is null, webhook is not a configured webhook, or after is not a position at most the webhook's cursor",
        },
      },
      parse(input) {
        const object = requireObject(input.body);
        return object.ok ? parseWith(redeliverBody, object.value) : object;
      },
      async handle({ webhook, after }, ctx) {
        if (!deps.hooks.some((h) => h.name === webhook))
          return fail(
            1001,
            `webhook: no webhook is named "${webhook}" (configured: ${deps.hooks.map((h) => h.name).join(', ') || 'none'})`,
          );
        const cursor = await cursors.findOne({ _id: webhook });
        const before = cursor?.position ?? (await deps.events.headPosition());
        if (after > before)
          return fail(
            1001,
            `after: must be at most ${before}, the webhook's cursor (the events after it are still to be sent)`,
          );
        // One atomic change: the epoch keeps a run that read the old cursor from moving it forward
        // again, or from pausing the webhook again; the pause ends, so that this is attempted at once.
        await cursors.updateOne(
          { _id: webhook },
          { $set: { position: after, pauses: 0, pausedUntil: 0 }, $inc: { epoch: 1 } },
          { upsert: true },
        );
        await deliveries.deleteMany({ hook: webhook, status: 'failed', position: { $gt: after } });
        // What waits for a retry gets a fresh set of attempts, from its turn on: a redelivery usually follows a fixed receiver.
        const waiting = await deliveries.find({ hook: webhook, status: 'waiting', attempts: { $gt: 0 } });
        if (waiting.length)
          await deliveries.bulkWrite(
            waiting.map((d) => ({
              updateOne: { filter: { _id: d._id }, update: { $set: { nextAttemptAt: 0, attempts: 0 } } },
            })),
          );
        await deps.wake(webhook);
        ctx.log.info({ webhook, after, cursorBefore: before }, 'webhook redelivery requested');
        return ok({ webhook, after, cursorBefore: before });
      },
    }),
  ];
}
