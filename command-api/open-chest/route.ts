import { z } from 'zod';
import { ALL_TIERS } from '../../shared/auth/access';
import { fail, ok, type Result } from '../../shared/http/envelope';
import { text } from '../../shared/http/fields';
import { chestOpenShape } from '../../shared/http/wire-shapes';
import { defineRoute, parseWith, requireObject, type RawInput } from '../../shared/http/route';
import { canonicalPlayerId } from '../../shared/ids';
import { requestMetadata, type CommandDeps } from '../deps';
import type { OpenChestCommand } from './decider';
import { openChest } from './handler';

const openBody = z.object({ playerId: text(), chestDeliverableUId: text() });

/** An absent or non-object body is 1001; a missing required field of an object is 1002 (api.md). */
export function parseOpenChest(input: RawInput): Result<OpenChestCommand> {
  const object = requireObject(input.body);
  if (!object.ok) return object;
  const parsed = parseWith(openBody, object.value, 1002);
  if (!parsed.ok) return parsed;
  const playerId = canonicalPlayerId(parsed.value.playerId);
  return playerId ? ok({ playerId, chestUid: parsed.value.chestDeliverableUId }) : fail(1002, 'Invalid player: playerId must be a UUID');
}

/** POST /v1/chest/open: the Chest open result of api.md. */
export const openChestRoute = (deps: CommandDeps) =>
  defineRoute({
    method: 'POST',
    path: '/v1/chest/open',
    tiers: ALL_TIERS,
    doc: {
      summary: 'Open one owned chest: the prizes are rolled on the server and granted',
      body: openBody,
      response: chestOpenShape,
      errors: {
        1001: 'Payload is null',
        1002: 'Missing required field (playerId or chestDeliverableUId), or playerId is not a UUID',
        9010: 'Chest not found, inactive, or outside its active window',
        9011: 'Player does not own this chest (no balance)',
        9012: 'Limited prize pool exhausted',
        9013: "No reward tier for the player's level",
        9020: 'Player not found',
      },
    },
    parse: parseOpenChest,
    async handle(cmd, ctx) {
      const outcome = await openChest(cmd, requestMetadata(ctx, deps), deps);
      if (!outcome.ok) return outcome;
      const { opened, position } = outcome.value;
      return {
        ok: true,
        position,
        value: {
          chestLabel: opened.chestLabel,
          scalingMode: opened.scalingMode,
          playerLevel: opened.playerLevel,
          drawCount: opened.prizes.length,
          prizes: opened.prizes.map((p) => ({ label: p.label, amount: p.amount, imageName: p.imageName, type: p.type })),
        },
      };
    },
  });
