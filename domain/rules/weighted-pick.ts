/** One item picked with probability weight / (sum of weights): the randomized trigger prize, a chest draw. */
export function pickByWeight<T>(random: () => number, items: readonly T[], weightOf: (item: T) => number): T {
  const total = items.reduce((sum, x) => sum + weightOf(x), 0);
  let roll = random() * total;
  for (const item of items) {
    if (roll < weightOf(item)) return item;
    roll -= weightOf(item);
  }
  // Rounding can leave the roll a hair past the last boundary.
  return items[items.length - 1];
}

/**
 * The inverse of pickByWeight: a `random()` value that makes it pick `items[index]` (the middle of
 * its share), so a replay can reproduce a recorded pick.
 */
export function rollPicking<T>(items: readonly T[], weightOf: (item: T) => number, index: number): number {
  const total = items.reduce((sum, x) => sum + weightOf(x), 0);
  const before = items.slice(0, index).reduce((sum, x) => sum + weightOf(x), 0);
  return total > 0 ? (before + weightOf(items[index]) / 2) / total : 0;
}
