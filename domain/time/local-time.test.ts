import {
  canonicalTimeZone,
  epochMsToLocalIso,
  isValidTimeZone,
  localDateTimeAt,
  localIsoToEpochMs,
  parseLocalIso,
} from './local-time';

const utc = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) => Date.UTC(y, mo - 1, d, h, mi, s);

describe('parseLocalIso', () => {
  it('accepts exactly YYYY-MM-DDThh:mm:ss on a real calendar day', () => {
    expect(parseLocalIso('2026-01-01T00:00:00')).toEqual({
      year: 2026,
      month: 1,
      day: 1,
      hour: 0,
      minute: 0,
      second: 0,
    });
    expect(parseLocalIso('2024-02-29T23:59:59')).not.toBeNull();
  });

  it.each([
    '2026-01-01',
    '2026-01-01 00:00:00',
    '2026-01-01T00:00:00Z',
    '2026-01-01T00:00:00.000',
    '2026-01-01T00:00:00+01:00',
    '2026-1-01T00:00:00',
    '2025-02-29T00:00:00',
    '2026-04-31T00:00:00',
    '2026-13-01T00:00:00',
    '2026-01-01T24:00:00',
    '2026-01-01T00:60:00',
    '0000-01-01T00:00:00',
  ])('rejects %s', (iso) => {
    expect(parseLocalIso(iso)).toBeNull();
  });
});

describe('isValidTimeZone', () => {
  it.each(['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Etc/GMT+5'])('accepts %s', (tz) => {
    expect(isValidTimeZone(tz)).toBe(true);
  });
  it.each(['', 'Mars/Base', '+01:00', '-05:00', 'Z', 'Europe/'])('rejects %s', (tz) => {
    expect(isValidTimeZone(tz)).toBe(false);
  });
});

