/**
 * Season periods of Season leaderboards (docs/catalog.md, "leaderboards"): a board resets every day, ISO week
 * (starting Monday) or month of the catalog time zone. A period is named by its key:
 * `2026-11-21` (daily), `2026-W47` (weekly), `2026-11` (monthly).
 */
import { DAY_MS, isCalendarDate, localWallMs } from './local-time';

export type Season = 'daily' | 'weekly' | 'monthly';

export const SEASONS: readonly Season[] = ['daily', 'weekly', 'monthly'];

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function utcDayStart(year: number, month: number, day: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return d.getTime();
}

/** ISO 8601 week of a calendar day: the week (Monday..Sunday) belongs to the year of its Thursday. */
export function isoWeekOf(year: number, month: number, day: number): { weekYear: number; week: number } {
  const dayStart = utcDayStart(year, month, day);
  const isoWeekday = ((new Date(dayStart).getUTCDay() + 6) % 7) + 1; // Monday 1 .. Sunday 7
  const thursday = dayStart + (4 - isoWeekday) * DAY_MS;
  const weekYear = new Date(thursday).getUTCFullYear();
  const week = Math.floor((thursday - utcDayStart(weekYear, 1, 1)) / DAY_MS / 7) + 1;
  return { weekYear, week };
}

/** 52 or 53: December 28 always lies in the last ISO week of its year. */
export function isoWeeksInYear(year: number): number {
  return isoWeekOf(year, 12, 28).week;
}

/**
 * Keys by season and local day number (days since 1970-01-01): projections ask for the key of
 * every event, and building it (a Date, padded strings) was a tenth of a rebuild. Starts over
 * past MAX_CACHED_DAYS days per season (about 27 years).
 */
const keysByDay: Record<Season, Map<number, string>> = { daily: new Map(), weekly: new Map(), monthly: new Map() };
const MAX_CACHED_DAYS = 10_000;

/** Key of the period of `season` holding the instant `ms`, in `timeZone`. */
export function seasonPeriod(ms: number, season: Season, timeZone: string): string {
  const day = Math.floor(localWallMs(ms, timeZone) / DAY_MS);
  const keys = keysByDay[season];
  let key = keys.get(day);
  if (key === undefined) {
    const d = new Date(day * DAY_MS);
    key = seasonKeyOfDate(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), season);
    if (keys.size >= MAX_CACHED_DAYS) keys.clear();
    keys.set(day, key);
  }
  return key;
}

/** Key of the period of `season` holding a calendar day (the names streaks and caps use too). */
export function seasonKeyOfDate(year: number, month: number, day: number, season: Season): string {
  switch (season) {
    case 'daily':
      return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
    case 'monthly':
      return `${pad(year, 4)}-${pad(month)}`;
    case 'weekly': {
      const { weekYear, week } = isoWeekOf(year, month, day);
      return `${pad(weekYear, 4)}-W${pad(week)}`;
    }
  }
}

const KEY_PATTERNS: Record<Season, RegExp> = {
  daily: /^(\d{4})-(\d{1,2})-(\d{1,2})$/,
  weekly: /^(\d{4})-[Ww](\d{1,2})$/,
  monthly: /^(\d{4})-(\d{1,2})$/,
};

/**
 * Validates a period key of `season` (e.g. the `season` query of a leaderboard) and returns it in
 * canonical form (zero-padded, upper-case `W`), or null when it names no real period
 * (`2026-02-30`, `2026-13`, `2025-W53` since 2025 has 52 ISO weeks).
 */
export function parseSeasonKey(key: string, season: Season): string | null {
  const m = KEY_PATTERNS[season].exec(key);
  if (!m) return null;
  const [year, a, b] = m.slice(1).map(Number) as [number, number, number | undefined];
  switch (season) {
    case 'daily':
      return isCalendarDate(year, a, b ?? 0) ? `${pad(year, 4)}-${pad(a)}-${pad(b ?? 0)}` : null;
    case 'monthly':
      return isCalendarDate(year, a, 1) ? `${pad(year, 4)}-${pad(a)}` : null;
    case 'weekly':
      return year >= 1 && a >= 1 && a <= isoWeeksInYear(year) ? `${pad(year, 4)}-W${pad(a)}` : null;
  }
}
