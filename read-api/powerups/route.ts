/** POST /v1/powerup/list. */
import { z } from 'zod';
import type { StreamReadDeps } from '../deps';
import { isValidPowerup, type PlayerState } from '../../shared/player/state';
import type { Catalog } from '../../shared/catalog/types';
import { EVERY_TIER } from '../../shared/auth/access';
import { fail, ok } from '../../shared/result';
import { text, PLAYER_ID_DOC } from '../../shared/http/fields';
import { powerupShape } from '../../shared/http/wire-shapes';
import { defineRoute, parseWith, requireObject } from '../../shared/http/route';
import { canonicalPlayerId } from '../../shared/ids';

const listBody = z.object({ playerId: text().meta(PLAYER_ID_DOC) });

/** deliveryMethod 1: the amount is multiplied (the only method). */
const AMOUNT_MULTIPLIED = 1;

/**
 * Every owned powerup instance (expired and used-up ones too, with isValid false), in the order
 * granted: /v1/powerup/list, and the export. Times are Unix seconds; -1 stands for unlimited.
 */
export function ownedPowerups(catalog: Catalog, state: PlayerState, now: number) {
  const nowSeconds = Math.floor(now / 1000);
  const deliverables = new Map(catalog.deliverables.map((d) => [d.uid, d]));
  return [...state.powerups.values()].map((owned) => {
    const p = owned.instance;
    const valid = isValidPowerup(owned, now);
    return {
      uid: p.uid,
      prizeLabel: p.prizeLabel,
      prizeImageName: p.prizeImageName,
      multiplier: p.multiplier,
      // Usable right now: activated and valid, so it applies to the next action.
      isActive: owned.activated && valid,
      isActivated: owned.activated,
      isValid: valid,
      initialUseCount: p.initialUseCount,
      remainingUseCount: p.initialUseCount === 0 ? -1 : Math.max(0, p.initialUseCount - owned.usesConsumed),
      powerupMaxUseCount: deliverables.get(p.deliverableUid)?.powerup?.maxUseCount ?? p.initialUseCount,
      powerupTimeoutSeconds: p.timeoutSeconds,
      neverExpires: p.neverExpires,
      activatedAt: owned.activatedAt,
      createdAt: p.createdAt,
      expiresAt: p.expiresAt,
      remainingSeconds: p.neverExpires ? -1 : Math.max(0, p.expiresAt - nowSeconds),
      targetPrizes: p.targetPrizes.map((uid) => {
        const d = deliverables.get(uid);
        return {
          targetPrizeUid: uid,
          targetPrizeLabel: d?.label ?? uid,
          targetPrizeImageName: d?.imageName ?? null,
          deliveryMethod: AMOUNT_MULTIPLIED,
        };
      }),
    };
  });
}

/** POST /v1/powerup/list: ownedPowerups, read from the player's stream so a write is visible at once. */
export const powerupListRoute = (deps: StreamReadDeps) =>
  defineRoute({
    method: 'POST',
    path: '/v1/powerup/list',
    tiers: EVERY_TIER,
    doc: {
      summary: 'The powerup instances a player owns',
      body: listBody,
      response: z.array(powerupShape),
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
      return ok(ownedPowerups(deps.catalog().catalog, state, deps.now()));
    },
  });
