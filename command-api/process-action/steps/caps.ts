/**
 * The caps step of a decision (docs/catalog.md, "Caps"): first the times cap, which decides whether
 * the action counts at all (domain/rules/caps.ts `timesCapReached`); the points and earn caps cut
 * later steps' amounts (points.ts, prizes.ts). This step then names what the decision reports and
 * records of them.
 */
import type { Action, ActionCap } from '../../../domain/catalog/types';
import type { AllowanceUse, CapCut } from '../../../domain/events/player-events';
import { timesUses, type CapClock } from '../../../domain/rules/caps';

/** The caps the answer reports: the times cap reached alone (nothing else was counted), else every cut. */
export function capsReported(timesCap: ActionCap | null, pointCuts: CapCut[], earnCuts: CapCut[]): CapCut[] | null {
  if (timesCap) return [{ period: timesCap.period, kind: 'times', limit: timesCap.times! }];
  const cuts = pointCuts.concat(earnCuts);
  return cuts.length ? cuts : null;
}

/** The allowances a counted action uses (one of each times cap, then the points and earn caps' uses); none when it did not count. */
export function allowancesUsed(
  action: Action,
  clock: CapClock,
  counts: boolean,
  pointUses: AllowanceUse[],
  earnUses: AllowanceUse[],
): AllowanceUse[] {
  return counts ? timesUses(action, clock).concat(pointUses, earnUses) : [];
}
