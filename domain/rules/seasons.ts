/**
 * The rules of season prizes (docs/catalog.md, "leaderboards"), pure: the boards that give them,
 * a season's bounds and settlement time, the prize of a final rank.
 */
import type { Catalog, Leaderboard, LeaguePrize } from '../catalog/types';
import { periodEnd, periodOf, periodStart, type CalendarPeriod } from '../time/calendar';
import type { Season } from '../time/season';
import { seasonPeriod } from '../time/season';

const PERIOD_OF_SEASON: Record<Season, CalendarPeriod> = { daily: 'Day', weekly: 'Week', monthly: 'Month' };

/** A board's prizes (a version published before season prizes has none). */
export const seasonPrizesOf = (board: Leaderboard): readonly LeaguePrize[] => board.prizes ?? [];

/** The Season boards with prizes, which a job settles at each season's end. */
export const prizeBoardsOf = (catalog: Catalog): Leaderboard[] =>
  catalog.leaderboards.filter((b) => b.type === 1 && b.season !== null && seasonPrizesOf(b).length > 0);

export interface SeasonBounds {
  /** The season's key, as the standings name it (`2026-11-21`, `2026-W48`, `2026-11`). */
  key: string;
  start: number;
  /** Exclusive. */
  end: number;
}

/** The season of a Season board holding the instant `ms`, in the catalog's zone (the zone of every board's seasons). */
export function seasonAt(season: Season, ms: number, timeZone: string): SeasonBounds {
  const period = PERIOD_OF_SEASON[season];
  const ordinal = periodOf(ms, period, timeZone);
  return {
    key: seasonPeriod(ms, season, timeZone),
    start: periodStart(ordinal, period, timeZone),
    end: periodEnd(ordinal, period, timeZone),
  };
}

/** When a season's prizes are settled: its end plus the board's grace for late actions. */
export const seasonSettleAt = (board: Leaderboard, bounds: { end: number }): number =>
  bounds.end + (board.settleAfterSeconds ?? 0) * 1000;

/** How many standings a settlement reads: as far as the last prize's rank. */
export const lastPrizeRank = (board: Leaderboard): number =>
  Math.max(0, ...seasonPrizesOf(board).map((p) => p.ranks[1]));

/** The prize of a final rank, or null. */
export const rankPrizeOf = (prizes: readonly LeaguePrize[], rank: number): LeaguePrize | null =>
  prizes.find((p) => p.ranks[0] <= rank && rank <= p.ranks[1]) ?? null;
