import { addAmounts, multiplyAmount, roundAmount } from '../../shared/amount';
import { indexCatalog } from '../../shared/catalog/catalog-index';
import { POINTS_REWARD, type Catalog, type ChestConfig, type ChestPoolEntry, type Deliverable, type NumberRange } from '../../shared/catalog/types';
import { DELIVERABLE_TYPE_CODE } from '../../shared/events/common';
import type { ChestOpened, ChestPrize } from '../../shared/events/inventory-events';
import { fail, ok, type Result } from '../../shared/http/envelope';
import { localIsoToEpochMs } from '../../shared/time/local-time';
import { addBalance, effectsOfGrants, grantOf, levelsReachedAt, type DecisionEnv } from '../player/grants';
import { balanceOf, currentLevel, type PlayerState } from '../player/state';
import { pickByWeight } from '../player/weighted-pick';

export interface OpenChestCommand {
  /** Canonical lowercase dashed uuid. */
  playerId: string;
  chestUid: string;
}

export interface OpenChestEnv extends DecisionEnv {
  catalog: Catalog;
  /** Chosen once per request, so a re-decision keeps it. */
  openingUid: string;
  /** Units left of limited pool entries, by stock uid, as the handler read them; absent: the configured stock. */
  stockLeft: ReadonlyMap<string, number>;
}

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
export const chestStockUid = (chestUid: string, tier: number | null, entry: number): string => `${chestUid}.${tier === null ? 'pool' : `tier${tier}`}.${entry}`;

const slotsOf = (chestUid: string, tier: number | null, pool: readonly ChestPoolEntry[]): PoolSlot[] =>
  pool.map((entry, i) => ({ entry, stockUid: entry.stock === null ? null : chestStockUid(chestUid, tier, i) }));

/** Every limited entry of a chest, over all its tiers, with its configured stock. */
export function limitedSlots(chest: Chest): { stockUid: string; limit: number }[] {
  const uid = chest.deliverable.uid;
  const all = [...slotsOf(uid, null, chest.config.pool), ...chest.config.tiers.flatMap((t, i) => slotsOf(uid, i, t.pool))];
  return all.filter((s) => s.stockUid !== null).map((s) => ({ stockUid: s.stockUid!, limit: s.entry.stock! }));
}

/** An active chest deliverable within its window, else 9010. */
export function findChest(catalog: Catalog, chestUid: string, nowMs: number): Result<Chest> {
  const d = indexCatalog(catalog).deliverableByUid.get(chestUid);
  if (!d || d.kind !== 'Chest' || !d.chest) return fail(9010, 'Chest not found');
  if (!d.isActive) return fail(9010, 'Chest not found: it is inactive');
  const c = d.chest;
  const tz = catalog.settings.timezone;
  if ((c.startDate && nowMs < localIsoToEpochMs(c.startDate, tz)) || (c.endDate && nowMs > localIsoToEpochMs(c.endDate, tz))) {
    return fail(9010, 'Chest not found: it is outside its active window');
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
    return ok({ slots: slotsOf(deliverable.uid, tier, t.pool), drawCount: t.drawCount ?? config.drawCount, tier, factor: 1 });
  }
  // Custom: the factor of the highest minLevel the player has reached; below the first, amounts stay as configured.
  const factor = config.scalingMode === 'Custom' ? ([...config.scaling].reverse().find((s) => s.minLevel <= level)?.factor ?? 1) : 1;
  return ok({ slots: slotsOf(deliverable.uid, null, config.pool), drawCount: config.drawCount, tier: null, factor });
}

/** Units of each limited stock an opening took: one per draw of the entry. */
export function stockUnitsOf(prizes: readonly ChestPrize[]): Map<string, number> {
  const units = new Map<string, number>();
  for (const p of prizes) if (p.stockUid) units.set(p.stockUid, (units.get(p.stockUid) ?? 0) + 1);
  return units;
}

