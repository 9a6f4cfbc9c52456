import { isoWeekOf, isoWeeksInYear, parseSeasonKey, seasonPeriod } from './season';

const utc = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) => Date.UTC(y, mo - 1, d, h, mi, s);

describe('ISO weeks', () => {
  it.each([
    [2026, 1, 1, '2026-W01'], // a Thursday: week 1 is the week holding it
    [2025, 12, 29, '2026-W01'], // Monday of that week, still in 2025
    [2025, 12, 28, '2025-W52'],
    [2027, 1, 1, '2026-W53'], // a Friday: belongs to the last week of 2026
    [2027, 1, 3, '2026-W53'],
    [2027, 1, 4, '2027-W01'],
    [2024, 12, 30, '2025-W01'], // a Monday whose Thursday is in 2025
    [2024, 12, 29, '2024-W52'],
    [2020, 12, 31, '2020-W53'],
    [2021, 1, 3, '2020-W53'],
    [2026, 11, 21, '2026-W47'],
  ])('%i-%i-%i is in %s', (y, m, d, key) => {
    expect(seasonPeriod(utc(y, m, d, 12), 'weekly', 'UTC')).toBe(key);
  });

  it('counts 52 or 53 weeks a year', () => {
    expect(isoWeeksInYear(2026)).toBe(53);
    expect(isoWeeksInYear(2025)).toBe(52);
    expect(isoWeeksInYear(2020)).toBe(53);
    expect(isoWeeksInYear(2024)).toBe(52);
    expect(isoWeekOf(2026, 12, 28)).toEqual({ weekYear: 2026, week: 53 });
  });

  it('a week starts on Monday 00:00 local time', () => {
    const tz = 'Europe/Berlin';
    expect(seasonPeriod(utc(2026, 11, 22, 22, 59, 59), 'weekly', tz)).toBe('2026-W47'); // Sunday 23:59:59 CET
    expect(seasonPeriod(utc(2026, 11, 22, 23), 'weekly', tz)).toBe('2026-W48'); // Monday 00:00 CET
    expect(seasonPeriod(utc(2026, 11, 22, 23), 'weekly', 'UTC')).toBe('2026-W47'); // still Sunday in UTC
  });
});

describe('seasonPeriod near midnight outside UTC', () => {
  it('Europe/Berlin is already in the next day and month', () => {
    const ms = utc(2026, 11, 30, 23, 30); // 2026-12-01 00:30 CET
    expect(seasonPeriod(ms, 'daily', 'Europe/Berlin')).toBe('2026-12-01');
    expect(seasonPeriod(ms, 'monthly', 'Europe/Berlin')).toBe('2026-12');
    expect(seasonPeriod(ms, 'daily', 'UTC')).toBe('2026-11-30');
    expect(seasonPeriod(ms, 'monthly', 'UTC')).toBe('2026-11');
  });

  it('America/New_York is still in the previous day, month and year', () => {
    const ms = utc(2026, 1, 1, 3); // 2025-12-31 22:00 EST
    expect(seasonPeriod(ms, 'daily', 'America/New_York')).toBe('2025-12-31');
    expect(seasonPeriod(ms, 'monthly', 'America/New_York')).toBe('2025-12');
    expect(seasonPeriod(ms, 'weekly', 'America/New_York')).toBe('2026-W01'); // a Wednesday of week 1
  });

  it('the day boundary follows summer time', () => {
    expect(seasonPeriod(utc(2026, 7, 14, 21, 59, 59), 'daily', 'Europe/Berlin')).toBe('2026-07-14');
    expect(seasonPeriod(utc(2026, 7, 14, 22), 'daily', 'Europe/Berlin')).toBe('2026-07-15');
  });
});

describe('parseSeasonKey', () => {
  it.each([
    ['2026-11-21', 'daily', '2026-11-21'],
    ['2026-1-5', 'daily', '2026-01-05'],
    ['2024-02-29', 'daily', '2024-02-29'],
    ['2026-W47', 'weekly', '2026-W47'],
    ['2026-w7', 'weekly', '2026-W07'],
    ['2026-W53', 'weekly', '2026-W53'],
    ['2026-11', 'monthly', '2026-11'],
    ['2026-3', 'monthly', '2026-03'],
  ] as const)('%s (%s) is %s', (key, season, canonical) => {
    expect(parseSeasonKey(key, season)).toBe(canonical);
  });

  it.each([
    ['2025-02-29', 'daily'],
    ['2026-11-31', 'daily'],
    ['2026-11', 'daily'],
    ['2026-11-21T00:00:00', 'daily'],
    ['2025-W53', 'weekly'],
    ['2026-W00', 'weekly'],
    ['2026-W54', 'weekly'],
    ['2026-47', 'weekly'],
    ['2026-13', 'monthly'],
    ['2026-00', 'monthly'],
    ['2026-11-21', 'monthly'],
    ['0000-01', 'monthly'],
    ['', 'daily'],
    ['current', 'weekly'],
  ] as const)('%s is not a %s key', (key, season) => {
    expect(parseSeasonKey(key, season)).toBeNull();
  });

  it('accepts every key seasonPeriod produces', () => {
    for (let ms = utc(2026, 1, 1); ms < utc(2028, 1, 1); ms += 86_400_000) {
      for (const season of ['daily', 'weekly', 'monthly'] as const) {
        const key = seasonPeriod(ms, season, 'Europe/Berlin');
        expect(parseSeasonKey(key, season)).toBe(key);
      }
    }
  });
});
