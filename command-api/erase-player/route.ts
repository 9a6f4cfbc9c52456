/** POST /v1/admin/players/erase. */
import { z } from 'zod';
import type { PlayerKeys } from '../../shared/adapters/player-keys/port';
import { defineRoute, parseBody } from '../../shared/adapters/http/route';
import { canonicalPlayerId } from '../../domain/ids';
import { ok } from '../../domain/result';
import { documented, ERRORS, refuse } from '../../domain/errors';
import { replyOf, requestOrigin } from '../http';
import type { CommandDeps } from '../deps';
import { erasePlayer } from './handler';

const eraseBody = z.object({ playerId: z.string().describe('The player to erase (a UUID)') });
const erasedShape = z.object({
  playerId: z.string(),
  erasedAt: z.number().int().describe('Unix ms'),
});

/** POST /v1/admin/players/erase: a player's erasure request (GDPR art. 17), Server keys only. */
export const erasePlayerRoute = (deps: CommandDeps, keys: PlayerKeys, keysCachedMs: number) =>
  defineRoute({
    method: 'POST',
    idempotent: true,
    path: '/v1/admin/players/erase',
    tiers: ['Server'],
    doc: {
      operationId: 'erasePlayer',
      summary:
        "Erase a player: their key is deleted, so their username, imageName and actions' details read [erased] everywhere; amounts stay",
      body: eraseBody,
      response: erasedShape,
      errors: {
        1001: 'Payload is null, or playerId is missing',
        ...documented(ERRORS.INVALID_PLAYER_ID),
        5003: 'PlayerId does not exist, or was erased already',
      },
    },
    parse: (input) => {
      const parsed = parseBody(eraseBody)(input);
      if (!parsed.ok) return parsed;
      const playerId = canonicalPlayerId(parsed.value.playerId);
      return playerId ? ok({ playerId }) : refuse(ERRORS.INVALID_PLAYER_ID);
    },
    async handle(cmd, ctx) {
      return replyOf(await erasePlayer(cmd, requestOrigin(ctx, deps), deps, keys, keysCachedMs), (e) => ({
        playerId: e.playerId,
        erasedAt: e.erasedAt,
      }));
    },
  });
