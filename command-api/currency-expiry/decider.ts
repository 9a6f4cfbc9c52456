/** The expiry of lots of currencies that expire: recorded once their expiresAt has passed. */
import { noEffects, type Lot } from '../../domain/events/common';
import type { CurrencyExpired } from '../../domain/events/inventory-events';
import { balanceOf, type PlayerState, type PlayerView } from '../../domain/player/state';
import { subtractAmounts } from '../../domain/amount';
import { addBalance } from '../../domain/rules/grants';
import { expiredLots, negated } from '../../domain/rules/lots';
import { playerStream } from '../../domain/streams';
import { ok } from '../../domain/result';
import { decision, type Decider, type ScheduledJob } from '../decision';
import type { UseCase } from '../use-case';
import { playerOf } from '../player-reads';

export const EXPIRE_CURRENCY = 'expire-currency';

/** One job per player and expiry time: lots expire at a midnight of the player's calendar, so at most one a day. */
export const currencyExpiryJobId = (playerId: string, expiresAt: number): string =>
  `expire-currency-${playerId}-${expiresAt}`;

/** The jobs that record the expiry of lots granted (or given back) by a decision, one per expiry time. */
export function currencyExpiryJobs(playerId: string, lots: readonly Lot[] | undefined): ScheduledJob[] {
  // Most decisions grant no lot: no Set to make.
  if (!lots?.length) return [];
  const times = [...new Set(lots.filter((l) => l.amount > 0).map((l) => l.expiresAt))];
  return times.map((runAt) => ({
    type: EXPIRE_CURRENCY,
    id: currencyExpiryJobId(playerId, runAt),
    runAt,
    payload: { playerId, expiresAt: runAt },
  }));
}

/**
 * Expired lots cut to what the balance still holds: a reversal that took back a later action's
 * grant of the currency took it off the balance but not off a lot, and an expiry never takes a
 * balance below zero.
 */
function withinBalances(state: PlayerView, lots: readonly Lot[]): Lot[] {
  const left = new Map<string, number>();
  const cut: Lot[] = [];
  for (const lot of lots) {
    const held = left.get(lot.deliverableUid) ?? balanceOf(state, lot.deliverableUid);
    const amount = Math.min(lot.amount, held);
    if (amount <= 0) continue;
    left.set(lot.deliverableUid, subtractAmounts(held, amount));
    cut.push({ ...lot, amount });
  }
  return cut;
}

/**
 * The job's decision: every lot of the player expired by `now`, in one CurrencyExpired that takes
 * them off the balances; nothing when none has (a rerun, or lots spent or taken back before).
 */
export const decideExpireCurrency: Decider<{ playerId: string }, PlayerState, { expired: Lot[] }> = (
  { playerId },
  state,
  env,
) => {
  const now = env.now;
  const due = expiredLots(state, now);
  if (!due.length) return ok(decision({ expired: [] }, []));
  const lots = withinBalances(state, due);
  const effects = noEffects();
  for (const l of lots) addBalance(effects, l.deliverableUid, -l.amount);
  // Every due lot leaves the record, even one the balance no longer held in full.
  effects.lots = negated(due);
  const expired: CurrencyExpired = { playerId, lots, expiredAt: now, effects };
  return ok(
    decision({ expired: lots }, [
      { stream: playerStream(playerId), events: [{ type: 'CurrencyExpired', data: expired }] },
    ]),
  );
};

/** The currency expiry job: decided on the player's state. */
export const expireCurrencyDecider: UseCase<{ playerId: string }, PlayerState, { expired: Lot[] }> = {
  read: (cmd) => playerOf(cmd.playerId),
  decide: decideExpireCurrency,
};
