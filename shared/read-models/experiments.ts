/**
 * What an experiment's results count of each player who joined it (docs/audit.md, "Experiments:
 * results"): one document per experiment and player, written by the experiment-members projector
 * from the events that name the experiment (the join, the actions decided under it and their
 * reversals) and the player's store purchases from the join on; read by GET /v1/admin/experiments
 * and its results.
 */
import { addAmounts, subtractAmounts } from '../../domain/amount';
import type { PlayerEvent } from '../../domain/events';
import { periodOf } from '../../domain/time/calendar';

export const EXPERIMENT_MEMBERS_COLLECTION = 'experiment_members';

export interface ExperimentMemberDoc extends Record<string, unknown> {
  /** `<experiment uid> <playerId>`. */
  _id: string;
  experiment: string;
  variant: string;
  playerId: string;
  /** Log position of the last event applied: a redelivered event is applied once. */
  position: number;
  /** Unix ms: the timestamp of the action that joined them. */
  joinedAt: number;
  /** The zone of the player's calendar when they joined: the days below are its days. */
  timeZone: string;
  /** The day they joined, as a day number of that calendar. */
  joinDay: number;
  /** Actions decided under the experiment, the joining one included, less those reversed. */
  actions: number;
  /** Points those actions earned, less what reversals took back. */
  points: number;
  /** Currency spent on those actions' costs and on store purchases from the join on, less what was given back. */
  spent: number;
  /** Actions on each day (day number -> count): the days with one are the active days. */
  days: Record<string, number>;
  /** Store purchases counted, by provisionUid, with their cost: what a refund or failure gives back. */
  purchases: Record<string, number>;
}

export const memberId = (experimentUid: string, playerId: string): string => `${experimentUid} ${playerId}`;

/** The member an ExperimentJoined makes. */
export function joined(
  e: Extract<PlayerEvent, { type: 'ExperimentJoined' }>['data'],
  position: number,
): ExperimentMemberDoc {
  return {
    _id: memberId(e.experimentUid, e.playerId),
    experiment: e.experimentUid,
    variant: e.variantUid,
    playerId: e.playerId,
    position,
    joinedAt: e.joinedAt,
    timeZone: e.timeZone,
    joinDay: periodOf(e.joinedAt, 'Day', e.timeZone),
    actions: 0,
    points: 0,
    spent: 0,
    days: {},
    purchases: {},
  };
}

/** The member after an action decided under the experiment (sign 1) or its reversal (sign -1). */
export function afterAction(
  doc: ExperimentMemberDoc,
  position: number,
  action: { timestamp: number; points: number; cost: number },
  sign: 1 | -1,
): ExperimentMemberDoc {
  const day = String(periodOf(action.timestamp, 'Day', doc.timeZone));
  const days = { ...doc.days, [day]: (doc.days[day] ?? 0) + sign };
  if (days[day] <= 0) delete days[day];
  const change = sign === 1 ? addAmounts : subtractAmounts;
  return {
    ...doc,
    position,
    actions: doc.actions + sign,
    points: change(doc.points, action.points),
    spent: change(doc.spent, action.cost),
    days,
  };
}

/** The member after a store purchase from the join on (a cost) or the purchase given back (null). */
export function afterPurchase(
  doc: ExperimentMemberDoc,
  position: number,
  provisionUid: string,
  cost: number | null,
): ExperimentMemberDoc {
  const purchases = { ...doc.purchases };
  let spent = doc.spent;
  if (cost !== null) {
    purchases[provisionUid] = cost;
    spent = addAmounts(spent, cost);
  } else {
    spent = subtractAmounts(spent, purchases[provisionUid] ?? 0);
    delete purchases[provisionUid];
  }
  return { ...doc, position, spent, purchases };
}
