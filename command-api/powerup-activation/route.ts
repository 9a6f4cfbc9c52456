/** POST /v1/powerup/activate and /v1/powerup/deactivate. */
import { z } from 'zod';
import { WRITERS } from '../../shared/adapters/auth/access';
import { ok, type Result } from '../../domain/result';
import { text, PLAYER_ID_DOC } from '../../shared/adapters/http/fields';
import { defineRoute, parseWith, requireObject, type RawInput } from '../../shared/adapters/http/route';
import { canonicalPlayerId } from '../../domain/ids';
import { replyOf, requestOrigin } from '../http';
import type { CommandDeps } from '../deps';
import type { PowerupCommand } from './decider';
import { activatePowerup, deactivatePowerup } from './handler';
import { documented, ERRORS, refuse } from '../../domain/errors';

const textShape = z.string().describe('a confirmation message');

const powerupBody = z.object({ playerId: text().meta(PLAYER_ID_DOC), powerupUId: text() });
const BODY_ERRORS = {
  ...documented(ERRORS.PAYLOAD_NULL),
  1002: 'Missing required field (playerId or powerupUId), or playerId is not a UUID',
  ...documented(ERRORS.PLAYER_NOT_FOUND),
};

/** An absent or non-object body is 1001; a missing required field of an object is 1002. */
function parsePowerupCommand(input: RawInput): Result<PowerupCommand> {
  const object = requireObject(input.body);
  if (!object.ok) return object;
  const parsed = parseWith(powerupBody, object.value, 1002);
  if (!parsed.ok) return parsed;
  const playerId = canonicalPlayerId(parsed.value.playerId);
  return playerId ? ok({ playerId, powerupUid: parsed.value.powerupUId }) : refuse(ERRORS.INVALID_PLAYER_ID);
}

/** POST /v1/powerup/activate and /v1/powerup/deactivate: `data` is a text string. */
export const powerupActivationRoutes = (deps: CommandDeps) => [
  defineRoute({
    method: 'POST',
    idempotent: true,
    path: '/v1/powerup/activate',
    tiers: WRITERS,
    doc: {
      operationId: 'activatePowerup',
      summary: 'Activate an owned powerup instance',
      body: powerupBody,
      response: textShape,
      errors: { ...BODY_ERRORS, 9021: 'Powerup not found, not owned, already active, expired or used up' },
    },
    parse: parsePowerupCommand,
    async handle(cmd, ctx) {
      return replyOf(
        await activatePowerup(cmd, requestOrigin(ctx, deps), deps),
        () => `Powerup ${cmd.powerupUid} activated`,
      );
    },
  }),
  defineRoute({
    method: 'POST',
    idempotent: true,
    path: '/v1/powerup/deactivate',
    tiers: WRITERS,
    doc: {
      operationId: 'deactivatePowerup',
      summary: 'Deactivate an activated powerup instance',
      body: powerupBody,
      response: textShape,
      errors: { ...BODY_ERRORS, 9023: 'Powerup not found, not owned, or not active' },
    },
    parse: parsePowerupCommand,
    async handle(cmd, ctx) {
      return replyOf(
        await deactivatePowerup(cmd, requestOrigin(ctx, deps), deps),
        () => `Powerup ${cmd.powerupUid} deactivated`,
      );
    },
  }),
];
