/**
 * A player's calendar: the Day, ISO Week or Month holding an instant in a time zone, where it
 * ends, and its name. Streaks and caps count periods with it. A period is an ordinal (days and
 * Monday-first weeks since 1970-01-01, months since year 0), so "the next period" is + 1; it is
 * named as leaderboard seasons name theirs (`2026-11-25`, `2026-W48`, `2026-11`).
 */
import { DAY_MS, localDateTimeAt, localIsoToEpochMs, localWallMs } from './local-time';
import { seasonKeyOfDate, type Season } from './season';

export type CalendarPeriod = 'Day' | 'Week' | 'Month';

export const CALENDAR_PERIODS: readonly CalendarPeriod[] = ['Day', 'Week', 'Month'];

const SEASON_OF: Record<CalendarPeriod, Season> = { Day: 'daily', Week: 'weekly', Month: 'monthly' };

/** 1970-01-01 was a Thursday: day -3 is the Monday that starts week 0. */
const weekOfDay = (day: number): number => Math.floor((day + 3) / 7);

/** The calendar day `day` days after 1970-01-01. */
function dateOfDay(day: number): { year: number; month: number; day: number } {
  const d = new Date(day * DAY_MS);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** First calendar day of a period. */
function firstDay(ordinal: number, period: CalendarPeriod): { year: number; month: number; day: number } {
  switch (period) {
    case 'Day':
      return dateOfDay(ordinal);
    case 'Week':
      return dateOfDay(ordinal * 7 - 3);
    case 'Month':
      return { year: Math.floor(ordinal / 12), month: (((ordinal % 12) + 12) % 12) + 1, day: 1 };
  }
}

/** The period of `period` kind holding the instant `ms` in `timeZone`. Throws RangeError for an unknown zone. */
export function periodOf(ms: number, period: CalendarPeriod, timeZone: string): number {
  if (period === 'Month') {
    const t = localDateTimeAt(ms, timeZone);
    return t.year * 12 + t.month - 1;
  }
  // Days counted straight from the wall time: every action asks, and building its fields shows in figure 1.
  const day = Math.floor(localWallMs(ms, timeZone) / DAY_MS);
  return period === 'Day' ? day : weekOfDay(day);
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Unix ms at which a period starts in `timeZone`: its first day's midnight (or the first instant after, where midnight is skipped). */
export function periodStart(ordinal: number, period: CalendarPeriod, timeZone: string): number {
  const d = firstDay(ordinal, period);
  return localIsoToEpochMs(`${pad(d.year, 4)}-${pad(d.month)}-${pad(d.day)}T00:00:00`, timeZone);
}

/** Unix ms at which a period ends in `timeZone` (exclusive): the start of the next one. */
export function periodEnd(ordinal: number, period: CalendarPeriod, timeZone: string): number {
  return periodStart(ordinal + 1, period, timeZone);
}

/**
 * Whether a period has any instant in `timeZone`: a zone that moved across the date line skipped a
 * whole local day (Pacific/Kiritimati 1994-12-31, Pacific/Apia 2011-12-30). Such a day's midnight,
 * read with the offset before the change, falls in a later day.
 */
export function periodExists(ordinal: number, period: CalendarPeriod, timeZone: string): boolean {
  return periodOf(periodStart(ordinal, period, timeZone), period, timeZone) === ordinal;
}

/**
 * How many periods strictly between `after` and `before` exist in `timeZone`, counted up to
 * `atMost + 1` (enough to tell "more than atMost" without walking a long gap day by day).
 */
export function periodsBetween(
  after: number,
  before: number,
  period: CalendarPeriod,
  timeZone: string,
  atMost = Infinity,
): number {
  let count = 0;
  for (let p = after + 1; p < before && count <= atMost; p++) if (periodExists(p, period, timeZone)) count++;
  return count;
}

/** The `n`th period after `ordinal` that exists in `timeZone` (n >= 1). */
export function periodAfter(ordinal: number, n: number, period: CalendarPeriod, timeZone: string): number {
  let p = ordinal;
  for (let left = n; left > 0;) if (periodExists(++p, period, timeZone)) left--;
  return p;
}

/** A period's name: `2026-11-25` (Day), `2026-W48` (Week), `2026-11` (Month). */
export function periodLabel(ordinal: number, period: CalendarPeriod): string {
  const d = firstDay(ordinal, period);
  return seasonKeyOfDate(d.year, d.month, d.day, SEASON_OF[period]);
}
