/** The routes that answer one list of what a player holds (`{playerId}` in, 9020 for a player never registered). */
import { z } from 'zod';
import { EVERY_TIER } from '../shared/adapters/auth/access';
import type { Catalog } from '../domain/catalog/types';
import { PLAYER_ID_DOC, text } from '../shared/adapters/http/fields';
import { defineRoute, parseWith, requireObject } from '../shared/adapters/http/route';
import { canonicalPlayerId } from '../domain/ids';
import type { PlayerState } from '../domain/player/state';
import { ok } from '../domain/result';
import type { StreamReadDeps } from './deps';
import { documented, ERRORS, refuse } from '../domain/errors';

const listBody = z.object({ playerId: text().meta(PLAYER_ID_DOC) });

/** A list read from the player's stream, so a write is visible at once; every tier may ask. */
export const playerListRoute = <Item>(
  deps: StreamReadDeps,
  route: {
    path: string;
    operationId: string;
    summary: string;
    item: z.ZodType;
    list: (catalog: Catalog, state: PlayerState, now: number) => Item[];
  },
) =>
  defineRoute({
    method: 'POST',
    path: route.path,
    tiers: EVERY_TIER,
    doc: {
      operationId: route.operationId,
      summary: route.summary,
      body: listBody,
      response: z.array(route.item),
      errors: {
        ...documented(ERRORS.PAYLOAD_NULL),
        1002: 'Missing required field (playerId), or playerId is not a UUID',
        ...documented(ERRORS.PLAYER_NOT_FOUND),
      },
    },
    parse(input) {
      const object = requireObject(input.body);
      if (!object.ok) return object;
      const parsed = parseWith(listBody, object.value, 1002);
      if (!parsed.ok) return parsed;
      const playerId = canonicalPlayerId(parsed.value.playerId);
      return playerId ? ok(playerId) : refuse(ERRORS.INVALID_PLAYER_ID);
    },
    // A Client key may read any player's list; with a player's token, only that player's.
    playerOf: (playerId) => playerId,
    async handle(playerId) {
      const { state } = await deps.players.load(playerId);
      if (!state.registered) return refuse(ERRORS.PLAYER_NOT_FOUND);
      return ok(route.list(deps.catalog().catalog, state, deps.now()));
    },
  });
