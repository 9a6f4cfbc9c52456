/**
 * Local date-times (`YYYY-MM-DDThh:mm:ss`, no zone) and their conversion to and from instants in
 * an IANA time zone, using only Intl. Catalog and API dates are local to the catalog's
 * `settings.timezone`.
 */

/** The fields of a local date-time; every field is validated (month 1..12, day within the month...). */
export interface LocalDateTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export const DAY_MS = 86_400_000;

const LOCAL_ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;

export function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Whether year/month/day name a real calendar day of years 0001..9999. */
export function isCalendarDate(year: number, month: number, day: number): boolean {
  return year >= 1 && year <= 9999 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** Parses exactly `YYYY-MM-DDThh:mm:ss` (a real calendar day, hours 00..23); anything else is null. */
export function parseLocalIso(iso: string): LocalDateTime | null {
  const m = LOCAL_ISO.exec(iso);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (!isCalendarDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return null;
  return { year, month, day, hour, minute, second };
}

export function isLocalIso(value: string): boolean {
  return parseLocalIso(value) !== null;
}

/**
 * Why a value is not a local date-time, for a catalog problem line: the format, or, when the
 * format is right, the field that names no real date or time (`not a real date: month 13`).
 */
export function localIsoProblem(value: unknown): string {
  const got = `got ${JSON.stringify(value)}`;
  const m = typeof value === 'string' ? LOCAL_ISO.exec(value) : null;
  if (!m) return `must be a local date-time YYYY-MM-DDThh:mm:ss, ${got}`;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (year < 1) return `not a real date: year 0000, ${got}`;
  if (month < 1 || month > 12) return `not a real date: month ${month}, ${got}`;
  if (day < 1 || day > daysInMonth(year, month))
    return `not a real date: day ${day} of month ${month} (it has ${daysInMonth(year, month)} days in ${year}), ${got}`;
  if (hour > 23) return `not a real time: hour ${hour}, ${got}`;
  if (minute > 59) return `not a real time: minute ${minute}, ${got}`;
  if (second > 59) return `not a real time: second ${second}, ${got}`;
  return `must be a local date-time YYYY-MM-DDThh:mm:ss, ${got}`;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

export function formatLocalIso(t: LocalDateTime): string {
  return `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)}T${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}`;
}

/** The instant at which a UTC clock shows this wall time (the wall time read as if it were UTC). */
export function wallTimeAsUtcMs(t: LocalDateTime): number {
  const d = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0..99 to 1900..1999.
  d.setUTCFullYear(t.year, t.month - 1, t.day);
  d.setUTCHours(t.hour, t.minute, t.second, 0);
  return d.getTime();
}

/** Years 0001..9999 of a UTC clock: [FIRST_WALL_MS, END_WALL_MS). */
const FIRST_WALL_MS = wallTimeAsUtcMs({ year: 1, month: 1, day: 1, hour: 0, minute: 0, second: 0 });
const END_WALL_MS = wallTimeAsUtcMs({ year: 10000, month: 1, day: 1, hour: 0, minute: 0, second: 0 });

/**
 * What is kept of a zone: its formatter (building them is the costly part of Intl) and its
 * offsets (below). Zone names are case-insensitive, and some are links to others, so every
 * spelling of a zone shares the one entry of its canonical name: the cache holds at most one
 * entry per zone Intl knows, however many spellings clients send.
 */
interface Zone {
  name: string;
  formatter: Intl.DateTimeFormat;
  /** Offset in ms of a slot of constant offset; NaN for a slot holding a change (see cachedOffset). */
  slots: Map<number, number>;
}
/** By canonical name. */
const zones = new Map<string, Zone>();
/** By lowercased spelling: only spellings Intl accepts, so as bounded as the zones are. */
const spellings = new Map<string, Zone>();

/** The zone of any spelling of its name. Throws RangeError for an unknown zone, caching nothing. */
function zoneOf(timeZone: string): Zone {
  const known = zones.get(timeZone) ?? spellings.get(timeZone.toLowerCase());
  if (known) return known;
  const formatter = new Intl.DateTimeFormat('en-US', {
    timeZone,
    // h23: never "24:00:00" at midnight, which some ICU versions give with hour12: false.
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  // A formatter made from any spelling formats as the canonical zone's.
  const name = formatter.resolvedOptions().timeZone;
  let zone = zones.get(name);
  if (!zone) {
    zone = { name, formatter, slots: new Map() };
    zones.set(name, zone);
  }
  spellings.set(timeZone.toLowerCase(), zone);
  return zone;
}

/**
 * The canonical name of an IANA zone Intl knows, in any spelling (`europe/berlin` is
 * `Europe/Berlin`, the link `US/Eastern` is `America/New_York`), or null for anything else.
 * Offsets such as "+01:00" are refused even where the engine accepts them: they are not zones.
 */
export function canonicalTimeZone(timeZone: string): string | null {
  if (!/^[A-Za-z]/.test(timeZone)) return null;
  try {
    return zoneOf(timeZone).name;
  } catch {
    return null;
  }
}

/** Whether `timeZone` is an IANA zone name Intl knows, in any spelling (see canonicalTimeZone). */
export const isValidTimeZone = (timeZone: string): boolean => canonicalTimeZone(timeZone) !== null;

/** The whole second holding `ms` as Intl reads it; throws RangeError outside UTC years 0001..9999. */
function secondOf(ms: number): number {
  // As Intl reads an instant: milliseconds truncated (TimeClip), then the second rounded down.
  const clipped = Math.trunc(ms);
  if (!(clipped >= FIRST_WALL_MS && clipped < END_WALL_MS)) throw new RangeError(`instant out of range: ${ms}`);
  return Math.floor(clipped / 1000) * 1000;
}

/** The wall-clock reading in `timeZone` at the instant `ms` (to the second, rounded down). */
export function localDateTimeAt(ms: number, timeZone: string): LocalDateTime {
  const second = secondOf(ms);
  if (timeZone === 'UTC') return utcFields(second);
  const offset = cachedOffset(second, timeZone);
  if (offset !== undefined) {
    const t = utcFields(second + offset);
    // Intl shows the years before 1 without their era: leave those (and after 9999) to it.
    if (t.year >= 1 && t.year <= 9999) return t;
  }
  return intlDateTimeAt(second, timeZone);
}

/**
 * The wall-clock reading in `timeZone` at the instant `ms` as the instant a UTC clock shows it:
 * `wallTimeAsUtcMs(localDateTimeAt(ms, timeZone))` without building the fields, for callers that
 * only count days (streak and cap periods, on every action).
 */
export function localWallMs(ms: number, timeZone: string): number {
  const second = secondOf(ms);
  if (timeZone === 'UTC') return second;
  const offset = cachedOffset(second, timeZone);
  // Within years 0001..9999 the fields localDateTimeAt gives are the UTC reading of this instant.
  if (offset !== undefined && second + offset >= FIRST_WALL_MS && second + offset < END_WALL_MS) return second + offset;
  return wallTimeAsUtcMs(localDateTimeAt(second, timeZone));
}

/** The fields a UTC clock shows at `ms` (a whole second). */
function utcFields(ms: number): LocalDateTime {
  const d = new Date(ms);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
  };
}

/** The wall-clock reading as Intl gives it: the reference the cached offsets are taken from. */
function intlDateTimeAt(ms: number, timeZone: string): LocalDateTime {
  const t: LocalDateTime = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const part of zoneOf(timeZone).formatter.formatToParts(ms)) {
    if (part.type in t) t[part.type as keyof LocalDateTime] = Number(part.value);
  }
  return t;
}

/*
 * Intl is slow (a formatToParts per call), and projections ask for the local time of every event.
 * Offsets are cached per zone and per SLOT_MS slot of UTC time: a slot whose first and last
 * seconds have the same offset has that offset throughout, so any instant in it is the UTC
 * reading of the instant plus the offset. A slot holding a change of offset (whatever minute or
 * second the change falls on: :30 and :45 zones, historical local mean times with seconds) is
 * marked mixed, and its instants go to Intl. The one assumption: a zone never changes its offset
 * and back again within one slot, which no time zone has ever done (changes are months apart).
 */
const SLOT_MS = 15 * 60_000;
/** Slots remembered per zone before the cache starts over (about 10 years of 15-minute slots). */
const MAX_SLOTS_PER_ZONE = 350_000;

/** The offset in force throughout the slot of `ms` (a whole second), or undefined when the slot holds a change. */
function cachedOffset(ms: number, timeZone: string): number | undefined {
  const slot = Math.floor(ms / SLOT_MS);
  // Throws RangeError for an unknown zone, before anything is cached for it.
  const { slots } = zoneOf(timeZone);
  let offset = slots.get(slot);
  if (offset === undefined) {
    const start = slot * SLOT_MS;
    const first = intlOffsetAt(start, timeZone);
    offset = first === intlOffsetAt(start + SLOT_MS - 1000, timeZone) ? first : Number.NaN;
    if (slots.size >= MAX_SLOTS_PER_ZONE) slots.clear();
    slots.set(slot, offset);
  }
  return Number.isNaN(offset) ? undefined : offset;
}

/** Offset of the zone from UTC at the instant `ms` (a whole second), in ms, from Intl. */
function intlOffsetAt(ms: number, timeZone: string): number {
  return wallTimeAsUtcMs(intlDateTimeAt(ms, timeZone)) - ms;
}

/** `YYYY-MM-DDThh:mm:ss` of the instant `ms` in `timeZone`. */
export function epochMsToLocalIso(ms: number, timeZone: string): string {
  return formatLocalIso(localDateTimeAt(ms, timeZone));
}

/** Offset of the zone from UTC at the instant `ms`, in ms (positive east of Greenwich). */
function offsetAt(ms: number, timeZone: string): number {
  const second = Math.floor(ms / 1000) * 1000;
  return wallTimeAsUtcMs(localDateTimeAt(second, timeZone)) - second;
}

/**
 * The instant at which clocks in `timeZone` show `iso` (`YYYY-MM-DDThh:mm:ss`). Throws RangeError
 * for a malformed date or an unknown zone.
 * - A wall time that occurs twice (clocks set back) gives the earlier instant.
 * - A wall time skipped by a forward change gives the later instant: the wall time read with the
 *   offset in force before the change (02:30 on a 02:00→03:00 night is 03:30 after it).
 */
export function localIsoToEpochMs(iso: string, timeZone: string): number {
  const wall = parseLocalIso(iso);
  if (!wall) throw new RangeError(`not a local date-time YYYY-MM-DDThh:mm:ss: "${iso}"`);
  const asUtc = wallTimeAsUtcMs(wall);
  // Offsets in force a day either side of the wall time cover any one transition near it.
  const offsets = new Set([
    offsetAt(asUtc - DAY_MS, timeZone),
    offsetAt(asUtc, timeZone),
    offsetAt(asUtc + DAY_MS, timeZone),
  ]);
  const candidates = [...offsets].map((offset) => asUtc - offset);
  const exact = candidates.filter((t) => wallTimeAsUtcMs(localDateTimeAt(t, timeZone)) === asUtc);
  return exact.length > 0 ? Math.min(...exact) : Math.max(...candidates);
}
