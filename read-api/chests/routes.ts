import { z } from 'zod';
import type { StreamReadDeps } from '../deps';
import { chestDrawAt, drawChancesPct, findChest } from '../../domain/rules/chests';
import { CHEST_STOCK } from '../../domain/streams';
import { levelsReachedAt } from '../../domain/rules/levels';
import { currentLevel } from '../../domain/rules/levels';
import { initialPlayerState, type PlayerState } from '../../domain/player/state';
import type { ChestOpened } from '../../domain/events/inventory-events';
import { multiplyAmount } from '../../domain/amount';
import { EVERY_TIER, OPERATORS } from '../../shared/adapters/auth/access';
import { POINTS_REWARD, type Catalog } from '../../domain/catalog/types';
import { DELIVERABLE_TYPE_CODE } from '../../domain/events/common';
import { ok, type Result } from '../../domain/result';
import { text, PLAYER_ID_DOC } from '../../shared/adapters/http/fields';
import {
  chestHistoryShape,
  nullableString,
  ownedChestShape,
  scalingModeShape,
} from '../../shared/adapters/http/wire-shapes';
import { defineRoute, parseWith, requireObject, type RawInput } from '../../shared/adapters/http/route';
import { canonicalPlayerId } from '../../domain/ids';
import { documented, ERRORS, refuse } from '../../domain/errors';

/** Chest history `top`: default 100, at most 1000. */
export const DEFAULT_HISTORY_TOP = 100;
export const MAX_HISTORY_TOP = 1000;

const listBody = z.object({ playerId: text().meta(PLAYER_ID_DOC) });
// playerId is optional, but when sent it must name a player: 1002 like every other playerId.
const previewBody = z.object({ chestDeliverableUId: text(), playerId: text().meta(PLAYER_ID_DOC).optional() });
const historyTop = z.object({
  top: z
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(MAX_HISTORY_TOP, `must be at most ${MAX_HISTORY_TOP}`)
    .optional(),
});
const historyBody = listBody.extend(historyTop.shape);

/**
 * An absent or non-object body is 1001; a missing or invalid `fields` entry, or a playerId that is
 * not a UUID, is 1002; a bad `options` entry is 1001.
 */
function parseChestBody<F extends z.ZodObject, O extends z.ZodObject>(
  input: RawInput,
  fields: F,
  options: O,
): Result<z.infer<F> & z.infer<O>> {
  const object = requireObject(input.body);
  if (!object.ok) return object;
  const required = parseWith(fields, object.value, 1002);
  if (!required.ok) return required;
  const optional = parseWith(options, object.value);
  if (!optional.ok) return optional;
  return ok({ ...required.value, ...optional.value });
}

const NO_OPTIONS = z.object({});
const PLAYER_ERRORS = {
  ...documented(ERRORS.PAYLOAD_NULL),
  1002: 'Missing required field, or playerId is not a UUID',
  ...documented(ERRORS.PLAYER_NOT_FOUND),
};

const playerIdOf = (value: string): Result<string> => {
  const playerId = canonicalPlayerId(value);
  return playerId ? ok(playerId) : refuse(ERRORS.INVALID_PLAYER_ID);
};

export const catalogChestShape = ownedChestShape.omit({ balance: true });
export const chestPreviewShape = z.object({
  chestLabel: z.string(),
  scalingMode: scalingModeShape,
  drawCountMin: z.number().int(),
  drawCountMax: z.number().int(),
  contents: z.array(
    z.object({
      rewardLabel: z.string(),
      rewardImageName: nullableString,
      type: z.number().int(),
      amountMin: z.number(),
      amountMax: z.number(),
      probability: z.number().describe('raw draw weight'),
      weightPct: z
        .number()
        .describe(
          'the chance in percent (2 decimals) that one draw picks this entry at the stock left now: its weight over the weights of every entry a draw can pick, points and powerups included though not listed; 0 when out of stock',
        ),
      limited: z.boolean(),
      remainingStock: z.number().describe('-1 when unlimited'),
    }),
  ),
});

/** The level a new player starts at: what previews without a player show. */
const startingLevel = (catalog: Catalog): number =>
  Math.max(0, ...levelsReachedAt(catalog, initialPlayerState(''), 0).map((l) => l.level));

/** The chests a player owns (balance above 0), in catalog order: /v1/chest/list, and the export. */
export const ownedChests = (catalog: Catalog, state: PlayerState) =>
  catalog.deliverables
    .filter((d) => d.kind === 'Chest' && d.chest && (state.balances.get(d.uid) ?? 0) > 0)
    .map((d) => ({
      chestDeliverableUid: d.uid,
      label: d.label,
      imageName: d.imageName,
      balance: state.balances.get(d.uid)!,
      scalingMode: d.chest!.scalingMode,
      isActive: d.isActive,
    }));

/** One record per reward of the openings, in the order given: /v1/chest/history (newest first), and the export. */
export const chestRewards = (openings: readonly ChestOpened[]) =>
  openings.flatMap((opened) =>
    opened.prizes.map((p) => ({
      openedAt: opened.openedAt,
      chestLabel: opened.chestLabel,
      rewardLabel: p.label,
      rewardImageName: p.imageName,
      type: p.type,
      amount: p.amount,
    })),
  );

/**
 * GET /v1/admin/chests (the catalog's, read from it); POST /v1/chest/list, /preview and /history. List and history read the player's stream (via the
 * state cache), preview the chest stock streams, so a write is visible at once.
 */
