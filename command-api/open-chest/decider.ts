/** Opening a chest: the draw and what it grants. */
import { addAmounts, multiplyAmount, roundAmount } from '../../domain/amount';
import { indexCatalog } from '../../domain/catalog/catalog-index';
import { POINTS_REWARD, type NumberRange } from '../../domain/catalog/types';
import { DELIVERABLE_TYPE_CODE, noEffects } from '../../domain/events/common';
import type { ChestOpened, ChestPrize } from '../../domain/events/inventory-events';
import { scopedAttributes } from '../../domain/player/attributes';
import { balanceOf, type PlayerState } from '../../domain/player/state';
import { ok } from '../../domain/result';
import { chestDrawAt, drawable, findChest, limitedSlots, stockUnitsOf } from '../../domain/rules/chests';
import { addBalance, effectsOfGrants, grantOf } from '../../domain/rules/grants';
import { currencyExpiryJobs } from '../currency-expiry/decider';
import { currentLevel, levelsReachedAt } from '../../domain/rules/levels';
import { pickByWeight } from '../../domain/rules/weighted-pick';
import { CHEST_STOCK, playerStream, stockStream } from '../../domain/streams';
import { decision, type Decider } from '../decision';
import { folded, type Reads, type UseCase } from '../use-case';
import { playerOf } from '../player-reads';
import { STOCK_FOLD } from '../../domain/stock/stock';
import type { DecideEnv } from '../decision';
import { ERRORS, refuse } from '../../domain/errors';

export interface OpenChestCommand {
  /** Canonical lowercase dashed uuid. */
  playerId: string;
  chestUid: string;
}

export interface OpenChestState {
  player: PlayerState;
  /** Units taken so far of each limited pool entry of the chest, by stock uid. */
  stockTaken: ReadonlyMap<string, number>;
}

const uniformInt = (random: () => number, min: number, max: number): number =>
  min + Math.floor(random() * (max - min + 1));

/** Uniform in the range; integers when both bounds are integers. */
function rollAmount(random: () => number, range: NumberRange): number {
  if (Number.isInteger(range.min) && Number.isInteger(range.max)) return uniformInt(random, range.min, range.max);
  return roundAmount(range.min + random() * (range.max - range.min));
}

/**
 * Opens one chest: the draw count is rolled, then each draw picks an entry by weight among those
 * still available (a limited entry with no units left is not drawn) and rolls its amount. The
 * roll goes into ChestOpened, so replays never re-roll; each limited entry drawn takes its units
 * from its stock stream in the same append, at the revision read, so no prize is ever drawn
 * beyond its stock. Answers the ChestOpened.
 */
export const decideOpenChest: Decider<OpenChestCommand, OpenChestState, ChestOpened> = (cmd, state, env) => {
  const { catalog } = env;
  const { player } = state;
  const chest = findChest(catalog, cmd.chestUid, env.now);
  if (!chest.ok) return chest;
  if (!player.registered) return refuse(ERRORS.PLAYER_NOT_FOUND);
  if (balanceOf(player, cmd.chestUid) < 1) return refuse(ERRORS.CHEST_NOT_OWNED);
  const playerLevel = currentLevel(player);
  const draw = chestDrawAt(chest.value, playerLevel);
  if (!draw.ok) return draw;
  const { slots, drawCount, tier, factor } = draw.value;

  const left = new Map(
    slots
      .filter((s) => s.stockUid)
      .map((s) => [s.stockUid!, s.entry.stock! - (state.stockTaken.get(s.stockUid!) ?? 0)]),
  );
  const available = () => slots.filter((s) => drawable(s, s.stockUid === null ? null : left.get(s.stockUid)!));
  if (available().length === 0) return refuse(ERRORS.PRIZE_POOL_EXHAUSTED);

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
  const levels = points > 0 ? levelsReachedAt(catalog, player, addAmounts(player.points, points)) : [];
  const grants = [
    ...prizes.filter((p) => p.reward !== POINTS_REWARD).map((p) => grantOf(deliverables.get(p.reward)!, p.amount)),
    ...levels.flatMap((l) => l.grants),
  ];
  const clock = { timestamp: env.now, timeZone: player.timeZone ?? catalog.settings.timezone };
  const granted = effectsOfGrants(catalog, grants, env, noEffects(), clock);
  if (!granted.ok) return granted;
  const effects = granted.value;
  effects.points = points;
  addBalance(effects, cmd.chestUid, -1);

  const opened: ChestOpened = {
    playerId: cmd.playerId,
    openingUid: env.newUid(),
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
  };
  // Chest points count on the leaderboard scopes the player is on now.
  const scopes = scopedAttributes(catalog, state.player.attributes);
  if (scopes) opened.attributes = scopes;
  const stockTaken = [...stockUnitsOf(prizes)].map(([stockUid, units]) => ({
    stream: stockStream(CHEST_STOCK, stockUid),
    events: [
      {
        type: CHEST_STOCK.taken,
        data: { resourceUid: stockUid, holder: opened.openingUid, playerId: cmd.playerId, units },
      },
    ],
  }));
  return ok(
    decision(
      opened,
      [{ stream: playerStream(cmd.playerId), events: [{ type: 'ChestOpened', data: opened }] }, ...stockTaken],
      currencyExpiryJobs(cmd.playerId, effects.lots),
    ),
  );
};

/** The player, and the stocks of the chest's limited prizes (of the chest open now). */
function* openingOf(cmd: OpenChestCommand, env: DecideEnv): Reads<OpenChestState> {
  const player = yield* playerOf(cmd.playerId);
  const chest = findChest(env.catalog, cmd.chestUid, env.now);
  const stockTaken = new Map<string, number>();
  for (const { stockUid } of chest.ok ? limitedSlots(chest.value) : [])
    stockTaken.set(stockUid, (yield* folded(stockStream(CHEST_STOCK, stockUid), STOCK_FOLD)).state.taken);
  return { player, stockTaken };
}

/** A chest opening: decided on the player and the stocks of the chest's limited prizes. */
export const openChestDecider: UseCase<OpenChestCommand, OpenChestState, ChestOpened> = {
  read: openingOf,
  decide: decideOpenChest,
};
