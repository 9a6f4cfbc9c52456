import { z } from 'zod';
import { effectsSchema, grantSchema, lotSchema } from './common';

/** What a provision charged: null deliverable and label for a free bundle. */
export const provisionCostSchema = z.object({
  deliverableUid: z.string().nullable(),
  label: z.string().nullable(),
  amount: z.number(),
  /** The lots of a currency that expires it drew, soonest first: what giving it back returns (absent: none). */
  lots: z.array(lotSchema).optional(),
});
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

/** A Pending provision cancelled or timed out: the currency comes back (and the stock, on its own stream, in the same append). */
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

export const provisionStatusSchema = z.enum(['Pending', 'Completed', 'Refunded', 'Failed']);
export type ProvisionStatus = z.infer<typeof provisionStatusSchema>;
export const failureReasonSchema = z.enum(['Cancelled', 'TimedOut']).nullable();

/**
 * First event of `provision-<uid>`, written with the purchase (or the action whose cost it is):
 * whose provision it is and what the transaction endpoints show of it.
 */
export const provisionOpenedSchema = z.object({
  provisionUid: z.string(),
  playerId: z.string(),
  referenceType: z.enum(['Store', 'Action']),
  /** The bundle of a store purchase; null for an action's cost. */
  bundleUid: z.string().nullable(),
  /** The action whose cost it is; null for a store purchase. */
  referenceId: z.string().nullable(),
  cost: provisionCostSchema,
  status: provisionStatusSchema,
  /** Unix ms. */
  createDate: z.number(),
});
export type ProvisionOpened = z.infer<typeof provisionOpenedSchema>;

/** Every later status of the provision, in the same append as the player event that moved it. */
export const provisionStatusChangedSchema = z.object({
  provisionUid: z.string(),
  playerId: z.string(),
  status: provisionStatusSchema,
  failureReason: failureReasonSchema,
  /** Unix ms. */
  updateDate: z.number(),
});
export type ProvisionStatusChanged = z.infer<typeof provisionStatusChangedSchema>;
