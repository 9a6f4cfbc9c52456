/**
 * Moments to reach a player (docs/catalog.md, "moments"): facts about a player's standing at a
 * time of their calendar, appended by a job when they are due and still true. They change nothing
 * the player holds (`effects` are none); client systems turn them into pushes or e-mails.
 */
import { z } from 'zod';
import { effectsSchema } from './common';

/** A Day streak not yet extended on the last day that still extends it. */
export const streakAtRiskSchema = z.object({
  playerId: z.string(),
  streakUid: z.string(),
  /** The run's length now: what the player loses at `endsAt`. */
  length: z.number().int(),
  /** Unix ms at which the run ends unless extended. */
  endsAt: z.number(),
  /** The run's last counted day (calendar ordinal, domain/time/calendar.ts): one moment per day the run stood still. */
  lastPeriod: z.number().int(),
  /** Unix ms the moment was due: `atLocalTime` of the player's zone. */
  dueAt: z.number(),
  effects: effectsSchema,
});
export type StreakAtRisk = z.infer<typeof streakAtRiskSchema>;

/** A mission in progress whose window or period ends soon. */
export const missionEndingSchema = z.object({
  playerId: z.string(),
  missionUid: z.string(),
  /** Unix ms at which the period (or the mission's window) ends. */
  endsAt: z.number(),
  /** Steps not completed yet. */
  stepsLeft: z.number().int(),
  /** The mission's period (0 for a mission done once): one moment per period. */
  period: z.number().int(),
  dueAt: z.number(),
  effects: effectsSchema,
});
export type MissionEnding = z.infer<typeof missionEndingSchema>;

/** A league period ending soon, for a player whose standing is then in one of the catalog's zones. */
export const leagueEndingSchema = z.object({
  playerId: z.string(),
  leagueUid: z.string(),
  tier: z.string(),
  /** Where their rank stands in their cohort when the moment was appended. */
  zone: z.enum(['Promotion', 'Safe', 'Demotion']),
  /** Their rank in their cohort then (from 1). */
  rank: z.number().int(),
  /** Unix ms at which the period ends. */
  endsAt: z.number(),
  /** Unix ms at which the period starts: one moment per league period. */
  periodStart: z.number(),
  dueAt: z.number(),
  effects: effectsSchema,
});
export type LeagueEnding = z.infer<typeof leagueEndingSchema>;

/** No action for `days` days of the player's calendar since `lastActionAt`. */
export const playerInactiveSchema = z.object({
  playerId: z.string(),
  days: z.number().int(),
  /** Unix ms: the timestamp of the player's latest action. */
  lastActionAt: z.number(),
  dueAt: z.number(),
  effects: effectsSchema,
});
export type PlayerInactive = z.infer<typeof playerInactiveSchema>;
