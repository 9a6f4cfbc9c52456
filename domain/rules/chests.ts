/**
 * A chest's draw table: which pool and draw count apply at a player's level, and the limited
 * stocks of its pool entries. The opening draws from it; the preview shows it.
 */
import { indexCatalog } from '../catalog/catalog-index';
import type { Catalog, ChestConfig, ChestPoolEntry, Deliverable, NumberRange } from '../catalog/types';
import type { ChestPrize } from '../events/inventory-events';
import { fail, ok, type Result } from '../result';
import { localIsoToEpochMs } from '../time/local-time';
import { ERRORS, refuse } from '../errors';

export interface Chest {
  deliverable: Deliverable;
  config: ChestConfig;
}

/** A pool entry with the uid of its global stock (null when unlimited). */
export interface PoolSlot {
  entry: ChestPoolEntry;
  stockUid: string | null;
}

/** What a chest draws from at one player level. */
export interface ChestDraw {
  slots: PoolSlot[];
  drawCount: NumberRange;
  /** PlayerLevel: index of the tier; else null. */
  tier: number | null;
  /** Custom: the amount factor for the level; else 1. */
  factor: number;
}

/**
 * The stream of a limited pool entry is named by its place in the chest (`<chest>.pool.<i>` or
 * `<chest>.tier<t>.<i>`): entries have no uid of their own, and the same reward may appear twice.
 */
export const chestStockUid = (chestUid: string, tier: number | null, entry: number): string =>
  `${chestUid}.${tier === null ? 'pool' : `tier${tier}`}.${entry}`;

const slotsOf = (chestUid: string, tier: number | null, pool: readonly ChestPoolEntry[]): PoolSlot[] =>
  pool.map((entry, i) => ({ entry, stockUid: entry.stock === null ? null : chestStockUid(chestUid, tier, i) }));

/** Every limited entry of a chest, over all its tiers, with its configured stock. */
export function limitedSlots(chest: Chest): { stockUid: string; limit: number }[] {
  const uid = chest.deliverable.uid;
  const all = [
    ...slotsOf(uid, null, chest.config.pool),
    ...chest.config.tiers.flatMap((t, i) => slotsOf(uid, i, t.pool)),
  ];
  return all.filter((s) => s.stockUid !== null).map((s) => ({ stockUid: s.stockUid!, limit: s.entry.stock! }));
}

/** An active chest deliverable within its window, else 9010. */
export function findChest(catalog: Catalog, chestUid: string, nowMs: number): Result<Chest> {
  const d = indexCatalog(catalog).deliverableByUid.get(chestUid);
  if (!d || d.kind !== 'Chest' || !d.chest) return refuse(ERRORS.CHEST_NOT_FOUND);
  if (!d.isActive) return refuse(ERRORS.CHEST_NOT_FOUND, 'it is inactive');
  const c = d.chest;
  const tz = catalog.settings.timezone;
  if (
    (c.startDate && nowMs < localIsoToEpochMs(c.startDate, tz)) ||
    (c.endDate && nowMs > localIsoToEpochMs(c.endDate, tz))
  ) {
    return refuse(ERRORS.CHEST_NOT_FOUND, 'it is outside its active window');
  }
  return ok({ deliverable: d, config: c });
}

/** The pool, draw count and amount factor of a chest at a player level; 9013 when no tier holds it. */
export function chestDrawAt(chest: Chest, level: number): Result<ChestDraw> {
  const { config, deliverable } = chest;
  if (config.scalingMode === 'PlayerLevel') {
    const tier = config.tiers.findIndex((t) => t.minLevel <= level && level <= t.maxLevel);
    if (tier < 0) return fail(9013, `No reward tier for the player's level (${level})`);
    const t = config.tiers[tier];
    return ok({
      slots: slotsOf(deliverable.uid, tier, t.pool),
      drawCount: t.drawCount ?? config.drawCount,
      tier,
      factor: 1,
    });
  }
  // Custom: the factor of the highest minLevel the player has reached; below the first, amounts stay as configured.
  const factor =
    config.scalingMode === 'Custom' ? ([...config.scaling].reverse().find((s) => s.minLevel <= level)?.factor ?? 1) : 1;
  return ok({ slots: slotsOf(deliverable.uid, null, config.pool), drawCount: config.drawCount, tier: null, factor });
}

/** Whether a draw can pick the slot: a weight above 0 and, when limited, units left (null: unlimited). */
export const drawable = (slot: PoolSlot, unitsLeft: number | null): boolean =>
  slot.entry.weight > 0 && (unitsLeft === null || unitsLeft > 0);

/**
 * For each slot, in percent with 2 decimals, the chance that one draw picks it at the stock left
 * now: its weight over the weights of every entry a draw can pick (points and powerups included),
 * 0 for an entry a draw cannot pick. This is the disclosure previews show, so it is the opening's
 * own rule (`drawable`), not a share of the entries listed.
 */
export function drawChancesPct(slots: readonly { slot: PoolSlot; unitsLeft: number | null }[]): number[] {
  const weights = slots.map((s) => (drawable(s.slot, s.unitsLeft) ? s.slot.entry.weight : 0));
  const total = weights.reduce((sum, w) => sum + w, 0);
  return weights.map((w) => (total > 0 ? Math.round((w / total) * 10_000) / 100 : 0));
}

/** Units of each limited stock an opening took: one per draw of the entry. */
export function stockUnitsOf(prizes: readonly ChestPrize[]): Map<string, number> {
  const units = new Map<string, number>();
  for (const p of prizes) if (p.stockUid) units.set(p.stockUid, (units.get(p.stockUid) ?? 0) + 1);
  return units;
}
