import {
  periodAfter,
  periodEnd,
  periodExists,
  periodLabel,
  periodOf,
  periodsBetween,
  periodStart,
  type CalendarPeriod,
} from './calendar';
import { DAY_MS, localDateTimeAt } from './local-time';
import { seasonKeyOfDate, seasonPeriod } from './season';

const utc = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) => Date.UTC(y, mo - 1, d, h, mi, s);
const HOUR = 3_600_000;

/** Label, start and end (Unix ms) of the period holding `ms`. */
function periodAt(ms: number, period: CalendarPeriod, zone: string) {
  const p = periodOf(ms, period, zone);
  return { label: periodLabel(p, period), start: periodStart(p, period, zone), end: periodEnd(p, period, zone) };
}

describe('days in Europe/Berlin', () => {
  it('the day clocks go forward lasts 23 hours', () => {
    const day = periodAt(utc(2026, 3, 29, 12), 'Day', 'Europe/Berlin');
    expect(day).toEqual({ label: '2026-03-29', start: utc(2026, 3, 28, 23), end: utc(2026, 3, 29, 22) });
    expect(day.end - day.start).toBe(23 * HOUR);
  });

  it('the day clocks go back lasts 25 hours', () => {
    const day = periodAt(utc(2026, 10, 25, 12), 'Day', 'Europe/Berlin');
    expect(day).toEqual({ label: '2026-10-25', start: utc(2026, 10, 24, 22), end: utc(2026, 10, 25, 23) });
    expect(day.end - day.start).toBe(25 * HOUR);
  });

  it('consecutive days are consecutive periods across a change of offset', () => {
    const before = periodOf(utc(2026, 3, 28, 12), 'Day', 'Europe/Berlin');
    expect(periodOf(utc(2026, 3, 29, 21, 59, 59), 'Day', 'Europe/Berlin')).toBe(before + 1);
    expect(periodOf(utc(2026, 3, 29, 22), 'Day', 'Europe/Berlin')).toBe(before + 2);
  });
});

describe('zones far from UTC', () => {
  it('Pacific/Kiritimati (UTC+14) is a day ahead of UTC from 10:00 UTC on', () => {
    expect(periodAt(utc(2026, 6, 1, 9, 59, 59), 'Day', 'Pacific/Kiritimati').label).toBe('2026-06-01');
    expect(periodAt(utc(2026, 6, 1, 10), 'Day', 'Pacific/Kiritimati')).toEqual({
      label: '2026-06-02',
      start: utc(2026, 6, 1, 10),
      end: utc(2026, 6, 2, 10),
    });
  });

  it('Pacific/Pago_Pago (UTC-11) is a day behind UTC until 11:00 UTC', () => {
    expect(periodAt(utc(2026, 6, 1, 10, 59, 59), 'Day', 'Pacific/Pago_Pago').label).toBe('2026-05-31');
    expect(periodAt(utc(2026, 6, 1, 11), 'Day', 'Pacific/Pago_Pago')).toEqual({
      label: '2026-06-01',
      start: utc(2026, 6, 1, 11),
      end: utc(2026, 6, 2, 11),
    });
  });

  it('one instant is in three different days in three zones', () => {
    const ms = utc(2026, 6, 1, 10, 30);
    expect(['Pacific/Pago_Pago', 'UTC', 'Pacific/Kiritimati'].map((z) => periodAt(ms, 'Day', z).label)).toEqual([
      '2026-05-31',
      '2026-06-01',
      '2026-06-02',
    ]);
  });
});

describe('days a zone skipped when it crossed the date line', () => {
  const dayOf = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS;
  it.each([
    ['Pacific/Kiritimati', '1994-12-30', '1994-12-31', '1995-01-01'],
    ['Pacific/Apia', '2011-12-29', '2011-12-30', '2011-12-31'],
  ])('in %s, %s is followed by %s, which never existed, then %s', (zone, before, skipped, after) => {
    expect([before, skipped, after].map((d) => periodExists(dayOf(d), 'Day', zone))).toEqual([true, false, true]);
    expect(periodEnd(dayOf(before), 'Day', zone)).toBe(periodStart(dayOf(after), 'Day', zone));
    // No day is missed between the two, one between the days either side, and the next day is the one after.
    expect(periodsBetween(dayOf(before), dayOf(after), 'Day', zone)).toBe(0);
    expect(periodsBetween(dayOf(before) - 1, dayOf(after) + 1, 'Day', zone)).toBe(2);
    expect(periodAfter(dayOf(before), 1, 'Day', zone)).toBe(dayOf(after));
    expect(periodAfter(dayOf(before), 2, 'Day', zone)).toBe(dayOf(after) + 1);
    // The week holding the skipped day has six days and is still a week.
    const week = periodOf(periodStart(dayOf(after), 'Day', zone), 'Week', zone);
    expect([periodExists(week, 'Week', zone), periodsBetween(week - 1, week + 1, 'Week', zone)]).toEqual([true, 1]);
  });

  it('counts at most one past the limit it is given', () => {
    expect(periodsBetween(0, 1000, 'Day', 'UTC', 2)).toBe(3);
    expect(periodsBetween(0, 1000, 'Day', 'UTC')).toBe(999);
  });
});

