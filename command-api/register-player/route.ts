/** POST /v1/player/create. */
import { z } from 'zod';
import { SERVER_MOBILE } from '../../shared/adapters/auth/access';
import { ok } from '../../domain/result';
import { PLAYER_FIELDS, timeZone } from '../../shared/adapters/http/fields';
import { defineRoute, parseBody } from '../../shared/adapters/http/route';
import { canonicalPlayerId } from '../../domain/ids';
import { registeredShape } from '../../shared/adapters/http/wire-shapes';
import { replyOf, requestOrigin } from '../http';
import type { CommandDeps } from '../deps';
import { registerPlayer } from './handler';
import { documented, ERRORS, refuse } from '../../domain/errors';

const registerBody = z.object({ ...PLAYER_FIELDS, timeZone: timeZone().optional() });

/** POST /v1/player/create: registers a player ahead of their first action. */
export const registerPlayerRoute = (deps: CommandDeps) =>
  defineRoute({
    method: 'POST',
    idempotent: true,
    path: '/v1/player/create',
    tiers: SERVER_MOBILE,
    doc: {
      operationId: 'registerPlayer',
      summary: 'Register a player ahead of their first action',
      body: registerBody,
      response: registeredShape,
      errors: {
        1001: 'Payload is null, or a field is invalid (an unknown timeZone is named), or attributes beyond their bounds',
        ...documented(ERRORS.INVALID_PLAYER_ID),
        5002: 'PlayerId already exists (HTTP 200)',
        5003: 'PlayerId was erased (POST /v1/admin/players/erase): it is never registered again',
      },
    },
    parse: (input) => {
      const parsed = parseBody(registerBody)(input);
      if (!parsed.ok) return parsed;
      const playerId = canonicalPlayerId(parsed.value.playerId);
      return playerId ? ok({ ...parsed.value, playerId }) : refuse(ERRORS.INVALID_PLAYER_ID);
    },
    async handle(cmd, ctx) {
      return replyOf(await registerPlayer(cmd, requestOrigin(ctx, deps), deps), (registered) => ({
        playerId: registered.playerId,
        username: registered.username,
        imageName: registered.imageName,
        timeZone: registered.timeZone ?? null,
        attributes: registered.attributes ?? {},
      }));
    },
  });
