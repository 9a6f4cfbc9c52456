/** Deliverables granted: what a grant shows in results, and what it does to a player's holdings. */
import type { DeepReadonly } from '../deep-readonly';
import { addAmounts, subtractAmounts } from '../amount';
import { indexCatalog } from '../catalog/catalog-index';
import type { Catalog, Deliverable } from '../catalog/schema';
import {
  DELIVERABLE_TYPE_CODE,
  noEffects,
  type Effects,
  type Grant,
  type Lot,
  type PowerupInstance,
} from '../events/common';
import { MAX_POWERUPS_PER_GRANT } from '../catalog/limits';
import { fail, ok, type Result } from '../result';
import type { DecisionEnv } from './decision-env';
import { lotExpiresAt, lotsGivenBack } from './lots';

/** When and where in the calendar grants are made: what the lots of currencies that expire count from. */
export interface GrantClock {
  timestamp: number;
  timeZone: string;
}

export function grantOf(deliverable: Deliverable, amount: number): Grant {
  return {
    uid: deliverable.uid,
    label: deliverable.label,
    type: DELIVERABLE_TYPE_CODE[deliverable.type],
    imageName: deliverable.imageName ?? null,
    amount,
    details:
      deliverable.details && deliverable.details.length
        ? deliverable.details.map((d) => ({ label: d.label, value: d.value }))
        : null,
  };
}

/**
 * Powerup deliverables become owned instances, one per unit granted; the rest add to balances
 * (whose totals the command pipeline keeps in range), a currency that expires as a lot expiring
 * by `clock` (default: the decision's time in the catalog's zone). A grant of more than MAX_POWERUPS_PER_GRANT
 * powerups is refused (1001) before any instance is made.
 */
export function effectsOfGrants(
  catalog: Catalog,
  grants: readonly DeepReadonly<Grant>[],
  env: DecisionEnv,
  into: Effects = noEffects(),
  clock: GrantClock = { timestamp: env.now, timeZone: catalog.settings.timezone },
): Result<Effects> {
  for (const g of grants) {
    const d = indexCatalog(catalog).deliverableByUid.get(g.uid);
    if (d?.kind === 'Powerup' && d.powerup) {
      if (!(g.amount <= MAX_POWERUPS_PER_GRANT))
        return fail(
          1001,
          `Amount out of range: a grant of ${g.label} would make more than ${MAX_POWERUPS_PER_GRANT.toLocaleString('en-US')} powerups`,
        );
      for (let i = 0; i < Math.floor(g.amount); i++) into.powerupsGranted.push(newPowerupInstance(d, env));
    } else {
      addBalance(into, g.uid, g.amount);
      if (d?.expiry && g.amount > 0)
        (into.lots ??= []).push({
          deliverableUid: g.uid,
          expiresAt: lotExpiresAt(d.expiry, clock.timestamp, clock.timeZone),
          amount: g.amount,
        });
    }
  }
  return ok(into);
}

export function addBalance(effects: Effects, deliverableUid: string, amount: number): void {
  const existing = effects.balances.find((b) => b.deliverableUid === deliverableUid);
  if (existing) existing.amount = addAmounts(existing.amount, amount);
  else effects.balances.push({ deliverableUid, amount });
}

function newPowerupInstance(d: Deliverable, env: DecisionEnv): PowerupInstance {
  const p = d.powerup!;
  const createdAt = Math.floor(env.now / 1000);
  return {
    uid: env.newUid(),
    deliverableUid: d.uid,
    prizeLabel: d.label,
    prizeImageName: d.imageName ?? null,
    multiplier: p.multiplier,
    initialUseCount: p.maxUseCount,
    timeoutSeconds: p.timeoutSeconds,
    neverExpires: p.neverExpires,
    createdAt,
    expiresAt: p.neverExpires ? 0 : createdAt + p.timeoutSeconds,
    targetPrizes: p.targetPrizes,
  };
}

/**
 * Gives a charge back (a refund, a cancelled or timed-out purchase, a reversed action's cost): the
 * lots it drew of a currency that expires, with their expiry, except those expired since.
 */
export function giveBack(
  effects: Effects,
  cost: { deliverableUid: string | null; amount: number; lots?: readonly Lot[] },
  now: number,
): void {
  if (!cost.deliverableUid || !(cost.amount > 0)) return;
  const { lots, expired } = lotsGivenBack(cost.lots ?? [], now);
  addBalance(effects, cost.deliverableUid, subtractAmounts(cost.amount, expired));
  if (lots.length) (effects.lots ??= []).push(...lots);
}
