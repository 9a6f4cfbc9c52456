/**
 * Currencies that expire (catalog `expiry`): each amount granted is a lot that expires at a time
 * of the player's calendar. A balance counts only the lots not yet expired; spending takes the lots
 * that expire first; giving back returns the same lots, but not one that has expired since.
 */
import { addAmounts, subtractAmounts } from '../amount';
import type { CurrencyExpiry } from '../catalog/schema';
import type { Lot } from '../events/common';
import type { PlayerView } from '../player/state';
import { periodEnd, periodOf } from '../time/calendar';

/** When a lot granted at `timestamp` expires, in `timeZone`: the end of its Day, Week or Month, or the midnight ending the afterDays-th day after. */
export function lotExpiresAt(expiry: CurrencyExpiry, timestamp: number, timeZone: string): number {
  if (expiry.endOf) return periodEnd(periodOf(timestamp, expiry.endOf, timeZone), expiry.endOf, timeZone);
  return periodEnd(periodOf(timestamp, 'Day', timeZone) + expiry.afterDays, 'Day', timeZone);
}

/** The lots of a currency that have expired by `now` (expired, but their CurrencyExpired not yet recorded). */
const expiredAmount = (state: PlayerView, deliverableUid: string, now: number): number =>
  (state.lots.get(deliverableUid) ?? []).reduce(
    (sum, [expiresAt, amount]) => (expiresAt <= now ? addAmounts(sum, amount) : sum),
    0,
  );

/** The balance a player may use at `now`: without the lots that have expired. */
export const availableBalance = (state: PlayerView, deliverableUid: string, now: number): number =>
  Math.max(0, subtractAmounts(state.balances.get(deliverableUid) ?? 0, expiredAmount(state, deliverableUid, now)));

/**
 * The lots spending `amount` takes at `now`, soonest to expire first (positive amounts); what they
 * do not cover is taken from what never expires (granted before the currency had an expiry).
 */
export function lotsDrawn(state: PlayerView, deliverableUid: string, amount: number, now: number): Lot[] {
  const drawn: Lot[] = [];
  let left = amount;
  for (const [expiresAt, held] of state.lots.get(deliverableUid) ?? []) {
    if (left <= 0) break;
    if (expiresAt <= now) continue;
    const take = Math.min(held, left);
    drawn.push({ deliverableUid, expiresAt, amount: take });
    left = subtractAmounts(left, take);
  }
  return drawn;
}

/**
 * The lots a take-back of `amount` removes when the lots it granted are not on record (a refunded
 * purchase's contents): the latest to expire first, so that no lot outlives the balance.
 */
export function lotsTakenBack(state: PlayerView, deliverableUid: string, amount: number): Lot[] {
  const taken: Lot[] = [];
  let left = amount;
  for (const [expiresAt, held] of [...(state.lots.get(deliverableUid) ?? [])].reverse()) {
    if (left <= 0) break;
    const take = Math.min(held, left);
    taken.push({ deliverableUid, expiresAt, amount: take });
    left = subtractAmounts(left, take);
  }
  return taken;
}

/** Lots given back at `now`: those drawn that have not expired since, and the amount of those that have. */
export function lotsGivenBack(drawn: readonly Lot[], now: number): { lots: Lot[]; expired: number } {
  const lots = drawn.filter((l) => l.expiresAt > now);
  const expired = drawn.filter((l) => l.expiresAt <= now).reduce((sum, l) => addAmounts(sum, l.amount), 0);
  return { lots, expired };
}

/** Every lot expired by `now`, by currency in catalog-independent order, as CurrencyExpired records them. */
export function expiredLots(state: PlayerView, now: number): Lot[] {
  return [...state.lots].flatMap(([deliverableUid, lots]) =>
    lots
      .filter(([expiresAt]) => expiresAt <= now)
      .map(([expiresAt, amount]) => ({ deliverableUid, expiresAt, amount })),
  );
}

/** The next `count` lots to expire after `now`, soonest first (the profile's `expiring`). */
export function nextLots(state: PlayerView, now: number, count: number): Lot[] {
  return [...state.lots]
    .flatMap(([deliverableUid, lots]) =>
      lots
        .filter(([expiresAt]) => expiresAt > now)
        .map(([expiresAt, amount]) => ({ deliverableUid, expiresAt, amount })),
    )
    .sort((a, b) => a.expiresAt - b.expiresAt || (a.deliverableUid < b.deliverableUid ? -1 : 1))
    .slice(0, count);
}

/** Negated lots: what a draw, a take-back or an expiry does to `effects.lots`. */
export const negated = (lots: readonly Lot[]): Lot[] => lots.map((l) => ({ ...l, amount: -l.amount }));
