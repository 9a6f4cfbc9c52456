/** POST /v1/player/update. */
import { z } from 'zod';
import { SERVER_MOBILE } from '../../shared/adapters/auth/access';
import { PLAYER_FIELDS, timeZone } from '../../shared/adapters/http/fields';
import { defineRoute, parseBody } from '../../shared/adapters/http/route';
import { registeredShape } from '../../shared/adapters/http/wire-shapes';
import { canonicalPlayerId } from '../../domain/ids';
import { ok } from '../../domain/result';
import { replyOf, requestOrigin } from '../http';
import type { CommandDeps } from '../deps';
import { updatePlayer } from './handler';
import { documented, ERRORS, refuse } from '../../domain/errors';

const updateBody = z.object({
  ...PLAYER_FIELDS,
  timeZone: timeZone().nullable().optional().describe("null: back to the catalog's settings.timezone"),
});

/** POST /v1/player/update: changes the fields sent, keeps the others. */
export const updatePlayerRoute = (deps: CommandDeps) =>
  defineRoute({
    method: 'POST',
    idempotent: true,
    path: '/v1/player/update',
    tiers: SERVER_MOBILE,
    doc: {
      operationId: 'updatePlayer',
      summary:
        "Change a player's username, imageName, time zone or attributes (a new zone applies from the next action on)",
      body: updateBody,
      response: registeredShape,
      errors: {
        1001: 'Payload is null, or a field is invalid (an unknown timeZone is named), or attributes beyond their bounds',
        ...documented(ERRORS.INVALID_PLAYER_ID),
        ...documented(ERRORS.PLAYER_DOES_NOT_EXIST),
      },
    },
    parse: (input) => {
      const parsed = parseBody(updateBody)(input);
      if (!parsed.ok) return parsed;
      const playerId = canonicalPlayerId(parsed.value.playerId);
      return playerId ? ok({ ...parsed.value, playerId }) : refuse(ERRORS.INVALID_PLAYER_ID);
    },
    async handle(cmd, ctx) {
      return replyOf(await updatePlayer(cmd, requestOrigin(ctx, deps), deps), (u) => ({
        playerId: u.playerId,
        username: u.username,
        imageName: u.imageName,
        timeZone: u.timeZone,
        attributes: u.attributes ?? {},
      }));
    },
  });
