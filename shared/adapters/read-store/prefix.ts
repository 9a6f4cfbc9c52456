/**
 * The port's one operator of its own, `{field: {$startsWith: text}}`: the documents whose field
 * is a string starting with the text. Each store answers it as the range [text, bound) of its
 * own string order, so an index on the field answers it; the bound is the least string above
 * every string that starts with the text, which depends on the order. The embedded store (JS,
 * mingo) compares UTF-16 code units; MongoDB compares UTF-8 bytes, that is code points. A fixed
 * bound such as text + U+10FFFF misses, in UTF-16 order, every name whose next character lies in
 * U+E000-U+FFFF (a surrogate pair sorts below them).
 */
import type { Filter } from './port';

export const STARTS_WITH = '$startsWith';

/** The least string above all those starting with `text`, comparing UTF-16 code units; null: none. */
export function upperBoundInCodeUnits(text: string): string | null {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0xffff) end--;
  if (end === 0) return null;
  // A lone surrogate here is only a bound: compared as a code unit, never stored.
  return text.slice(0, end - 1) + String.fromCharCode(text.charCodeAt(end - 1) + 1);
}

/** The least string above all those starting with `text`, comparing code points (UTF-8 bytes); null: none. */
export function upperBoundInCodePoints(text: string): string | null {
  const points = [...text].map((c) => c.codePointAt(0)!);
  while (points.length > 0 && points[points.length - 1] === 0x10ffff) points.pop();
  if (points.length === 0) return null;
  const last = points.pop()!;
  // The code point after U+D7FF is U+E000: surrogates are no code points, and UTF-8 cannot hold them.
  return String.fromCodePoint(...points, last === 0xd7ff ? 0xe000 : last + 1);
}

/** The filter with each top-level `$startsWith` as the range of its text, bounded by `upperBound`. */
export function withPrefixRanges(filter: Filter, upperBound: (text: string) => string | null): Filter {
  let out: Filter | undefined;
  for (const [field, condition] of Object.entries(filter)) {
    if (typeof condition !== 'object' || condition === null || !(STARTS_WITH in condition)) continue;
    const { [STARTS_WITH]: text, ...rest } = condition as Record<string, unknown>;
    if (typeof text !== 'string') throw new TypeError(`${field}: ${STARTS_WITH} takes a string`);
    const bound = upperBound(text);
    out ??= { ...filter };
    out[field] = { ...rest, $gte: text, ...(bound === null ? {} : { $lt: bound }) };
  }
  return out ?? filter;
}
