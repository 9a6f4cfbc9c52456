/**
 * Amounts and points are decimals kept exact to 6 places. Every arithmetic
 * result is rounded back to 6 places, so binary float drift never accumulates:
 * 0.1 + 0.2 is 0.3 in balances and standings.
 */
const SCALE = 1e6;

/**
 * The largest amount the engine holds: a grant, a cost, a balance, a player's points, a score.
 * A 6-place decimal is exact while amount x 1e6 stays below 2^53 (Number.MAX_SAFE_INTEGER), that
 * is below about 9.007e9. 1e9 leaves nine times that headroom, so the sum of two amounts in range
 * (a balance and what a decision adds to it) is still exact when it is compared with this limit.
 * Every amount a request, the catalog or a decision can produce is kept within it, or refused.
 */
export const MAX_AMOUNT = 1_000_000_000;

/** The limit as written in messages. */
export const MAX_AMOUNT_TEXT = '1,000,000,000';

export const isAmountInRange = (x: number): boolean => Number.isFinite(x) && Math.abs(x) <= MAX_AMOUNT;

export const roundAmount = (x: number): number => {
  const r = Math.round(x * SCALE) / SCALE;
  return r === 0 ? 0 : r; // no negative zero in results
};
export const addAmounts = (a: number, b: number): number => roundAmount(a + b);
export const subtractAmounts = (a: number, b: number): number => roundAmount(a - b);
export const multiplyAmount = (a: number, factor: number): number => roundAmount(a * factor);
