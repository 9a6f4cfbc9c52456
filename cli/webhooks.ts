/** `webhooks`: how far each webhook got and what failed; `webhooks redeliver`: send again after a position. */
import type { RunConfig } from '../shared/adapters/config/env';
import type { WebhookView } from '../webhooks/routes';
import { iso, writeLine } from './output';
import { askServer, type ServerOptions } from './server';

/** One line per webhook, then one per failure; with `json`, the service's answer as JSON. */
export async function showWebhooks(config: RunConfig, options: ServerOptions & { json: boolean }): Promise<number> {
  const hooks = await askServer<WebhookView[]>('webhooks', config, options, {
    method: 'GET',
    path: '/v1/admin/webhooks',
  });
  if (options.json) {
    await writeLine(JSON.stringify(hooks));
    return 0;
  }
  if (!hooks.length) await writeLine('no webhooks configured (WEBHOOKS_FILE)');
  for (const h of hooks) {
    await writeLine(
      `${h.name}  ${h.url}  position ${h.cursor} of ${h.head} (${h.head - h.cursor} behind)  ${h.delivered} delivered, ${h.waiting} waiting, ${h.failed} failed`,
    );
    for (const f of h.failures)
      await writeLine(
        `  failed  position ${f.position}  ${f.type}  ${f.eventId}  after ${f.attempts} attempt(s): ${f.lastResult ?? 'no answer'}`,
      );
    const last = h.recent[0];
    if (last) await writeLine(`  last attempt ${iso(last.at)}: ${last.outcome} (${last.result})`);
  }
  return 0;
}

export async function redeliverWebhook(
  config: RunConfig,
  options: ServerOptions & { webhook: string; after: number },
): Promise<number> {
  const answer = await askServer<{ cursorBefore: number }>('webhooks redeliver', config, options, {
    method: 'POST',
    path: '/v1/admin/webhooks/redeliver',
    body: { webhook: options.webhook, after: options.after },
  });
  await writeLine(
    `${options.webhook}: the events after position ${options.after} are sent again (it was at ${answer.cursorBefore})`,
  );
  return 0;
}