export const chestRoutes = (deps: StreamReadDeps) => [
  defineRoute({
    method: 'GET',
    path: '/v1/admin/chests',
    tiers: OPERATORS,
    doc: {
      operationId: 'catalogChests',
      summary: "The catalog's chests, in catalog order: what an operator can preview",
      response: z.array(catalogChestShape),
      errors: {},
    },
    parse: () => ok({}),
    async handle() {
      const { catalog } = deps.catalog();
      return ok(
        catalog.deliverables
          .filter((d) => d.kind === 'Chest' && d.chest)
          .map((d) => ({
            chestDeliverableUid: d.uid,
            label: d.label,
            imageName: d.imageName,
            scalingMode: d.chest!.scalingMode,
            isActive: d.isActive,
          })),
      );
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/chest/list',
    tiers: EVERY_TIER,
    doc: {
      operationId: 'playerChests',
      summary: 'The chests a player owns (balance above 0)',
      body: listBody,
      response: z.array(ownedChestShape),
      errors: PLAYER_ERRORS,
    },
    parse(input) {
      const body = parseChestBody(input, listBody, NO_OPTIONS);
      return body.ok ? playerIdOf(body.value.playerId) : body;
    },
    async handle(playerId) {
      const { state } = await deps.players.load(playerId);
      if (!state.registered) return refuse(ERRORS.PLAYER_NOT_FOUND);
      return ok(ownedChests(deps.catalog().catalog, state));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/chest/preview',
    tiers: EVERY_TIER,
    doc: {
      operationId: 'previewChest',
      summary: "A chest's prize pool, without points and powerups; with playerId, that player's tier or scaled amounts",
      body: previewBody,
      response: chestPreviewShape,
      errors: {
        ...PLAYER_ERRORS,
        9010: 'Chest not found, inactive, or outside its active window',
        9013: "No reward tier for the player's level",
      },
    },
    parse(input): Result<{ chestUid: string; playerId: string | null }> {
      const body = parseChestBody(input, previewBody, NO_OPTIONS);
      if (!body.ok) return body;
      const chestUid = body.value.chestDeliverableUId;
      if (body.value.playerId === undefined) return ok({ chestUid, playerId: null });
      const playerId = playerIdOf(body.value.playerId);
      return playerId.ok ? ok({ chestUid, playerId: playerId.value }) : playerId;
    },
    async handle({ chestUid, playerId }) {
      const { catalog } = deps.catalog();
      const chest = findChest(catalog, chestUid, deps.now());
      if (!chest.ok) return chest;
      let level = startingLevel(catalog);
      if (playerId) {
        const { state } = await deps.players.load(playerId);
        if (!state.registered) return refuse(ERRORS.PLAYER_NOT_FOUND);
        level = currentLevel(state);
      }
      const draw = chestDrawAt(chest.value, level);
      if (!draw.ok) return draw;
      const deliverables = new Map(catalog.deliverables.map((d) => [d.uid, d]));
      const slots = [];
      for (const slot of draw.value.slots) {
        const unitsLeft =
          slot.stockUid === null
            ? null
            : Math.max(0, slot.entry.stock! - (await deps.stocks.load(CHEST_STOCK, slot.stockUid)).state.taken);
        slots.push({ slot, unitsLeft });
      }
      // Chances are over the whole pool; points and powerups are drawn but not listed.
      const chances = drawChancesPct(slots);
      const contents = [];
      for (const [i, { slot, unitsLeft }] of slots.entries()) {
        const { entry } = slot;
        const d = deliverables.get(entry.reward);
        if (entry.reward === POINTS_REWARD || d?.kind === 'Powerup') continue;
        contents.push({
          rewardLabel: d!.label,
          rewardImageName: d!.imageName,
          type: DELIVERABLE_TYPE_CODE[d!.type],
          amountMin: multiplyAmount(entry.amount.min, draw.value.factor),
          amountMax: multiplyAmount(entry.amount.max, draw.value.factor),
          probability: entry.weight,
          weightPct: chances[i],
          limited: unitsLeft !== null,
          remainingStock: unitsLeft ?? -1,
        });
      }
      return ok({
        chestLabel: chest.value.deliverable.label,
        scalingMode: chest.value.config.scalingMode,
        drawCountMin: draw.value.drawCount.min,
        drawCountMax: draw.value.drawCount.max,
        contents,
      });
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/chest/history',
    tiers: EVERY_TIER,
    doc: {
      operationId: 'chestHistory',
      summary: 'The rewards a player received from chests, one record per reward, most recent first',
      body: historyBody,
      response: z.array(chestHistoryShape),
      errors: { ...PLAYER_ERRORS, 1001: 'Payload is null, or top is not an integer in 1..1000' },
    },
    parse(input) {
      const body = parseChestBody(input, listBody, historyTop);
      if (!body.ok) return body;
      const playerId = playerIdOf(body.value.playerId);
      return playerId.ok ? ok({ playerId: playerId.value, top: body.value.top ?? DEFAULT_HISTORY_TOP }) : playerId;
    },
    async handle({ playerId, top }) {
      const { state } = await deps.players.load(playerId);
      if (!state.registered) return refuse(ERRORS.PLAYER_NOT_FOUND);
      return ok(chestRewards([...state.chestOpenings.values()].reverse()).slice(0, top));
    },
  }),
];
