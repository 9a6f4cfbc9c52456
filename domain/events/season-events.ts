/**
 * Season prizes of leaderboards (docs/catalog.md, "leaderboards"): each rewarded player's result,
 * and the season's settlement, recorded once on its own stream.
 */
import { z } from 'zod';
import { effectsSchema, grantSchema } from './common';
import { leaguePrizeSchema } from './league-events';
import { levelReachedSchema } from './player-events';

/** A season's bounds: Unix ms, end exclusive. */
const seasonBoundsSchema = z.object({ start: z.number(), end: z.number() });

/**
 * A board's season was settled (stream `leaderboard-season-<uid>/<season>`, appended only where
 * none exists: a second settlement finds it and rewards nobody twice), with the standings it read.
 */
export const leaderboardSeasonSettledSchema = z.object({
  leaderboardUid: z.string(),
  /** The season's key, as the standings name it (`2026-11-21`, `2026-W48`, `2026-11`). */
  season: z.string(),
  bounds: seasonBoundsSchema,
  /** The standings the prizes were decided on, best first (ranks 1, 2, ...), as far as the last prize's rank. */
  standings: z.array(z.object({ playerId: z.string(), score: z.number() })),
  settledAt: z.number(),
});
export type LeaderboardSeasonSettled = z.infer<typeof leaderboardSeasonSettledSchema>;

/** A player's prize for their final rank in a board's season, granted in the same append. */
export const leaderboardSeasonFinishedSchema = z.object({
  playerId: z.string(),
  leaderboardUid: z.string(),
  season: z.string(),
  bounds: seasonBoundsSchema,
  rank: z.number().int(),
  score: z.number(),
  /** The rank's prize as the catalog gives it. */
  prize: leaguePrizeSchema,
  /** The prize's deliverables as granted. */
  grants: z.array(grantSchema),
  /** Levels the prize's points reach. */
  levels: z.array(levelReachedSchema),
  settledAt: z.number(),
  /** The player's leaderboard scope attributes now (absent: none). */
  attributes: z.record(z.string(), z.string()).optional(),
  effects: effectsSchema,
});
export type LeaderboardSeasonFinished = z.infer<typeof leaderboardSeasonFinishedSchema>;
