/** POST /v1/chest/open. */
import { z } from 'zod';
import { WRITERS } from '../../shared/adapters/auth/access';
import { ok, type Result } from '../../domain/result';
import { text, PLAYER_ID_DOC } from '../../shared/adapters/http/fields';
import { nullableString, scalingModeShape } from '../../shared/adapters/http/wire-shapes';
import { defineRoute, parseWith, requireObject, type RawInput } from '../../shared/adapters/http/route';
import { canonicalPlayerId } from '../../domain/ids';
import { replyOf, requestOrigin } from '../http';
import type { CommandDeps } from '../deps';
import type { OpenChestCommand } from './decider';
import { openChest } from './handler';
import { documented, ERRORS, refuse } from '../../domain/errors';

/** What an opening answers: the prizes drawn, and the opening's uid to trace it by. */
export const chestOpenShape = z.object({
  openingUid: z
    .string()
    .describe('this opening: trace it with GET /v1/audit/trace?openingUid=<it>&playerId=<the player>'),
  chestLabel: z.string(),
  scalingMode: scalingModeShape,
  playerLevel: z.number(),
  drawCount: z.number().int(),
  prizes: z.array(
    z
      .object({ label: z.string(), amount: z.number(), imageName: nullableString, type: z.number().int() })
      .catchall(z.unknown()),
  ),
});

const openBody = z.object({ playerId: text().meta(PLAYER_ID_DOC), chestDeliverableUId: text() });

/** An absent or non-object body is 1001; a missing required field of an object is 1002. */
export function parseOpenChest(input: RawInput): Result<OpenChestCommand> {
  const object = requireObject(input.body);
  if (!object.ok) return object;
  const parsed = parseWith(openBody, object.value, 1002);
  if (!parsed.ok) return parsed;
  const playerId = canonicalPlayerId(parsed.value.playerId);
  return playerId ? ok({ playerId, chestUid: parsed.value.chestDeliverableUId }) : refuse(ERRORS.INVALID_PLAYER_ID);
}

/** POST /v1/chest/open: the chest open result (label, scaling, level, the prizes drawn). */
export const openChestRoute = (deps: CommandDeps) =>
  defineRoute({
    method: 'POST',
    idempotent: true,
    path: '/v1/chest/open',
    tiers: WRITERS,
    doc: {
      operationId: 'openChest',
      summary: 'Open one owned chest: the prizes are rolled on the server and granted',
      body: openBody,
      response: chestOpenShape,
      errors: {
        1001: 'Payload is null, or the prizes would take the points or a balance out of range',
        1002: 'Missing required field (playerId or chestDeliverableUId), or playerId is not a UUID',
        9010: 'Chest not found, inactive, or outside its active window',
        9011: 'Player does not own this chest (no balance)',
        ...documented(ERRORS.PRIZE_POOL_EXHAUSTED),
        9013: "No reward tier for the player's level",
        ...documented(ERRORS.PLAYER_NOT_FOUND),
      },
    },
    parse: parseOpenChest,
    async handle(cmd, ctx) {
      return replyOf(await openChest(cmd, requestOrigin(ctx, deps), deps), (opened) => ({
        openingUid: opened.openingUid,
        chestLabel: opened.chestLabel,
        scalingMode: opened.scalingMode,
        playerLevel: opened.playerLevel,
        drawCount: opened.prizes.length,
        prizes: opened.prizes.map((p) => ({ label: p.label, amount: p.amount, imageName: p.imageName, type: p.type })),
      }));
    },
  });