describe('canonicalTimeZone', () => {
  it('gives the canonical name of any spelling of a zone, and null for what is not one', () => {
    expect(['europe/berlin', 'EUROPE/BERLIN', 'Europe/Berlin', 'eUrOpE/bErLiN'].map(canonicalTimeZone)).toEqual(
      Array(4).fill('Europe/Berlin'),
    );
    expect(['utc', 'Etc/UTC'].map(canonicalTimeZone)).toEqual(['UTC', 'UTC']);
    expect(['Mars/Base', '+01:00', ''].map(canonicalTimeZone)).toEqual([null, null, null]);
  });

  it('keeps one zone for every spelling of it: 20,000 calls in 8,192 case variants build no formatter after the first', () => {
    const built = jest.spyOn(Intl, 'DateTimeFormat');
    try {
      const name = 'Pacific/Chatham';
      const names = new Set<string | null>();
      let hours = 0;
      for (let i = 0; i < 20_000; i++) {
        // A different mix of upper and lower case each time (i's bits pick the case of each letter).
        const spelling = [...name].map((c, j) => ((i >> (j % 14)) & 1 ? c.toUpperCase() : c.toLowerCase())).join('');
        names.add(canonicalTimeZone(spelling));
        hours += localDateTimeAt(Date.UTC(2026, 0, 1) + i * 60_000, spelling).hour;
      }
      expect([...names]).toEqual([name]);
      expect(hours).toBeGreaterThan(0);
      expect(built.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      built.mockRestore();
    }
  });
});

describe('conversions in UTC', () => {
  it('reads and writes local date-times as UTC', () => {
    expect(localIsoToEpochMs('2026-01-01T00:00:00', 'UTC')).toBe(utc(2026, 1, 1));
    expect(localIsoToEpochMs('2026-11-21T13:45:07', 'UTC')).toBe(utc(2026, 11, 21, 13, 45, 7));
    expect(epochMsToLocalIso(utc(2026, 11, 21, 13, 45, 7), 'UTC')).toBe('2026-11-21T13:45:07');
  });

  it('drops milliseconds when writing', () => {
    expect(epochMsToLocalIso(utc(2026, 1, 1) + 999, 'UTC')).toBe('2026-01-01T00:00:00');
    expect(epochMsToLocalIso(-1, 'UTC')).toBe('1969-12-31T23:59:59');
  });

  it('handles years below 100 (which Date.UTC would move to the 1900s)', () => {
    const ms = localIsoToEpochMs('0050-06-01T12:00:00', 'UTC');
    expect(new Date(ms).getUTCFullYear()).toBe(50);
    expect(epochMsToLocalIso(ms, 'UTC')).toBe('0050-06-01T12:00:00');
  });

  it('throws RangeError on a malformed date or an unknown zone', () => {
    expect(() => localIsoToEpochMs('2026-01-01', 'UTC')).toThrow(RangeError);
    expect(() => localIsoToEpochMs('2026-01-01T00:00:00', 'Mars/Base')).toThrow(RangeError);
    expect(() => epochMsToLocalIso(0, 'Mars/Base')).toThrow(RangeError);
    expect(() => epochMsToLocalIso(Number.NaN, 'UTC')).toThrow(RangeError);
  });
});

describe('conversions in Europe/Berlin', () => {
  const tz = 'Europe/Berlin';

  it('uses +01:00 in winter and +02:00 in summer', () => {
    expect(localIsoToEpochMs('2026-01-15T12:00:00', tz)).toBe(utc(2026, 1, 15, 11));
    expect(localIsoToEpochMs('2026-07-15T12:00:00', tz)).toBe(utc(2026, 7, 15, 10));
    expect(epochMsToLocalIso(utc(2026, 1, 15, 11), tz)).toBe('2026-01-15T12:00:00');
    expect(epochMsToLocalIso(utc(2026, 7, 15, 10), tz)).toBe('2026-07-15T12:00:00');
  });

  it('around the spring change (2026-03-29, 02:00 -> 03:00)', () => {
    expect(epochMsToLocalIso(utc(2026, 3, 29, 0, 59, 59), tz)).toBe('2026-03-29T01:59:59');
    expect(epochMsToLocalIso(utc(2026, 3, 29, 1), tz)).toBe('2026-03-29T03:00:00');
    expect(localIsoToEpochMs('2026-03-29T01:59:59', tz)).toBe(utc(2026, 3, 29, 0, 59, 59));
    expect(localIsoToEpochMs('2026-03-29T03:00:00', tz)).toBe(utc(2026, 3, 29, 1));
  });

  it('a skipped wall time gives the later instant (read with the offset before the change)', () => {
    expect(localIsoToEpochMs('2026-03-29T02:00:00', tz)).toBe(utc(2026, 3, 29, 1)); // = 03:00 CEST
    expect(localIsoToEpochMs('2026-03-29T02:30:00', tz)).toBe(utc(2026, 3, 29, 1, 30)); // = 03:30 CEST
  });

  it('a repeated wall time gives the earlier instant (autumn change 2026-10-25, 03:00 -> 02:00)', () => {
    expect(epochMsToLocalIso(utc(2026, 10, 25, 0, 30), tz)).toBe('2026-10-25T02:30:00');
    expect(epochMsToLocalIso(utc(2026, 10, 25, 1, 30), tz)).toBe('2026-10-25T02:30:00');
    expect(localIsoToEpochMs('2026-10-25T02:30:00', tz)).toBe(utc(2026, 10, 25, 0, 30));
    expect(localIsoToEpochMs('2026-10-25T03:00:00', tz)).toBe(utc(2026, 10, 25, 2));
    expect(localIsoToEpochMs('2026-10-25T01:59:59', tz)).toBe(utc(2026, 10, 24, 23, 59, 59));
  });
});

describe('round trips', () => {
  /** ms -> local -> ms gives the same instant, or the earlier one of a repeated wall time. */
  const expectRoundTrip = (ms: number, tz: string) => {
    const iso = epochMsToLocalIso(ms, tz);
    const back = localIsoToEpochMs(iso, tz);
    expect(epochMsToLocalIso(back, tz)).toBe(iso);
    expect(back).toBeLessThanOrEqual(ms);
    expect(ms - back).toBeLessThanOrEqual(60 * 60_000); // at most the repeated hour
  };

  // [zone, days of 2026 with a change] (Lord Howe moves by 30 minutes).
  const zones: [string, [number, number][]][] = [
    ['UTC', []],
    [
      'Europe/Berlin',
      [
        [3, 29],
        [10, 25],
      ],
    ],
    [
      'America/New_York',
      [
        [3, 8],
        [11, 1],
      ],
    ],
    ['Asia/Kolkata', []],
    [
      'Australia/Lord_Howe',
      [
        [4, 5],
        [10, 4],
      ],
    ],
  ];

  it.each(zones)('%s: through 2026, and every 5 minutes around its changes', (tz, changes) => {
    for (let ms = utc(2026, 1, 1); ms < utc(2027, 1, 1); ms += 3 * 3_600_000 + 17 * 60_000 + 11_000)
      expectRoundTrip(ms, tz);
    for (const [month, day] of changes) {
      for (let ms = utc(2026, month, day) - 86_400_000; ms < utc(2026, month, day) + 86_400_000; ms += 5 * 60_000)
        expectRoundTrip(ms, tz);
    }
  });

  it('a whole skipped day (Pacific/Apia, 2011-12-30) maps forward past the gap', () => {
    // 2011-12-29 24:00 at -10:00 was followed by 2011-12-31 00:00 at +14:00.
    expect(epochMsToLocalIso(utc(2011, 12, 30, 9, 59, 59), 'Pacific/Apia')).toBe('2011-12-29T23:59:59');
    expect(epochMsToLocalIso(utc(2011, 12, 30, 10), 'Pacific/Apia')).toBe('2011-12-31T00:00:00');
    expect(localIsoToEpochMs('2011-12-30T12:00:00', 'Pacific/Apia')).toBe(utc(2011, 12, 30, 22));
  });
});
