import { z } from 'zod';
import { effectsSchema, lotSchema } from './common';
import { levelReachedSchema } from './player-events';

/** One prize a chest opening drew, as the open result and the history show it. */
export const chestPrizeSchema = z.object({
  /** A deliverable uid, or `points`. */
  reward: z.string(),
  label: z.string(),
  type: z.number().int(),
  imageName: z.string().nullable(),
  amount: z.number(),
  /** The limited stock this draw took one unit of (stream `chest-stock-<stockUid>`), or null when unlimited. */
  stockUid: z.string().nullable(),
});
export type ChestPrize = z.infer<typeof chestPrizeSchema>;

/**
 * A chest opened, on the player's stream, with the rolled prizes: replays never re-roll. One chest
 * is consumed and the prizes granted in `effects`; points won count like action points, so the
 * levels they reach are recorded here too.
 */
export const chestOpenedSchema = z.object({
  playerId: z.string(),
  /** Names the opening: the holder of the chest stock it took, and what its trace is looked up by. */
  openingUid: z.string(),
  chestDeliverableUid: z.string(),
  chestLabel: z.string(),
  scalingMode: z.enum(['None', 'PlayerLevel', 'Custom']),
  /** The player's level at opening (0 before any level). */
  playerLevel: z.number(),
  /** PlayerLevel: index of the tier drawn from; else null. */
  tier: z.number().int().nullable(),
  /** Custom: the amount factor for the player's level; else 1. */
  factor: z.number(),
  prizes: z.array(chestPrizeSchema),
  levels: z.array(levelReachedSchema),
  /** Unix ms. */
  openedAt: z.number(),
  effects: effectsSchema,
  /** The player's attributes that leaderboards are scoped by, as in force when opened (absent: none). */
  attributes: z.record(z.string(), z.string()).optional(),
});
export type ChestOpened = z.infer<typeof chestOpenedSchema>;

/** Times of the powerup events are Unix seconds, like the powerup's own fields. */
export const powerupActivatedSchema = z.object({
  playerId: z.string(),
  powerupUid: z.string(),
  activatedAt: z.number().int(),
  effects: effectsSchema,
});
export type PowerupActivated = z.infer<typeof powerupActivatedSchema>;

export const powerupDeactivatedSchema = z.object({
  playerId: z.string(),
  powerupUid: z.string(),
  deactivatedAt: z.number().int(),
  effects: effectsSchema,
});
export type PowerupDeactivated = z.infer<typeof powerupDeactivatedSchema>;

/** Appended by the expiry job once `expiresAt` has passed; validity never waits for it. */
export const powerupExpiredSchema = z.object({
  playerId: z.string(),
  powerupUid: z.string(),
  expiredAt: z.number().int(),
  effects: effectsSchema,
});
export type PowerupExpired = z.infer<typeof powerupExpiredSchema>;

/**
 * Lots of currencies that expire, expired: appended by the expiry job once their `expiresAt` has
 * passed (balances never wait for it). `effects` takes them off the balances and the lots.
 */
export const currencyExpiredSchema = z.object({
  playerId: z.string(),
  lots: z.array(lotSchema),
  /** Unix ms of the record. */
  expiredAt: z.number(),
  effects: effectsSchema,
});
export type CurrencyExpired = z.infer<typeof currencyExpiredSchema>;
