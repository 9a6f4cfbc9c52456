/** The routes that answer one list of what a player holds (`{playerId}` in, 9020 for a player never registered). */
import { z } from 'zod';
import { EVERY_TIER } from '../shared/auth/access';
import type { Catalog } from '../shared/catalog/types';
import { PLAYER_ID_DOC, text } from '../shared/http/fields';
import { defineRoute, parseWith, requireObject } from '../shared/http/route';
import { canonicalPlayerId } from '../shared/ids';
import type { PlayerState } from '../shared/player/state';
import { fail, ok } from '../shared/result';
import type { StreamReadDeps } from './deps';

const listBody = z.object({ playerId: text().meta(PLAYER_ID_DOC) });

/** A list read from the player's stream, so a write is visible at once; every tier may ask. */
export const playerListRoute = <Item>(
  deps: StreamReadDeps,
  route: {
    path: string;
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
      summary: route.summary,
      body: listBody,
      response: z.array(route.item),
      errors: {
        1001: 'Payload is null',
        1002: 'Missing required field (playerId), or playerId is not a UUID',
        9020: 'Player not found',
      },
    },
    parse(input) {
      const object = requireObject(input.body);
      if (!object.ok) return object;
      const parsed = parseWith(listBody, object.value, 1002);
      if (!parsed.ok) return parsed;
      const playerId = canonicalPlayerId(parsed.value.playerId);
      return playerId ? ok(playerId) : fail(1002, 'Invalid player: playerId must be a UUID');
    },
    async handle(playerId) {
      const { state } = await deps.players.load(playerId);
      if (!state.registered) return fail(9020, 'Player not found');
      return ok(route.list(deps.catalog().catalog, state, deps.now()));
    },
  });
