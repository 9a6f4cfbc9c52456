/**
 * Bounds on the catalog's numbers (docs/catalog.md, "Numbers"), so that nothing a catalog says
 * can make a decision produce an amount the engine cannot hold, loop without end, or write a
 * huge event. Amounts (points, grants, costs, targets) are bounded by MAX_AMOUNT (domain/amount.ts).
 */
import type { CatalogSection } from './types';

/** Counts, stocks, limits, rank and level numbers, durations in seconds. */
export const MAX_COUNT = 1_000_000_000;
/** A draw weight; a pool's weights together may total at most MAX_TOTAL_WEIGHT. */
export const MAX_WEIGHT = 1_000_000;
export const MAX_TOTAL_WEIGHT = 1_000_000_000;
/** Draws of one chest opening: each is a prize in the ChestOpened event. */
export const MAX_DRAW_COUNT = 100;
/** A powerup's multiplier, a chest's scaling factor. */
export const MAX_FACTOR = 1000;
/** `challenge.withinDays`: a window of up to 100 years. */
export const MAX_WITHIN_DAYS = 36_500;
/** A currency's `expiry.afterDays`: up to 100 years. */
export const MAX_EXPIRY_DAYS = 36_500;
/**
 * Most powerup instances one grant creates: each is a record the player's state keeps. The catalog
 * keeps its powerup amounts within it; a request's multiplier or a chest's factor could go past
 * it, and such a decision is refused (domain/rules/grants.ts).
 */
export const MAX_POWERUPS_PER_GRANT = 1000;
/**
 * Entries of each section, and of the two lists inside an entry whose length multiplies the work
 * of every action (a Ranked badge checks its ranks, a mission its steps): a catalog is refused
 * past them before its entries are read, so a simulated draft cannot make a replay's time or
 * memory grow without bound (docs/catalog.md, "Limits").
 */
export const MAX_ENTRIES = {
  deliverables: 1000,
  actions: 1000,
  badges: 200,
  rankSets: 100,
  triggers: 200,
  levels: 1000,
  leaderboards: 50,
  stores: 100,
  streaks: 50,
  missions: 100,
  segments: 100,
  experiments: 20,
  leagues: 20,
} as const satisfies Record<CatalogSection, number>;
export const MAX_RANKS_PER_SET = 100;
export const MAX_STEPS_PER_MISSION = 10;
/** A segment's conditions: each player's membership is read on every action of a rule that names it. */
export const MAX_CONDITIONS_PER_SEGMENT = 20;
/** An experiment's variants: each one's game is validated as a whole catalog. */
export const MAX_VARIANTS_PER_EXPERIMENT = 10;
/** A league's tiers (Duolingo's leagues have ten). */
export const MAX_TIERS_PER_LEAGUE = 50;
/** The longest `{ minutes: N }` league period: a week. */
export const MAX_LEAGUE_MINUTES = 10_080;
/**
 * The last rank a season board's prize may reach: the settlement reads that many standings and
 * rewards them in one append (docs/catalog.md, "leaderboards").
 */
export const MAX_SEASON_PRIZE_RANK = 100;
