/** POST /v1/powerup/list. */
import type { StreamReadDeps } from '../deps';
import { playerListRoute } from '../player-list-route';
import { isValidPowerup, type PlayerState } from '../../domain/player/state';
import type { Catalog } from '../../domain/catalog/types';
import { powerupShape } from '../../shared/adapters/http/wire-shapes';

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
  playerListRoute(deps, {
    path: '/v1/powerup/list',
    operationId: 'playerPowerups',
    summary: 'The powerup instances a player owns',
    item: powerupShape,
    list: ownedPowerups,
  });