const uniformInt = (random: () => number, min: number, max: number): number => min + Math.floor(random() * (max - min + 1));

/** Uniform in the range; integers when both bounds are integers. */
function rollAmount(random: () => number, range: NumberRange): number {
  if (Number.isInteger(range.min) && Number.isInteger(range.max)) return uniformInt(random, range.min, range.max);
  return roundAmount(range.min + random() * (range.max - range.min));
}

/**
 * Opens one chest: the draw count is rolled, then each draw picks an entry by weight among those
 * still available (a limited entry with no units left is not drawn) and rolls its amount. The
 * roll goes into ChestOpened, so replays never re-roll. Stock is not the player's to decide: the
 * handler takes what the prizes name before this event is appended.
 */
export function decideOpenChest(cmd: OpenChestCommand, state: PlayerState, env: OpenChestEnv): Result<ChestOpened> {
  const { catalog } = env;
  const chest = findChest(catalog, cmd.chestUid, env.now);
  if (!chest.ok) return chest;
  if (!state.registered) return fail(9020, 'Player not found');
  if (balanceOf(state, cmd.chestUid) < 1) return fail(9011, 'Player does not own this chest');
  const playerLevel = currentLevel(state);
  const draw = chestDrawAt(chest.value, playerLevel);
  if (!draw.ok) return draw;
  const { slots, drawCount, tier, factor } = draw.value;

  const left = new Map(slots.filter((s) => s.stockUid).map((s) => [s.stockUid!, env.stockLeft.get(s.stockUid!) ?? s.entry.stock!]));
  const available = () => slots.filter((s) => s.entry.weight > 0 && (s.stockUid === null || left.get(s.stockUid)! > 0));
  if (available().length === 0) return fail(9012, 'Limited prize pool exhausted');

  const deliverables = indexCatalog(catalog).deliverableByUid;
  const prizes: ChestPrize[] = [];
  const count = uniformInt(env.random, drawCount.min, drawCount.max);
  for (let i = 0; i < count; i++) {
    const candidates = available();
    // The pool ran out during this opening: the prizes drawn so far are all there is.
    if (candidates.length === 0) break;
    const slot = pickByWeight(env.random, candidates, (c) => c.entry.weight);
    if (slot.stockUid) left.set(slot.stockUid, left.get(slot.stockUid)! - 1);
    const amount = multiplyAmount(rollAmount(env.random, slot.entry.amount), factor);
    const reward = slot.entry.reward;
    const d = reward === POINTS_REWARD ? null : deliverables.get(reward)!;
    prizes.push({
      reward,
      label: d ? d.label : 'Points',
      type: d ? DELIVERABLE_TYPE_CODE[d.type] : DELIVERABLE_TYPE_CODE.Points,
      imageName: d ? (d.imageName ?? null) : null,
      amount,
      stockUid: slot.stockUid,
    });
  }

  const points = prizes.filter((p) => p.reward === POINTS_REWARD).reduce((sum, p) => addAmounts(sum, p.amount), 0);
  // Points won count like action points: the levels they reach are reached now, with their grants.
  const levels = points > 0 ? levelsReachedAt(catalog, state, addAmounts(state.points, points)) : [];
  const grants = [...prizes.filter((p) => p.reward !== POINTS_REWARD).map((p) => grantOf(deliverables.get(p.reward)!, p.amount)), ...levels.flatMap((l) => l.grants)];
  const effects = effectsOfGrants(catalog, grants, env);
  effects.points = points;
  addBalance(effects, cmd.chestUid, -1);

  return ok({
    playerId: cmd.playerId,
    openingUid: env.openingUid,
    chestDeliverableUid: cmd.chestUid,
    chestLabel: chest.value.deliverable.label,
    scalingMode: chest.value.config.scalingMode,
    playerLevel,
    tier,
    factor,
    prizes,
    levels,
    openedAt: env.now,
    effects,
  });
}
