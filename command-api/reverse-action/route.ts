import { SERVER_MOBILE } from '../../shared/auth/access';
import { ok } from '../../shared/http/envelope';
import { defineRoute } from '../../shared/http/route';
import { requestMetadata, type CommandDeps } from '../deps';
import { actionBodyWithNested, parseActionBody, parseWithNested } from '../process-action/route';
import { reverseAction } from './handler';
import { runNested } from '../process-action/nested';

export const reverseActionRoute = (deps: CommandDeps) =>
  defineRoute({
    method: 'POST',
    path: '/v1/action/delete',
    tiers: SERVER_MOBILE,
    acceptsNestedActions: true,
    rateLimited: true,
    doc: {
      summary: 'Reverse a processed action: compensating events take back all it granted and refund its cost',
      body: actionBodyWithNested,
      errors: { 1001: 'Payload is null, or a field is missing or invalid', 1002: 'Invalid player: playerId must be a UUID', 101: 'Action is not reversible (unknown, name or player differ, already reversed, or a prize was spent)' },
    },
    // Same body as process; a future timestamp is not an error for a reversal, so "now" is far ahead.
    parse: (input) => parseWithNested(input, Number.MAX_SAFE_INTEGER),
    async handle({ outer, nested }, ctx) {
      const metadata = requestMetadata(ctx, deps);
      const first = await reverseAction(outer, metadata, deps);
      if (!first.ok) return first;
      if (!nested.length) return { ok: true, value: undefined, position: first.value.position };
      const outcomes = await runNested(nested, (body) => parseActionBody(body, Number.MAX_SAFE_INTEGER), (cmd) => reverseAction(cmd, metadata, deps));
      const position = Math.max(first.value.position, ...outcomes.map((r) => (r.ok ? r.value.position : 0)));
      const results = outcomes.map((r) => (r.ok ? { code: 200 } : { code: r.failure.code, data: r.failure.message }));
      return { ...ok({ nested: results }), position };
    },
  });
