/**
 * Amounts and points are decimals kept exact to 6 places (decisions.md §4). Every arithmetic
 * result is rounded back to 6 places, so binary float drift never accumulates:
 * 0.1 + 0.2 is 0.3 in balances and standings.
 */
const SCALE = 1e6;

export const roundAmount = (x: number): number => {
  const r = Math.round(x * SCALE) / SCALE;
  return r === 0 ? 0 : r; // no negative zero in results
};
export const addAmounts = (a: number, b: number): number => roundAmount(a + b);
export const subtractAmounts = (a: number, b: number): number => roundAmount(a - b);
export const multiplyAmount = (a: number, factor: number): number => roundAmount(a * factor);
export const sumAmounts = (xs: Iterable<number>): number => {
  let total = 0;
  for (const x of xs) total = addAmounts(total, x);
  return total;
};
