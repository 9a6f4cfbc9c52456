import { z } from 'zod';

/** Units of a limited stock taken or returned (streams `trigger-limit-`, `bundle-stock-`, `chest-stock-`). */
export const stockUnitsSchema = z.object({
  /** The trigger, bundle or chest pool entry. */
  resourceUid: z.string(),
  /** The action, provision or chest opening that takes or returns the units; the recompute that moves them. */
  holder: z.string(),
  playerId: z.string(),
  units: z.number().int().positive(),
});
export type StockUnits = z.infer<typeof stockUnitsSchema>;
