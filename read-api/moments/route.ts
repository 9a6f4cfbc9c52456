/** GET /v1/player/moments. */
import { z } from 'zod';
import { EVERY_TIER } from '../../shared/adapters/auth/access';
import { PLAYER_ID_DOC, text } from '../../shared/adapters/http/fields';
import { defineRoute, parseWith } from '../../shared/adapters/http/route';
import { playerMomentsShape } from '../../shared/adapters/http/wire-shapes';
import type { Catalog } from '../../domain/catalog/types';
import { documented, ERRORS, refuse } from '../../domain/errors';
import { canonicalPlayerId } from '../../domain/ids';
import type { PlayerView, SentMoment } from '../../domain/player/state';
import type { DeepReadonly } from '../../domain/deep-readonly';
import { ok } from '../../domain/result';
import { pendingMoments } from '../../domain/rules/moments';
import type { StreamReadDeps } from '../deps';

const momentsQuery = z.object({ playerId: text().meta(PLAYER_ID_DOC) });

/** A moment as the API shows it: what its event says of the player's game, without the player and the (empty) effects. */
function shown(moment: DeepReadonly<SentMoment>) {
  const { playerId, effects, dueAt, ...data } = moment.data;
  return { type: moment.type, dueAt, data };
}

/** A player's pending moments (to come), and the last one appended of each kind and subject. */
export function playerMoments(catalog: Catalog, state: PlayerView, now: number) {
  return {
    pending: pendingMoments(catalog, state, now).map(shown),
    recent: [...state.moments.values()].sort((a, b) => b.data.dueAt - a.data.dueAt).map(shown),
  };
}

/** GET /v1/player/moments: read from the player's stream (via the state cache), so a moment appended is listed at once. */
export const playerMomentsRoute = (deps: StreamReadDeps) =>
  defineRoute({
    method: 'GET',
    path: '/v1/player/moments',
    tiers: EVERY_TIER,
    doc: {
      operationId: 'playerMoments',
      summary:
        "A player's moments (streak at risk, mission ending, league ending, inactive): pending, and the latest appended",
      query: momentsQuery,
      response: playerMomentsShape,
      errors: {
        1002: 'Missing required field (playerId), or playerId is not a UUID',
        ...documented(ERRORS.PLAYER_NOT_FOUND),
      },
    },
    parse({ query }) {
      const parsed = parseWith(momentsQuery, query, 1002);
      if (!parsed.ok) return parsed;
      const playerId = canonicalPlayerId(parsed.value.playerId);
      return playerId ? ok(playerId) : refuse(ERRORS.INVALID_PLAYER_ID);
    },
    async handle(playerId) {
      const { state } = await deps.players.load(playerId);
      if (!state.registered) return refuse(ERRORS.PLAYER_NOT_FOUND);
      return ok(playerMoments(deps.catalog().catalog, state, deps.now()));
    },
  });
