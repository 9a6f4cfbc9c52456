/** What actions and reversals record of leagues (player-events.ts holds them; league-events.ts the league's own events). */
import { z } from 'zod';

/** A league period: Unix ms, end exclusive. */
export const leaguePeriodSchema = z.object({ start: z.number(), end: z.number() });
export type LeaguePeriodBounds = z.infer<typeof leaguePeriodSchema>;

/**
 * What an action adds to a league's metric in the period of its timestamp, as decided: the tier the
 * player is in for that period, and whether the action entered them into it (their first to add).
 */
export const leagueContributionSchema = z.object({
  uid: z.string(),
  period: leaguePeriodSchema,
  /** Unix ms: the period's end plus settleAfterSeconds, when it is settled. */
  settleAt: z.number(),
  tier: z.string(),
  /** Points, or 1 for the metric's action. */
  amount: z.number(),
  entered: z.boolean(),
});
export type LeagueContribution = z.infer<typeof leagueContributionSchema>;

/** What a reversal decided before the period's settlement took back from a league's metric. */
export const leagueReturnSchema = z.object({ uid: z.string(), start: z.number(), amount: z.number() });
export type LeagueReturn = z.infer<typeof leagueReturnSchema>;
