/** Local date-times of the catalog's time zone, leaderboard seasons, and players' calendars. */
export {
  DAY_MS,
  type LocalDateTime,
  canonicalTimeZone,
  daysInMonth,
  epochMsToLocalIso,
  formatLocalIso,
  isCalendarDate,
  isLeapYear,
  isLocalIso,
  isValidTimeZone,
  localDateTimeAt,
  localIsoToEpochMs,
  parseLocalIso,
  wallTimeAsUtcMs,
} from './local-time';
export {
  type Season,
  SEASONS,
  isoWeekOf,
  isoWeeksInYear,
  parseSeasonKey,
  seasonKeyOfDate,
  seasonPeriod,
} from './season';
export { type CalendarPeriod, CALENDAR_PERIODS, periodEnd, periodLabel, periodOf, periodStart } from './calendar';
