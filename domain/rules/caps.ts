/**
 * Caps (docs/catalog.md, "Caps"): how much an action may count and earn per Day, Week or Month of
 * the player's calendar. A decision reads what is left of each allowance in the period of the
 * action's timestamp, cuts what it grants to it, and records its use (AllowanceUse) in its event,
 * so the state, a replay and a reversal never recompute it.
 */
import { addAmounts, subtractAmounts } from '../amount';
import type { Action, ActionCap, Deliverable } from '../catalog/types';
import type { Grant } from '../events/common';
import type { AllowanceUse, CapCut } from '../events/player-events';
import { allowanceKey, type PlayerView } from '../player/state';
import { periodOf } from '../time/calendar';

/** The player's calendar at one instant: every cap of a decision counts its period there. */
export interface CapClock {
  timestamp: number;
  timeZone: string;
}

const useOf = (
  kind: AllowanceUse['kind'],
  of: string,
  period: ActionCap['period'],
  clock: CapClock,
  used: number,
): AllowanceUse => ({
  kind,
  of,
  period,
  ordinal: periodOf(clock.timestamp, period, clock.timeZone),
  used,
});

const usedOf = (state: PlayerView, use: AllowanceUse): number => state.allowances.get(allowanceKey(use)) ?? 0;

/** The first `times` cap the action has reached in its period (the action then counts for nothing), or null. */
export function timesCapReached(action: Action, state: PlayerView, clock: CapClock): ActionCap | null {
  return (
    action.caps.find(
      (c) => c.times !== null && usedOf(state, useOf('times', action.identifier, c.period, clock, 0)) >= c.times,
    ) ?? null
  );
}

/** One use of each `times` allowance: the action counted. */
export function timesUses(action: Action, clock: CapClock): AllowanceUse[] {
  return action.caps.filter((c) => c.times !== null).map((c) => useOf('times', action.identifier, c.period, clock, 1));
}

/** The action's own points cut to what is left of each `points` allowance, and their use. */
export function capActionPoints(
  action: Action,
  state: PlayerView,
  clock: CapClock,
  points: number,
): { points: number; uses: AllowanceUse[]; cuts: CapCut[] } {
  const caps = action.caps.filter((c): c is ActionCap & { points: number } => c.points !== null);
  const cuts: CapCut[] = [];
  let granted = points;
  for (const c of caps) {
    const left = Math.max(
      0,
      subtractAmounts(c.points, usedOf(state, useOf('points', action.identifier, c.period, clock, 0))),
    );
    if (granted > left) {
      granted = left;
      cuts.push({ period: c.period, kind: 'points', limit: c.points });
    }
  }
  const uses = granted > 0 ? caps.map((c) => useOf('points', action.identifier, c.period, clock, granted)) : [];
  return { points: granted, uses, cuts };
}

/**
 * Grants of deliverables with earnCaps cut, in the order given, to what is left of each of their
 * allowances; a grant cut to nothing is left out. Returns the lists cut, the uses and the cuts.
 */
export function capEarnings(
  grantLists: readonly Grant[][],
  deliverables: ReadonlyMap<string, Deliverable>,
  state: PlayerView,
  clock: CapClock,
): { grantLists: Grant[][]; uses: AllowanceUse[]; cuts: CapCut[] } {
  // Most decisions grant nothing capped: the lists as they are (copies, as below), nothing used or cut.
  if (grantLists.every((grants) => grants.every((g) => !deliverables.get(g.uid)?.earnCaps?.length)))
    return { grantLists: grantLists.map((grants) => grants.slice()), uses: [], cuts: [] };
  const usedNow = new Map<string, AllowanceUse>();
  const cuts = new Map<string, CapCut>();
  const out = grantLists.map((grants) =>
    grants.flatMap((g) => {
      const caps = deliverables.get(g.uid)?.earnCaps ?? [];
      if (!caps.length) return [g];
      let amount = g.amount;
      const uses = caps.map((c) => {
        const use = useOf('earn', g.uid, c.period, clock, 0);
        const mine = usedNow.get(allowanceKey(use)) ?? use;
        const left = Math.max(0, subtractAmounts(c.amount, addAmounts(usedOf(state, use), mine.used)));
        if (amount > left) {
          amount = left;
          cuts.set(`${g.uid} ${c.period}`, { period: c.period, kind: 'earn', limit: c.amount, deliverable: g.uid });
        }
        return mine;
      });
      if (amount <= 0) return [];
      for (const u of uses) usedNow.set(allowanceKey(u), { ...u, used: addAmounts(u.used, amount) });
      return [amount === g.amount ? g : { ...g, amount }];
    }),
  );
  return { grantLists: out, uses: [...usedNow.values()], cuts: [...cuts.values()] };
}
