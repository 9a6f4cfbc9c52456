/** The points step of a decision: what the action earns by itself, before any rule. */
import { addAmounts, multiplyAmount } from '../../../domain/amount';
import type { Action, Deliverable } from '../../../domain/catalog/types';
import type { Grant } from '../../../domain/events/common';
import type { PlayerView } from '../../../domain/player/state';
import { grantOf } from '../../../domain/rules/grants';

/**
 * Whether the action earns its own points: it counts, and is out of its pointGap since the last
 * time it earned them (within the gap it still counts for conditions). The points caps then cut
 * them (domain/rules/caps.ts `capActionPoints`).
 */
export function pointsAwardedFor(action: Action, player: PlayerView, timestamp: number, counts: boolean): boolean {
  if (!counts) return false;
  const last = player.lastPointAward.get(action.identifier);
  return action.pointGap <= 0 || last === undefined || Math.abs(timestamp - last) >= action.pointGap * 1000;
}

/** The action's own deliverables times its multiplier; none when it does not count. */
export function actionGrantsOf(
  action: Action,
  deliverables: ReadonlyMap<string, Deliverable>,
  multiplier: number,
  counts: boolean,
): Grant[] {
  return counts
    ? action.deliverables.map((x) => grantOf(deliverables.get(x.deliverable)!, multiplyAmount(x.amount, multiplier)))
    : [];
}

type WithPoints = { readonly points: number };

/** The points the decision earns: the action's own (as capped), then every award's, milestone's and completion's. */
export function earnedPointsOf(
  actionPoints: number,
  awards: readonly WithPoints[],
  milestones: readonly WithPoints[],
  completed: readonly WithPoints[],
): number {
  const awardPoints = [awards, milestones, completed].reduce(
    (sum, list) => list.reduce((s, a) => addAmounts(s, a.points), sum),
    0,
  );
  return addAmounts(actionPoints, awardPoints);
}
