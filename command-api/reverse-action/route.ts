/** POST /v1/action/delete, with nested reversals. */
import { SERVER_MOBILE } from '../../shared/adapters/auth/access';
import { defineRoute } from '../../shared/adapters/http/route';
import { replyOf, requestOrigin } from '../http';
import type { CommandDeps } from '../deps';
import { actionBodyWithNested, parseActionBody, parseWithNested } from '../process-action/route';
import { reverseAction } from './handler';
import { runWithNested } from '../process-action/nested';
import { documented, ERRORS } from '../../domain/errors';

export const reverseActionRoute = (deps: CommandDeps) =>
  defineRoute({
    method: 'POST',
    path: '/v1/action/delete',
    tiers: SERVER_MOBILE,
    acceptsNestedActions: true,
    rateLimited: true,
    idempotent: true,
    doc: {
      operationId: 'reverseAction',
      summary: 'Reverse a processed action: compensating events take back all it granted and refund its cost',
      body: actionBodyWithNested,
      errors: {
        1001: 'Payload is null, or a field is missing or invalid',
        ...documented(ERRORS.INVALID_PLAYER_ID),
        101: 'Action is not reversible (unknown, name or player differ, already reversed, or a prize was spent)',
      },
    },
    // Same body as process; a future timestamp is not an error for a reversal, so "now" is far ahead.
    parse: (input) => parseWithNested(input, Number.MAX_SAFE_INTEGER),
    async handle(request, ctx) {
      const origin = requestOrigin(ctx, deps);
      // A reversal answers `{code: 200}` without data; with nested ones, `data.nested` has each outcome.
      if (!request.nested.length) return replyOf(await reverseAction(request.outer, origin, deps), () => undefined);
      const all = await runWithNested(
        deps,
        origin,
        request,
        (body) => parseActionBody(body, Number.MAX_SAFE_INTEGER),
        (cmd, each) => reverseAction(cmd, each, deps),
        (_first, nested) => ({
          nested: nested.map((r) => (r.ok ? { code: 200 } : { code: r.failure.code, data: r.failure.message })),
        }),
      );
      return replyOf(all, (result) => result);
    },
  });
