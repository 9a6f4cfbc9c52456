import { upperBoundInCodePoints, upperBoundInCodeUnits, withPrefixRanges } from './prefix';

/** Strings of a few characters from every part of the code space that matters to an order. */
const CHARACTERS = [
  'a',
  'b',
  '\u{7f}',
  '\u{d7ff}',
  '\u{e000}',
  '\u{ff01}',
  '\u{ffff}',
  '\u{10000}',
  '\u{1f600}',
  '\u{10ffff}',
];
function* strings(length: number, start = ''): Generator<string> {
  yield start;
  if (length > 0) for (const c of CHARACTERS) yield* strings(length - 1, start + c);
}

/** JS's order: UTF-16 code units (the embedded store's, mingo's). */
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
/** MongoDB's order: UTF-8 bytes, that is code points. */
const byCodePoints = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

describe.each([
  ['code units (the embedded store)', upperBoundInCodeUnits, byCodeUnits],
  ['code points (MongoDB)', upperBoundInCodePoints, byCodePoints],
])('the prefix bound in %s', (_order, upperBound, compare) => {
  it('makes [text, bound) exactly the strings that start with the text', () => {
    const all = [...strings(3)];
    for (const text of strings(2)) {
      const bound = upperBound(text);
      const inRange = all.filter((s) => compare(s, text) >= 0 && (bound === null || compare(s, bound) < 0));
      expect({ text, inRange }).toEqual({ text, inRange: all.filter((s) => s.startsWith(text)) });
    }
  });
});

describe('upperBoundInCodePoints', () => {
  it('is text MongoDB can hold: never a lone surrogate, U+D7FF followed by U+E000', () => {
    expect(upperBoundInCodePoints('abc')).toBe('abd');
    expect(upperBoundInCodePoints('a\u{d7ff}')).toBe('a\u{e000}');
    expect(upperBoundInCodePoints('a\u{ffff}')).toBe('a\u{10000}');
    expect(upperBoundInCodePoints('a\u{1f600}')).toBe('a\u{1f601}');
    expect(upperBoundInCodePoints('a\u{10ffff}')).toBe('b');
    expect(upperBoundInCodePoints('\u{10ffff}')).toBeNull();
    for (const text of strings(2)) {
      const bound = upperBoundInCodePoints(text);
      if (bound !== null) expect(Buffer.from(bound, 'utf8').toString('utf8')).toBe(bound);
    }
  });
});

describe('withPrefixRanges', () => {
  it('turns each $startsWith into the range of its text, keeping the other conditions', () => {
    expect(withPrefixRanges({ name: { $startsWith: 'ab' }, kind: 'x' }, upperBoundInCodePoints)).toEqual({
      name: { $gte: 'ab', $lt: 'ac' },
      kind: 'x',
    });
    expect(withPrefixRanges({ name: { $startsWith: '\u{10ffff}' } }, upperBoundInCodePoints)).toEqual({
      name: { $gte: '\u{10ffff}' },
    });
    const plain = { name: { $gte: 'a' } };
    expect(withPrefixRanges(plain, upperBoundInCodeUnits)).toBe(plain);
  });
});
