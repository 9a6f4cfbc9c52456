import { addAmounts } from '../../shared/amount';
import { indexCatalog } from '../../shared/catalog/catalog-index';
import type { Catalog, Deliverable } from '../../shared/catalog/schema';
import { DELIVERABLE_TYPE_CODE, noEffects, type Effects, type Grant, type PowerupInstance } from '../../shared/events/common';
import type { LevelReached } from '../../shared/events/player-events';
import type { PlayerState } from './state';

/** What a decider needs from the outside world, passed in so deciders stay pure. */
export interface DecisionEnv {
  /** Unix ms of the decision. */
  now: number;
  /** Uniform in [0, 1), from a CSPRNG in production and a seeded source in tests. */
  random(): number;
  /** A new service uid (32 lowercase hex). */
  newUid(): string;
}

export function grantOf(deliverable: Deliverable, amount: number): Grant {
  return {
    uid: deliverable.uid,
    label: deliverable.label,
    type: DELIVERABLE_TYPE_CODE[deliverable.type],
    imageName: deliverable.imageName ?? null,
    amount,
    details: deliverable.details && deliverable.details.length ? deliverable.details.map((d) => ({ label: d.label, value: d.value })) : null,
  };
}

/** Powerup deliverables become owned instances, one per unit granted; the rest add to balances. */
export function effectsOfGrants(catalog: Catalog, grants: readonly Grant[], env: DecisionEnv, into: Effects = noEffects()): Effects {
  for (const g of grants) {
    const d = indexCatalog(catalog).deliverableByUid.get(g.uid);
    if (d?.kind === 'Powerup' && d.powerup) {
      for (let i = 0; i < Math.floor(g.amount); i++) into.powerupsGranted.push(newPowerupInstance(d, env));
    } else {
      addBalance(into, g.uid, g.amount);
    }
  }
  return into;
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

/** Levels newly reached at a points total, lowest first, each with the deliverables it grants. */
export function levelsReachedAt(catalog: Catalog, state: PlayerState, totalPoints: number): LevelReached[] {
  const byUid = indexCatalog(catalog).deliverableByUid;
  return catalog.levels
    .filter((l) => l.isActive && l.target <= totalPoints && !state.levelsReached.has(l.uid))
    .sort((a, b) => a.level - b.level)
    .map((l) => ({
      uid: l.uid,
      label: l.label,
      level: l.level,
      target: l.target,
      imageName: l.imageName ?? null,
      grants: l.deliverables.map((x) => grantOf(byUid.get(x.deliverable)!, x.amount)),
    }));
}
