/** Leagues (docs/catalog.md, "Leagues"): what actions add to a period, who entered it, and each cohort's settlement. */
import { z } from 'zod';
import { effectsSchema, grantSchema } from './common';
import { levelReachedSchema } from './player-events';
import { leaguePeriodSchema } from './league-schemas';

export * from './league-schemas';

/**
 * A player entered a period's tier (stream `league-<uid>/<start>/<tier>`): the stream's order is
 * the order of entry, so the nth event's player is in cohort ceil(n / cohortSize).
 */
export const leagueEnteredSchema = z.object({
  leagueUid: z.string(),
  period: leaguePeriodSchema,
  tier: z.string(),
  playerId: z.string(),
  /** The catalog's cohortSize when the player entered; the period's first entry's is the one that counts. */
  cohortSize: z.number().int(),
});
export type LeagueEntered = z.infer<typeof leagueEnteredSchema>;

/** A cohort was settled (on the tier's stream, once: a second settlement finds it here). */
export const leagueCohortSettledSchema = z.object({
  leagueUid: z.string(),
  period: leaguePeriodSchema,
  tier: z.string(),
  cohort: z.number().int(),
  /** Best first. */
  players: z.array(z.string()),
  settledAt: z.number(),
});
export type LeagueCohortSettled = z.infer<typeof leagueCohortSettledSchema>;

export const leaguePrizeSchema = z.object({
  points: z.number(),
  deliverables: z.array(z.object({ deliverable: z.string(), amount: z.number() })),
});

/** A player's result in a settled period, with the prize of their rank granted in the same append. */
export const leagueFinishedSchema = z.object({
  playerId: z.string(),
  leagueUid: z.string(),
  period: leaguePeriodSchema,
  tier: z.string(),
  cohort: z.number().int(),
  rank: z.number().int(),
  metric: z.number(),
  outcome: z.enum(['Promoted', 'Demoted', 'Stayed']),
  nextTier: z.string(),
  /** The rank's prize as the catalog gives it; null: none. */
  prize: leaguePrizeSchema.nullable(),
  /** The prize's deliverables as granted. */
  grants: z.array(grantSchema),
  /** Levels the prize's points reach. */
  levels: z.array(levelReachedSchema),
  settledAt: z.number(),
  /** The player's leaderboard scope attributes now (absent: none). */
  attributes: z.record(z.string(), z.string()).optional(),
  effects: effectsSchema,
});
export type LeagueFinished = z.infer<typeof leagueFinishedSchema>;
export type LeagueOutcome = LeagueFinished['outcome'];
