/** Local date-times of the catalog's time zone, and leaderboard seasons. */
export {
  DAY_MS,
  type LocalDateTime,
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
export { type Season, SEASONS, isoWeekOf, isoWeeksInYear, parseSeasonKey, seasonPeriod } from './season';
