/**
 * The prizes step of a decision: what the action, its awards, the levels it reaches, the streak
 * milestones and the mission completions grant, multiplied by the player's active powerups and then
 * cut by the deliverables' earn caps; and the effects the whole decision has on the player.
 */
import { multiplyAmount } from '../../../domain/amount';
import type { Catalog, Deliverable } from '../../../domain/catalog/schema';
import { noEffects, type Effects, type Grant } from '../../../domain/events/common';
import type { ActionProcessed, Award, LevelReached } from '../../../domain/events/player-events';
import { isValidPowerup, type PlayerView } from '../../../domain/player/state';
import type { Result } from '../../../domain/result';
import { capEarnings, type CapClock } from '../../../domain/rules/caps';
import type { DecisionEnv } from '../../../domain/rules/decision-env';
import { addBalance, effectsOfGrants, grantOf } from '../../../domain/rules/grants';
import { negated } from '../../../domain/rules/lots';

/** Each grant list of a decision as the player receives it, after powerups and earn caps. */
export interface Prizes {
  /** The action's own grants. */
  actionGrants: Grant[];
  /** The awards and levels, each with its grants as received. */
  awards: Award[];
  levels: LevelReached[];
  /** One list per streak milestone reached, then one per mission completed, in the order given. */
  milestoneGrants: Grant[][];
  completionGrants: Grant[][];
  /** Every grant, in the order above: what the answer lists and the effects add. */
  all: Grant[];
  /** The powerups that multiplied a grant, each used once. */
  powerupUses: string[];
  /** The earn caps' uses and cuts. */
  earnUses: ReturnType<typeof capEarnings>['uses'];
  earnCuts: ReturnType<typeof capEarnings>['cuts'];
}

/** A streak milestone or a mission: what it grants, by deliverable uid. */
type WithDeliverables = { readonly deliverables: readonly { deliverable: string; amount: number }[] };

/** What each source of the decision grants (the action, awards, levels, milestones, completions), as the player receives it. */
export function prizesOf(
  player: PlayerView,
  env: DecisionEnv,
  deliverables: ReadonlyMap<string, Deliverable>,
  clock: CapClock,
  actionGrants: Grant[],
  awards: readonly Award[],
  levels: readonly LevelReached[],
  milestones: readonly WithDeliverables[],
  completed: readonly WithDeliverables[],
): Prizes {
  const milestoneGrants = milestones.map((m) =>
    m.deliverables.map((x) => grantOf(deliverables.get(x.deliverable)!, x.amount)),
  );
  const completionGrants = completed.map((m) =>
    m.deliverables.map((x) => grantOf(deliverables.get(x.deliverable)!, x.amount)),
  );
  // Active powerups multiply the Prize amounts this action grants; each one that applies uses one use.
  // concat rather than spreads: a spread's iterators were a fair share of a decision's garbage.
  const powered = applyPowerups(
    player,
    env,
    deliverables,
    [actionGrants].concat(
      awards.map((a) => a.grants),
      levels.map((l) => l.grants),
      milestoneGrants,
      completionGrants,
    ),
  );
  // Earn caps cut what is granted after powerups: the amounts a player actually receives.
  const earned = capEarnings(powered.grantLists, deliverables, player, clock);
  const rest = earned.grantLists.slice(1);
  return {
    actionGrants: earned.grantLists[0],
    awards: awards.map((a, i) => ({ ...a, grants: rest[i] })),
    levels: levels.map((l, i) => ({ ...l, grants: rest[awards.length + i] })),
    milestoneGrants: rest.slice(awards.length + levels.length, awards.length + levels.length + milestones.length),
    completionGrants: rest.slice(awards.length + levels.length + milestones.length),
    all: earned.grantLists.flat(),
    powerupUses: powered.uses,
    earnUses: earned.uses,
    earnCuts: earned.cuts,
  };
}

/**
 * The decision's effects on the player: what it grants (a currency that expires as lots counted
 * from the action's timestamp, in the player's calendar), the points it earns, the cost it takes
 * (with the lots it draws) and the powerup uses.
 */
export function effectsOfAction(
  catalog: Catalog,
  prizes: Pick<Prizes, 'all' | 'powerupUses'>,
  points: number,
  cost: ActionProcessed['cost'],
  env: DecisionEnv,
  clock: CapClock,
): Result<Effects> {
  const granted = effectsOfGrants(catalog, prizes.all, env, noEffects(), clock);
  if (!granted.ok) return granted;
  const effects = granted.value;
  effects.points = points;
  if (cost) addBalance(effects, cost.deliverableUid, -cost.amount);
  if (cost?.lots) effects.lots = negated(cost.lots).concat(effects.lots ?? []);
  effects.powerupUses = prizes.powerupUses.map((uid) => ({ uid, uses: 1 }));
  return granted;
}

/** Multiplies target Prize amounts by every activated, valid powerup; reports which were used. */
function applyPowerups(
  state: PlayerView,
  env: DecisionEnv,
  deliverables: ReadonlyMap<string, Deliverable>,
  grantLists: Grant[][],
): { grantLists: Grant[][]; uses: string[] } {
  // Most players own no powerup: nothing to look through.
  const active = state.powerups.size ? activePowerups(state, env.now) : [];
  if (!active.length) return { grantLists, uses: [] };
  const used = new Set<string>();
  const out = grantLists.map((grants) =>
    grants.map((g) => {
      if (deliverables.get(g.uid)?.type !== 'Prize') return g;
      let amount = g.amount;
      for (const p of active) {
        if (p.instance.targetPrizes.length && !p.instance.targetPrizes.includes(g.uid)) continue;
        amount = multiplyAmount(amount, p.instance.multiplier);
        used.add(p.instance.uid);
      }
      return amount === g.amount ? g : { ...g, amount };
    }),
  );
  return { grantLists: out, uses: [...used] };
}

/** Powerups that apply now: activated, not expired, uses left. */
const activePowerups = (state: PlayerView, nowMs: number) =>
  [...state.powerups.values()].filter((p) => p.activated && isValidPowerup(p, nowMs));