describe('weeks and months', () => {
  it('an ISO week runs from Monday 00:00 to the next Monday 00:00 local time', () => {
    const week = periodAt(utc(2026, 11, 25, 12), 'Week', 'Europe/Berlin');
    expect(week).toEqual({ label: '2026-W48', start: utc(2026, 11, 22, 23), end: utc(2026, 11, 29, 23) });
    expect(periodOf(utc(2026, 11, 22, 22, 59, 59), 'Week', 'Europe/Berlin')).toBe(
      periodOf(utc(2026, 11, 25), 'Week', 'Europe/Berlin') - 1,
    );
  });

  it('the week holding clocks going back lasts 7 days and 1 hour', () => {
    const week = periodAt(utc(2026, 10, 25, 12), 'Week', 'Europe/Berlin');
    expect(week.label).toBe('2026-W43');
    expect(week.end - week.start).toBe(7 * 24 * HOUR + HOUR);
  });

  it('weeks across a year end are consecutive, with ISO week years', () => {
    const last = periodOf(utc(2026, 12, 31), 'Week', 'UTC');
    expect(periodLabel(last, 'Week')).toBe('2026-W53');
    expect(periodLabel(last + 1, 'Week')).toBe('2027-W01');
  });

  it('a month is a calendar month in the zone', () => {
    expect(periodAt(utc(2026, 11, 30, 23, 30), 'Month', 'Europe/Berlin')).toEqual({
      label: '2026-12',
      start: utc(2026, 11, 30, 23),
      end: utc(2026, 12, 31, 23),
    });
    const december = periodOf(utc(2026, 12, 15), 'Month', 'UTC');
    expect(periodLabel(december + 1, 'Month')).toBe('2027-01');
    expect(periodLabel(december - 12, 'Month')).toBe('2025-12');
  });
});

describe('names', () => {
  it('are the keys of leaderboard seasons for the same instant and zone', () => {
    const seasons = { Day: 'daily', Week: 'weekly', Month: 'monthly' } as const;
    for (const zone of ['UTC', 'Europe/Berlin', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Asia/Kathmandu']) {
      for (let ms = utc(2026, 1, 1); ms < utc(2027, 1, 10); ms += 37 * HOUR + 17 * 60_000) {
        for (const period of ['Day', 'Week', 'Month'] as const)
          expect(periodLabel(periodOf(ms, period, zone), period)).toBe(seasonPeriod(ms, seasons[period], zone));
      }
    }
  });

  it('every instant lies within its period', () => {
    for (const zone of ['Europe/Berlin', 'America/Sao_Paulo', 'Australia/Lord_Howe']) {
      for (let ms = utc(2026, 1, 1); ms < utc(2027, 1, 1); ms += 11 * HOUR + 7 * 60_000) {
        for (const period of ['Day', 'Week', 'Month'] as const) {
          const p = periodOf(ms, period, zone);
          expect([periodStart(p, period, zone) <= ms, ms < periodEnd(p, period, zone)]).toEqual([true, true]);
        }
      }
    }
  });
});

describe('periodOf and seasonPeriod count days from the wall time', () => {
  // The reading localDateTimeAt gives, turned into the Day ordinal and the season keys.
  const zones = [
    'UTC',
    'Europe/Berlin',
    'Pacific/Kiritimati',
    'Pacific/Pago_Pago',
    'Asia/Kathmandu',
    'America/St_Johns',
  ];
  const instants = [
    Date.UTC(2026, 2, 29, 0, 59, 59), // Berlin's 23-hour day, before and after the change
    Date.UTC(2026, 2, 29, 1, 0, 0),
    Date.UTC(2026, 9, 25, 0, 59, 59), // Berlin's 25-hour day
    Date.UTC(2026, 9, 25, 1, 0, 0),
    Date.UTC(2026, 11, 31, 10, 0, 0), // the turn of a year in UTC+14 and UTC-11
    Date.UTC(2027, 0, 1, 10, 59, 59, 999),
    Date.UTC(1969, 11, 31, 23, 59, 59, 500), // before 1970, with milliseconds
    Date.UTC(2026, 10, 26, 18, 14, 59),
  ];
  it.each(zones)('in %s', (zone) => {
    for (const ms of instants) {
      const t = localDateTimeAt(ms, zone);
      const day = Date.UTC(t.year, t.month - 1, t.day) / 86_400_000;
      expect(periodOf(ms, 'Day', zone)).toBe(day);
      expect(periodOf(ms, 'Week', zone)).toBe(Math.floor((day + 3) / 7));
      expect(periodOf(ms, 'Month', zone)).toBe(t.year * 12 + t.month - 1);
      for (const season of ['daily', 'weekly', 'monthly'] as const)
        expect(seasonPeriod(ms, season, zone)).toBe(seasonKeyOfDate(t.year, t.month, t.day, season));
    }
  });

  it('refuses instants outside years 0001..9999 as before', () => {
    for (const ms of [Number.NaN, Number.POSITIVE_INFINITY, Date.UTC(10000, 0, 1), -62135596800001])
      expect(() => periodOf(ms, 'Day', 'UTC')).toThrow(RangeError);
    expect(periodOf(-62135596800000, 'Day', 'UTC')).toBe(-719162);
  });
});
