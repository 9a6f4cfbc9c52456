/** GET /v1/action/get-response. */
import { z } from 'zod';
import { EVERY_TIER } from '../../shared/adapters/auth/access';
import { playerEventOf, referenceEventOf } from '../../domain/events';
import type { ReferenceRecorded } from '../../domain/events/reference-events';
import { text } from '../../shared/adapters/http/fields';
import { defineRoute, parseWith } from '../../shared/adapters/http/route';
import { actionResultShape } from '../../shared/adapters/http/wire-shapes';
import { ok } from '../../domain/result';
import { referenceStream } from '../../domain/streams';
import type { StreamReadDeps } from '../deps';
import { ERRORS, refuse } from '../../domain/errors';

const responseQuery = z.object({ referenceId: text() });

/**
 * GET /v1/action/get-response: the original result, read from the player's stream at the
 * revision the referenceId's record names, with `reversed: true` once reversed. The record and
 * the action are written in one append, so whatever answers 2601 has a result here at once.
 */
export const actionResponseRoute = (deps: Pick<StreamReadDeps, 'events' | 'players'>) =>
  defineRoute({
    method: 'GET',
    path: '/v1/action/get-response',
    tiers: EVERY_TIER,
    doc: {
      operationId: 'actionResponse',
      summary: 'The result of an earlier process request',
      query: responseQuery,
      response: actionResultShape,
      errors: { 1001: 'referenceId is missing', 5001: 'Action not found' },
    },
    parse: ({ query }) => parseWith(responseQuery, query),
    async handle({ referenceId }) {
      let recorded: ReferenceRecorded | null = null;
      let reversed = false;
      for (const event of await deps.events.readStream(referenceStream(referenceId))) {
        const e = referenceEventOf(event);
        if (e?.type === 'ReferenceRecorded') recorded = e.data;
        if (e?.type === 'ReferenceReversed') reversed = true;
      }
      if (!recorded) return refuse(ERRORS.ACTION_NOT_FOUND);
      const event = await deps.players.eventAt(recorded.playerId, recorded.playerRevision);
      const processed = event && playerEventOf(event);
      if (processed?.type !== 'ActionProcessed')
        throw new Error(
          `reference ${referenceId} names revision ${recorded.playerRevision} of player ${recorded.playerId}, which is not its ActionProcessed`,
        );
      return ok(reversed ? { ...processed.data.result, reversed: true } : processed.data.result);
    },
  });
