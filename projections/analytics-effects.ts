/**
 * What a player event counts in the analytics' `points` and `deliverables`: its `effects`, the
 * same amounts the player's fold adds to points and balances (domain/player/state.ts). The
 * event's other fields only place parts of those amounts on another day, or name them spent,
 * refunded or expired; whatever no part names counts on the event's own day, points as points and
 * a balance's change as granted (negative when taken back). So the days add up to the players'
 * points and balances whatever the event, a kind of event this module does not know included.
 */
import { subtractAmounts } from '../domain/amount';
import type { PlayerEvent, Recorded } from '../domain/events';
import { noEffects, type Grant, type Lot } from '../domain/events/common';
import { giveBack } from '../domain/rules/grants';
import type { DeliverableMove } from '../shared/read-models/analytics';

/** One deliverable's move, of a part of an event's effects. */
export interface Move {
  uid: string;
  move: DeliverableMove;
  /** As the series counts it: positive for what is granted, spent, refunded or expired; negative for a take-back of a grant. */
  amount: number;
}

/** A part of an event's effects counted on the day of `at`. */
export interface Part {
  at: number;
  points: number;
  moves: Move[];
}

/** Where an event's effects count: the parts its fields name, and the day of the rest. */
export interface Placement {
  at: number;
  parts: Part[];
}

/** How a move changes the balance it is a part of. */
const SIGN: Record<Move['move'], 1 | -1> = { granted: 1, refunded: 1, spent: -1, expired: -1 };

const granted = (grants: readonly Grant[], sign: 1 | -1): Move[] =>
  grants.map((g) => ({ uid: g.uid, move: 'granted', amount: sign * g.amount }));

/** What giving a cost back returns at `at` (not the lots that expired since), as the decider gives it back. */
function refunded(cost: { deliverableUid: string | null; amount: number; lots?: Lot[] }, at: number): Move[] {
  const effects = noEffects();
  giveBack(effects, cost, at);
  return effects.balances.map((b) => ({ uid: b.deliverableUid, move: 'refunded', amount: b.amount }));
}

/** An award, milestone or mission completion taken back, from the day of the action that earned it. */
const takenBack = (a: { awardedAt: number; points: number; grants: Grant[] }): Part => ({
  at: a.awardedAt,
  points: -a.points,
  moves: granted(a.grants, -1),
});

/**
 * The parts of an event's effects its fields name, and the day the rest counts on: an action and
 * all it earned on the day of its `timestamp`, as leaderboards count them; a reversal takes back
 * from the days they were counted on; the rest on the day it happened (the day the store recorded
 * it, for an event this function does not know).
 */
export function placementOf(event: Recorded<PlayerEvent>): Placement {
  switch (event.type) {
    case 'PlayerRegistered':
      return { at: event.data.registeredAt, parts: [] };
    case 'ActionProcessed': {
      const e = event.data;
      const cost: Move[] = e.cost ? [{ uid: e.cost.deliverableUid, move: 'spent', amount: e.cost.amount }] : [];
      return { at: e.timestamp, parts: [{ at: e.timestamp, points: 0, moves: cost }] };
    }
    case 'ActionReversed': {
      const e = event.data;
      return {
        at: e.timestamp,
        parts: [
          // Named, rather than left to the rest, so that powerups (no balance) are taken back too.
          {
            at: e.timestamp,
            points: 0,
            moves: granted([...e.actionGrants, ...e.revokedLevels.flatMap((l) => l.grants)], -1),
          },
          ...e.revokedAwards.map(takenBack),
          ...(e.revokedMilestones ?? []).map(takenBack),
          ...(e.revokedMissions ?? []).map(takenBack),
          { at: e.reversedAt, points: 0, moves: e.refund ? refunded(e.refund, e.reversedAt) : [] },
        ],
      };
    }
    case 'BundlePurchased': {
      const { cost, purchasedAt } = event.data;
      const spent: Move[] = cost.deliverableUid
        ? [{ uid: cost.deliverableUid, move: 'spent', amount: cost.amount }]
        : [];
      return { at: purchasedAt, parts: [{ at: purchasedAt, points: 0, moves: spent }] };
    }
    case 'ProvisionCompleted':
      return { at: event.data.completedAt, parts: [] };
    case 'ProvisionFailed': {
      const { returned, failedAt } = event.data;
      return { at: failedAt, parts: [{ at: failedAt, points: 0, moves: refunded(returned, failedAt) }] };
    }
    case 'ProvisionRefunded': {
      const { returned, removed, refundedAt } = event.data;
      return {
        at: refundedAt,
        parts: [{ at: refundedAt, points: 0, moves: [...refunded(returned, refundedAt), ...granted(removed, -1)] }],
      };
    }
    case 'ChestOpened': {
      const { chestDeliverableUid, openedAt } = event.data;
      return {
        at: openedAt,
        parts: [{ at: openedAt, points: 0, moves: [{ uid: chestDeliverableUid, move: 'spent', amount: 1 }] }],
      };
    }
    case 'CurrencyExpired':
      // On the day the lot expired, however late its job recorded it.
      return {
        at: event.data.expiredAt,
        parts: event.data.lots.map((lot) => ({
          at: lot.expiresAt,
          points: 0,
          moves: [{ uid: lot.deliverableUid, move: 'expired', amount: lot.amount }],
        })),
      };
    case 'PlayerRecomputed':
      // Each re-decided action's points on its own day, as its leaderboard contribution moved.
      return {
        at: event.data.recomputedAt,
        parts: event.data.scores.map((s) => ({ at: s.ts, points: subtractAmounts(s.after, s.before), moves: [] })),
      };
    default:
      return { at: event.createdAt, parts: [] };
  }
}

/**
 * The amounts an event's effects count, each on its day: the parts as placed, and the rest of the
 * points and of each balance's change (but a powerup's, which is no balance) on the event's day,
 * with each powerup instance made as one granted.
 */
export function effectAmounts(
  event: Recorded<PlayerEvent>,
  powerups: ReadonlySet<string>,
  count: {
    points(at: number, delta: number): void;
    move(at: number, uid: string, move: Move['move'], delta: number): void;
  },
): void {
  const { effects } = event.data;
  const { at, parts } = placementOf(event);
  let points = effects.points;
  const rest = new Map(effects.balances.map((b) => [b.deliverableUid, b.amount]));
  for (const part of parts) {
    if (part.points !== 0) {
      count.points(part.at, part.points);
      points = subtractAmounts(points, part.points);
    }
    for (const m of part.moves) {
      if (m.amount === 0) continue;
      count.move(part.at, m.uid, m.move, m.amount);
      if (!powerups.has(m.uid)) rest.set(m.uid, subtractAmounts(rest.get(m.uid) ?? 0, SIGN[m.move] * m.amount));
    }
  }
  if (points !== 0) count.points(at, points);
  for (const [uid, amount] of rest) if (amount !== 0) count.move(at, uid, 'granted', amount);
  for (const p of effects.powerupsGranted) count.move(at, p.deliverableUid, 'granted', 1);
}
