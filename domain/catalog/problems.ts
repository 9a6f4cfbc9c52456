/**
 * Problem lines: `<path in the file>: <message>`, e.g. `badges[2].rankSet: unknown rank set "x"`.
 * zod's issues are rewritten in the same plain style.
 */
import type { z } from 'zod';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `a[0].b.c`; keys that are not identifiers are quoted (`a["odd key"]`); the empty path is `(root)`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && IDENTIFIER.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out || '(root)';
}

function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${quote(value)}`;
}

const EXPECTED: Record<string, string> = { array: 'a list', object: 'an object' };

/**
 * Messages for zod's own issues (those without a message set by the schema), passed to
 * `safeParse` so that other users of zod keep its defaults. undefined falls back to zod's text.
 */
export const issueMessage: z.core.$ZodErrorMap = (iss) => {
  if (iss.input === undefined && (iss.code === 'invalid_type' || iss.code === 'invalid_value')) return 'required';
  switch (iss.code) {
    case 'invalid_type':
      // `.inf`, `.nan` or a literal too large for a double (`1e400`) reads as Infinity or NaN.
      if (typeof iss.input === 'number' && Number.isNaN(iss.input)) return 'must be a finite number, got NaN (.nan)';
      if (typeof iss.input === 'number' && !Number.isFinite(iss.input))
        return `must be a finite number, got ${iss.input} (.inf, or a number too large to hold, such as 1e400)`;
      if (iss.expected === 'int') return 'must be an integer';
      return `expected ${EXPECTED[iss.expected] ?? iss.expected}, got ${describe(iss.input)}`;
    case 'invalid_value': {
      const allowed = iss.values.map((v) => (typeof v === 'string' ? v : quote(v)));
      return `must be ${allowed.length === 1 ? allowed[0] : `one of ${allowed.join(', ')}`}, got ${quote(iss.input)}`;
    }
    case 'too_small':
      if (iss.origin === 'array') return `must have at least ${iss.minimum} entr${iss.minimum === 1 ? 'y' : 'ies'}`;
      return undefined;
    case 'invalid_union':
      return 'does not match any allowed form';
    default:
      return undefined;
  }
};

/** One line per issue; an unknown field is reported at its own path. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => `${formatPath([...issue.path, key])}: unknown field`)
      : [`${formatPath(issue.path)}: ${issue.message}`],
  );
}
