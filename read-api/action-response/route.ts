import { z } from 'zod';
import { actionResultShape } from '../../shared/http/wire-shapes';
import { ALL_TIERS } from '../../shared/auth/access';
import { fail, ok } from '../../shared/http/envelope';
import { text } from '../../shared/http/fields';
import { defineRoute, parseWith } from '../../shared/http/route';
import { requestMetadata, type CommandDeps } from '../../command-api/deps';
import { recoverReference } from '../../command-api/process-action/handler';
import { readReference } from '../../command-api/references/reference-stream';

const responseQuery = z.object({ referenceId: text() });

/** GET /v1/action/get-response: the original result, read from the reference stream. */
export const actionResponseRoute = (deps: CommandDeps) =>
  defineRoute({
    method: 'GET',
    path: '/v1/action/get-response',
    tiers: ALL_TIERS,
    doc: { summary: 'The result of an earlier process request', query: responseQuery, response: actionResultShape, errors: { 1001: 'referenceId is missing', 5001: 'Action not found' } },
    parse: ({ query }) => parseWith(responseQuery, query),
    async handle({ referenceId }, ctx) {
      let reference = await readReference(deps.events, referenceId);
      if (reference.status === 'reserved' && deps.now() - reference.reservedAt >= deps.staleReservationMs) {
        reference = await recoverReference(referenceId, reference, requestMetadata(ctx, deps), deps);
      }
      if (reference.status !== 'completed') return fail(5001, 'Action not found');
      const { state } = await deps.players.load(reference.playerId);
      return ok(state.reversed.has(referenceId) ? { ...reference.result, reversed: true } : reference.result);
    },
  });
