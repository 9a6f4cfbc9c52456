import { z } from 'zod';

/**
 * `reference-<referenceId>`: written in the same append as the action's ActionProcessed, so a
 * referenceId is taken exactly when the action is on the player's stream.
 */
export const referenceRecordedSchema = z.object({
  referenceId: z.string(),
  playerId: z.string(),
  actionName: z.string(),
  /** Revision of the ActionProcessed on the player's stream: get-response reads that one event. */
  playerRevision: z.number().int(),
});
export type ReferenceRecorded = z.infer<typeof referenceRecordedSchema>;

/** The action was reversed (in the same append as its ActionReversed). */
export const referenceReversedSchema = z.object({
  referenceId: z.string(),
  playerId: z.string(),
  reversedAt: z.number(),
});
export type ReferenceReversed = z.infer<typeof referenceReversedSchema>;
