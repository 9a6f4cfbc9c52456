/**
 * localDateTimeAt answers from cached offsets (per zone and 15-minute slot of UTC time) and a UTC
 * fast path; Intl is the reference it must agree with, to the second, at every instant. These
 * tests compare the two around changes of offset (whole-hour, 30-minute, 45-minute, historical
 * local mean times with seconds) and over instants spread across the whole supported range.
 */
import { DAY_MS, localDateTimeAt, localIsoToEpochMs, type LocalDateTime } from './local-time';

/** Like Date.UTC, without moving years 0..99 to the 1900s. */
function utc(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, 0);
  return date.getTime();
}

const references = new Map<string, Intl.DateTimeFormat>();
/** What Intl shows at `ms`: the reading localDateTimeAt must give. */
function intlReading(ms: number, timeZone: string): LocalDateTime {
  let f = references.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    references.set(timeZone, f);
  }
  const t: LocalDateTime = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const part of f.formatToParts(ms)) if (part.type in t) t[part.type as keyof LocalDateTime] = Number(part.value);
  return t;
}

/** Instants where the two disagree (at most a few, to keep a failure readable). */
function disagreements(
  instants: Iterable<number>,
  timeZone: string,
): { ms: number; iso: string; fast: LocalDateTime; intl: LocalDateTime }[] {
  const out = [];
  for (const ms of instants) {
    const fast = localDateTimeAt(ms, timeZone);
    const intl = intlReading(ms, timeZone);
    if (JSON.stringify(fast) !== JSON.stringify(intl)) out.push({ ms, iso: new Date(ms).toISOString(), fast, intl });
    if (out.length >= 5) break;
  }
  return out;
}

function* every(from: number, to: number, stepMs: number): Generator<number> {
  for (let ms = from; ms < to; ms += stepMs) yield ms;
}

/** A deterministic pseudo-random sequence (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('localDateTimeAt agrees with Intl', () => {
  // [zone, UTC instants of changes of offset]
  const changes: [string, number[]][] = [
    // 02:00 -> 03:00 and 03:00 -> 02:00 at 01:00 UTC.
    ['Europe/Berlin', [utc(2026, 3, 29, 1), utc(2026, 10, 25, 1)]],
    // Lord Howe moves by 30 minutes: 02:00 -> 01:30 on 2026-04-05 (+11 -> +10:30), 02:00 -> 02:30 on 2026-10-04.
    ['Australia/Lord_Howe', [utc(2026, 4, 4, 15), utc(2026, 10, 3, 15, 30)]],
    ['America/New_York', [utc(2026, 3, 8, 7), utc(2026, 11, 1, 6)]],
    // +12:45 / +13:45, changes at 02:45 and 03:45 local.
    ['Pacific/Chatham', [utc(2026, 4, 4, 14), utc(2026, 9, 26, 14)]],
    // A whole day skipped (2011-12-30).
    ['Pacific/Apia', [utc(2011, 12, 30, 10)]],
    // Local mean time +00:53:28 until 1893-04-01 00:00 local, then CET.
    ['Europe/Berlin', [utc(1893, 3, 31, 23, 6, 32)]],
    // Nepal went from +05:30 to +05:45 in 1986.
    ['Asia/Kathmandu', [utc(1985, 12, 31, 18, 30)]],
  ];

  it.each(changes)('%s: every second within an hour of each change, every minute within two days', (tz, instants) => {
    for (const change of instants) {
      expect(disagreements(every(change - 3_600_000, change + 3_600_000, 1000), tz)).toEqual([]);
      expect(disagreements(every(change - 2 * DAY_MS, change + 2 * DAY_MS, 60_000), tz)).toEqual([]);
    }
  });

  it.each(['Europe/Berlin', 'Australia/Lord_Howe', 'America/St_Johns', 'Asia/Kolkata'])(
    '%s: through 2025-2027, in steps that hit every minute and second',
    (tz) => {
      expect(disagreements(every(utc(2025, 1, 1), utc(2028, 1, 1), 47 * 60_000 + 13_001), tz)).toEqual([]);
    },
  );

  it.each([
    'UTC',
    'Etc/UTC',
    'Europe/Berlin',
    'Australia/Lord_Howe',
    'America/Los_Angeles',
    'Africa/Monrovia',
    'Europe/Amsterdam',
    'Asia/Kathmandu',
    'Pacific/Kiritimati',
  ])('%s: random instants over years 1..9999, and at the ends of the range', (tz) => {
    const next = random(tz.length * 7919);
    const low = utc(1, 1, 1);
    const high = utc(9999, 12, 31, 23, 59, 59);
    const instants = [low, low + 1, low + 15 * 60_000, high, high - 15 * 60_000, high + 999, -1, 0, 1, -0.5, 0.5];
    for (let i = 0; i < 5000; i++) instants.push(Math.floor(low + next() * (high - low)));
    // Historical changes: 1850-1990 densely.
    for (let i = 0; i < 5000; i++)
      instants.push(
        Math.floor(utc(1850, 1, 1) + next() * (utc(1990, 1, 1) - utc(1850, 1, 1))) + (i % 3 === 0 ? 0.25 : 0),
      );
    expect(disagreements(instants, tz)).toEqual([]);
  });

  it('keeps the range check and the errors of Intl', () => {
    expect(() => localDateTimeAt(utc(1, 1, 1) - 1, 'UTC')).toThrow(RangeError);
    expect(() => localDateTimeAt(Number.NaN, 'Europe/Berlin')).toThrow(RangeError);
    expect(() => localDateTimeAt(0, 'Mars/Base')).toThrow(RangeError);
    // Nothing was cached for the unknown zone: it fails again.
    expect(() => localDateTimeAt(0, 'Mars/Base')).toThrow(RangeError);
  });

  it('converts local date-times around a 30-minute change (Lord Howe) the same way', () => {
    const tz = 'Australia/Lord_Howe';
    // Autumn 2026-04-05: 02:00 (+11) -> 01:30 (+10:30); 01:45 happens twice, the earlier is taken.
    expect(localIsoToEpochMs('2026-04-05T01:45:00', tz)).toBe(utc(2026, 4, 4, 14, 45));
    expect(localIsoToEpochMs('2026-04-05T02:00:00', tz)).toBe(utc(2026, 4, 4, 15, 30));
    // Spring 2026-10-04: 02:00 (+10:30) -> 02:30 (+11); 02:15 is skipped and read with +10:30.
    expect(localIsoToEpochMs('2026-10-04T02:15:00', tz)).toBe(utc(2026, 10, 3, 15, 45));
    expect(localIsoToEpochMs('2026-10-04T02:30:00', tz)).toBe(utc(2026, 10, 3, 15, 30));
  });
});
