import { z } from 'zod';

/** Deliverable type codes in answers: 0 Points, 1 Prize, 2 Content, 3 Notification. */
export const DELIVERABLE_TYPE_CODE = { Points: 0, Prize: 1, Content: 2, Notification: 3 } as const;

/** A deliverable granted (or taken back) as it is shown in results: after multipliers and powerups. */
export const grantSchema = z.object({
  uid: z.string(),
  label: z.string(),
  type: z.number().int(),
  imageName: z.string().nullable(),
  amount: z.number(),
  details: z.array(z.object({ label: z.string(), value: z.string() })).nullable(),
});
export type Grant = z.infer<typeof grantSchema>;

export const powerupInstanceSchema = z.object({
  uid: z.string(),
  deliverableUid: z.string(),
  prizeLabel: z.string(),
  prizeImageName: z.string().nullable(),
  multiplier: z.number(),
  /** Uses granted; 0 = unlimited. */
  initialUseCount: z.number().int(),
  timeoutSeconds: z.number(),
  neverExpires: z.boolean(),
  /** Unix seconds. */
  createdAt: z.number().int(),
  /** Unix seconds; 0 when it never expires. */
  expiresAt: z.number().int(),
  /** Deliverable uids it multiplies; empty = every Prize. */
  targetPrizes: z.array(z.string()),
});
export type PowerupInstance = z.infer<typeof powerupInstanceSchema>;

/**
 * One lot of a currency that expires (catalog `expiry`): `amount` of it until `expiresAt` (Unix ms).
 * In `effects.lots` the amount is signed: + a grant or what is given back, - what is spent, taken
 * back or expired.
 */
export const lotSchema = z.object({ deliverableUid: z.string(), expiresAt: z.number(), amount: z.number() });
export type Lot = z.infer<typeof lotSchema>;

/**
 * What a player event changes in the player's holdings. Every player event carries one, so a
 * balance is the sum of its events and an auditor can see each change with its cause.
 */
export const effectsSchema = z.object({
  points: z.number(),
  /** Signed changes per deliverable uid (currencies, items, chests, ...). */
  balances: z.array(z.object({ deliverableUid: z.string(), amount: z.number() })),
  powerupsGranted: z.array(powerupInstanceSchema),
  powerupsRemoved: z.array(z.string()),
  /** Signed: +n uses consumed, -n uses given back (a reversal). */
  powerupUses: z.array(z.object({ uid: z.string(), uses: z.number().int() })),
  /** Signed changes of the lots of currencies that expire, each already counted in `balances` (absent: none). */
  lots: z.array(lotSchema).optional(),
});
export type Effects = z.infer<typeof effectsSchema>;

export const noEffects = (): Effects => ({
  points: 0,
  balances: [],
  powerupsGranted: [],
  powerupsRemoved: [],
  powerupUses: [],
});
