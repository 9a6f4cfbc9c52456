/** The cost step of a decision: what a counted action charges, from the lots it draws. */
import type { Action, Deliverable } from '../../../domain/catalog/types';
import { ERRORS, refuse } from '../../../domain/errors';
import type { ActionProcessed } from '../../../domain/events/player-events';
import type { PlayerView } from '../../../domain/player/state';
import { ok, type Result } from '../../../domain/result';
import type { DecisionEnv } from '../../../domain/rules/decision-env';
import { availableBalance, lotsDrawn } from '../../../domain/rules/lots';

export type ActionCost = ActionProcessed['cost'];

/** Most actions cost nothing: one answer for them all. */
const FREE: Result<ActionCost> = ok(null);

/**
 * The action's cost in its currency, with a new provision's uid and the lots it draws (soonest
 * expiring first); refused when the player cannot pay it. Nothing when the action does not count.
 */
export function costOf(
  action: Action,
  player: PlayerView,
  deliverables: ReadonlyMap<string, Deliverable>,
  counts: boolean,
  env: DecisionEnv,
): Result<ActionCost> {
  if (!counts || action.cost <= 0) return FREE;
  const currency = deliverables.get(action.costDeliverable!)!;
  if (availableBalance(player, currency.uid, env.now) < action.cost)
    return refuse(ERRORS.INSUFFICIENT_FUNDS, `the action costs ${action.cost} ${currency.label}`);
  const cost: NonNullable<ActionCost> = {
    deliverableUid: currency.uid,
    label: currency.label,
    amount: action.cost,
    provisionUid: env.newUid(),
  };
  const drawn = lotsDrawn(player, currency.uid, action.cost, env.now);
  if (drawn.length) cost.lots = drawn;
  return ok(cost);
}
