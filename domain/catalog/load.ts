/**
 * Reading a catalog file: syntax (YAML or JSON), schema (schema.ts), then the cross-entry rules
 * (validate.ts). All problems are collected, one line each, so one run shows everything to fix.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { canonicalJson } from '../canonical-json';
import { formatIssues, formatPath, issueMessage } from './problems';
import {
  MAX_CONDITIONS_PER_SEGMENT,
  MAX_ENTRIES,
  MAX_RANKS_PER_SET,
  MAX_STEPS_PER_MISSION,
  MAX_VARIANTS_PER_EXPERIMENT,
} from './limits';
import { CatalogSchema, SECTION_SCHEMAS } from './schema';
import { CATALOG_SECTIONS, type Catalog, type CatalogSection } from './types';
import { type CatalogDraft, type UnparsedEntry, validateCatalog } from './validate';

export type CatalogParseResult = { ok: true; catalog: Catalog; hash: string } | { ok: false; problems: string[] };

type SyntaxResult = { ok: true; data: unknown } | { ok: false; problems: string[] };

/**
 * Parses and validates catalog text. `fileName` picks the syntax: `.json` is JSON, anything else
 * YAML (which also reads JSON). `hash` identifies the catalog's content, not its text.
 */
export function parseCatalog(text: string, fileName: string): CatalogParseResult {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const syntax = extname(fileName).toLowerCase() === '.json' ? parseJson(source) : parseYaml(source);
  return syntax.ok ? parseCatalogData(syntax.data) : syntax;
}

/** Validates a catalog already read as data (a JSON request body): schema, then the cross-entry rules. */
export function parseCatalogData(data: unknown): CatalogParseResult {
  const tooLong = listsOverLimits(data);
  if (tooLong.length > 0) return { ok: false, problems: tooLong };
  const parsed = CatalogSchema.safeParse(data, { error: issueMessage });
  if (parsed.success) {
    const problems = validateCatalog({ ...parsed.data, unparsed: [] });
    return problems.length > 0
      ? { ok: false, problems }
      : { ok: true, catalog: parsed.data, hash: catalogHash(parsed.data) };
  }
  // Check the entries the schema did accept too, so that one run reports every problem.
  const { draft, removed } = salvage(data);
  // A field taken out is reported by the schema already; a rule missing it would only add noise.
  const crossEntry = validateCatalog(draft).filter((p) => !removed.some((path) => p.startsWith(`${path}: `)));
  return { ok: false, problems: [...formatIssues(parsed.error.issues), ...crossEntry] };
}

/**
 * The sections, ranks and steps past their limits (limits.ts), checked before anything else: a
 * list too long is refused without the cost of reading its entries.
 */
function listsOverLimits(data: unknown): string[] {
  if (!isRecord(data)) return [];
  const problems: string[] = [];
  const check = (path: string, list: unknown, limit: number, what: string) => {
    if (Array.isArray(list) && list.length > limit)
      problems.push(
        `${path}: at most ${limit.toLocaleString('en-US')} ${what} (the catalog's limit), got ${list.length.toLocaleString('en-US')}`,
      );
  };
  for (const section of CATALOG_SECTIONS) check(section, data[section], MAX_ENTRIES[section], 'entries');
  // The entries of a section within its limit: one line per section too long is enough.
  const entries = (section: CatalogSection) =>
    Array.isArray(data[section]) && data[section].length <= MAX_ENTRIES[section] ? (data[section] as unknown[]) : [];
  entries('rankSets').forEach(
    (r, i) => isRecord(r) && check(`rankSets[${i}].ranks`, r.ranks, MAX_RANKS_PER_SET, 'ranks'),
  );
  entries('missions').forEach(
    (m, i) => isRecord(m) && check(`missions[${i}].steps`, m.steps, MAX_STEPS_PER_MISSION, 'steps'),
  );
  entries('segments').forEach(
    (s, i) => isRecord(s) && check(`segments[${i}].conditions`, s.conditions, MAX_CONDITIONS_PER_SEGMENT, 'conditions'),
  );
  entries('experiments').forEach(
    (e, i) => isRecord(e) && check(`experiments[${i}].variants`, e.variants, MAX_VARIANTS_PER_EXPERIMENT, 'variants'),
  );
  return problems;
}

/** Reads and parses a catalog file; an unreadable or missing file is a problem, not a throw. */
export async function loadCatalogFile(path: string): Promise<CatalogParseResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    return {
      ok: false,
      problems: [code === 'ENOENT' ? `${path}: file not found` : `${path}: cannot read the file (${message})`],
    };
  }
  return parseCatalog(text, path);
}

/**
 * sha256 (hex) of the catalog's canonical JSON. It is computed on the parsed catalog, defaults
 * applied, so layout, comments, key order or a default written out do not change it.
 */
export function catalogHash(catalog: Catalog): string {
  return createHash('sha256').update(canonicalJson(catalog)).digest('hex');
}

