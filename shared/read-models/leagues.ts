/**
 * The leagues read model (docs/catalog.md, "Leagues"): one document per player and league period
 * (their tier, cohort, metric and, once settled, their result) and one per period's tier (how many
 * entered). Written by the leagues projector; a cohort's standings are read by its index (league,
 * period, tier, cohort), so they cost the cohort's size whatever the number of players.
 */
export const LEAGUE_COLLECTIONS = { members: 'league_members', tiers: 'league_tiers' } as const;

export interface LeagueMemberDoc extends Record<string, unknown> {
  /** `<league>|<start>|<playerId>`. */
  _id: string;
  league: string;
  start: number;
  end: number;
  playerId: string;
  tier: string;
  /** null until the entry is projected. */
  cohort: number | null;
  /** Place in the order of entry into the period's tier (from 0). */
  entry: number | null;
  metric: number;
  reachedAt: number;
  settled: boolean;
  rank: number | null;
  outcome: string | null;
  nextTier: string | null;
  prize: { points: number; deliverables: { deliverable: string; amount: number }[] } | null;
  /** Log position of the last event applied: a redelivered event is applied once. */
  position: number;
}

export interface LeagueTierDoc extends Record<string, unknown> {
  /** `<league>|<start>|<tier>`. */
  _id: string;
  league: string;
  start: number;
  end: number;
  tier: string;
  entries: number;
  /** The period's first entry's. */
  cohortSize: number;
  position: number;
}

export const leagueMemberId = (league: string, start: number, playerId: string): string =>
  `${league}|${start}|${playerId}`;
export const leagueTierId = (league: string, start: number, tier: string): string => `${league}|${start}|${tier}`;
