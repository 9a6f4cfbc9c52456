import { z } from 'zod';
import { effectsSchema, grantSchema } from './common';

/** What a provision charged: null deliverable and label for a free bundle. */
export const provisionCostSchema = z.object({ deliverableUid: z.string().nullable(), label: z.string().nullable(), amount: z.number() });
export type ProvisionCost = z.infer<typeof provisionCostSchema>;

/**
 * A store purchase, on the player's stream: the currency is charged here and, unless the bundle
 * requires fulfillment, the contents granted in the same event.
 */
export const bundlePurchasedSchema = z.object({
  playerId: z.string(),
  provisionUid: z.string(),
  storeUid: z.string(),
  bundleUid: z.string(),
  bundleLabel: z.string(),
  cost: provisionCostSchema,
  /** The purchase took one unit of the bundle's global stock (`bundle-stock-<uid>`). */
  stockTaken: z.boolean(),
  status: z.enum(['Pending', 'Completed']),
  /** The bundle's contents as granted (now, or by ProvisionCompleted when Pending). */
  contents: z.array(grantSchema),
  /** Unix ms by which a Pending provision must be completed. */
  pendingUntil: z.number().nullable(),
  purchasedAt: z.number(),
  effects: effectsSchema,
});
export type BundlePurchased = z.infer<typeof bundlePurchasedSchema>;

export const provisionCompletedSchema = z.object({
  playerId: z.string(),
  provisionUid: z.string(),
  completedAt: z.number(),
  contents: z.array(grantSchema),
  effects: effectsSchema,
});
export type ProvisionCompleted = z.infer<typeof provisionCompletedSchema>;

/** A Pending provision cancelled or timed out: the currency comes back (and the stock, on its own stream). */
export const provisionFailedSchema = z.object({
  playerId: z.string(),
  provisionUid: z.string(),
  reason: z.enum(['Cancelled', 'TimedOut']),
  failedAt: z.number(),
  returned: provisionCostSchema,
  effects: effectsSchema,
});
export type ProvisionFailed = z.infer<typeof provisionFailedSchema>;

/** A Completed store provision refunded: the currency comes back and the contents go. */
export const provisionRefundedSchema = z.object({
  playerId: z.string(),
  provisionUid: z.string(),
  refundedAt: z.number(),
  returned: provisionCostSchema,
  removed: z.array(grantSchema),
  /** Powerup instances the contents had created, taken back with them. */
  powerupsRemoved: z.array(z.string()),
  effects: effectsSchema,
});
export type ProvisionRefunded = z.infer<typeof provisionRefundedSchema>;

export const PROVISION_EVENT_SCHEMAS = {
  BundlePurchased: bundlePurchasedSchema,
  ProvisionCompleted: provisionCompletedSchema,
  ProvisionFailed: provisionFailedSchema,
  ProvisionRefunded: provisionRefundedSchema,
} as const;