function parseJson(text: string): SyntaxResult {
  try {
    return { ok: true, data: JSON.parse(text) };
  } catch (error) {
    // Some V8 messages quote the source, newlines included: a problem is one line.
    const message = (error as Error).message.replace(/\s+/g, ' ');
    // Others give a character offset ("... in JSON at position 42"): a line and column are easier to find.
    const at = /\s*(?:in JSON )?at position (\d+).*$/.exec(message);
    if (!at) return { ok: false, problems: [`JSON: ${message}`] };
    const before = text.slice(0, Number(at[1])).split('\n');
    const column = (before[before.length - 1] ?? '').length + 1;
    return { ok: false, problems: [`line ${before.length}, column ${column}: ${message.slice(0, at.index)}`] };
  }
}

function parseYaml(text: string): SyntaxResult {
  // YAML 1.2 core schema: `2026-01-01T00:00:00` stays a string (no timestamp type), `yes` is not a boolean.
  const document = parseDocument(text, { version: '1.2', schema: 'core' });
  if (document.errors.length > 0) {
    return {
      ok: false,
      problems: document.errors.map((e) => {
        // The parser's message ends with " at line L, column C:" and a source excerpt on further lines.
        const message = (e.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
        const at = e.linePos?.[0];
        return at ? `line ${at.line}, column ${at.col}: ${message}` : message;
      }),
    };
  }
  try {
    return { ok: true, data: document.toJS() };
  } catch (error) {
    // e.g. too many alias expansions
    return { ok: false, problems: [`YAML: ${(error as Error).message}`] };
  }
}

/**
 * The entries the schema accepts, one by one, at their file index, some once the fields it
 * refused are taken out (`removed`: their paths); the others as UnparsedEntry.
 */
function salvage(data: unknown): { draft: CatalogDraft; removed: string[] } {
  const root = isRecord(data) ? data : {};
  const unparsed: UnparsedEntry[] = [];
  const removed: string[] = [];
  const section = <T>(name: CatalogSection, schema: z.ZodType<T>): (T | undefined)[] => {
    const raw = root[name];
    if (!Array.isArray(raw)) return [];
    return raw.map((entry: unknown, index) => {
      const result = schema.safeParse(entry);
      if (result.success) return result.data;
      const without = withoutFailedFields(entry, result.error.issues);
      const rest = schema.safeParse(without.entry);
      if (rest.success) {
        removed.push(...without.removed.map((p) => formatPath([name, index, ...p])));
        return rest.data;
      }
      const rawEntry = isRecord(entry) ? entry : {};
      unparsed.push({
        section: name,
        index,
        uid: stringOrNull(rawEntry.uid),
        identifier: stringOrNull(rawEntry.identifier),
      });
      return undefined;
    });
  };
  const draft = {
    deliverables: section('deliverables', SECTION_SCHEMAS.deliverables),
    actions: section('actions', SECTION_SCHEMAS.actions),
    badges: section('badges', SECTION_SCHEMAS.badges),
    rankSets: section('rankSets', SECTION_SCHEMAS.rankSets),
    triggers: section('triggers', SECTION_SCHEMAS.triggers),
    levels: section('levels', SECTION_SCHEMAS.levels),
    leaderboards: section('leaderboards', SECTION_SCHEMAS.leaderboards),
    stores: section('stores', SECTION_SCHEMAS.stores),
    streaks: section('streaks', SECTION_SCHEMAS.streaks),
    missions: section('missions', SECTION_SCHEMAS.missions),
    segments: section('segments', SECTION_SCHEMAS.segments),
    experiments: section('experiments', SECTION_SCHEMAS.experiments),
    leagues: section('leagues', SECTION_SCHEMAS.leagues),
    unparsed,
  };
  return { draft, removed };
}

/**
 * A copy of an entry the schema refused, without the fields it refused that an entry can do
 * without (a wrong date, a negative number, an unknown key), so that the cross-entry checks still
 * look at the rest of it: a bad date must not hide the unknown action the same badge names. A
 * field inside a list is removed from its item, never the item, so every path stays as written.
 */
function withoutFailedFields(
  entry: unknown,
  issues: readonly z.core.$ZodIssue[],
): { entry: unknown; removed: PropertyKey[][] } {
  const copy: unknown = structuredClone(entry);
  const removed: PropertyKey[][] = [];
  for (const issue of issues) {
    const parent = valueAt(copy, issue.path.slice(0, -1));
    const key = issue.path[issue.path.length - 1];
    if (issue.code === 'unrecognized_keys') {
      const object = valueAt(copy, issue.path);
      if (isRecord(object)) for (const k of issue.keys) delete object[k];
    } else if (
      isRecord(parent) &&
      typeof key === 'string' &&
      key in parent &&
      !isRecord(parent[key]) &&
      !Array.isArray(parent[key])
    ) {
      delete parent[key];
      removed.push(issue.path);
    }
  }
  return { entry: copy, removed };
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of path)
    at = isRecord(at) || Array.isArray(at) ? (at as Record<PropertyKey, unknown>)[key] : undefined;
  return at;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
