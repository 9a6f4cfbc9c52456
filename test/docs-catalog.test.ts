/**
 * The catalog reference (docs/catalog.md) and its complete example (docs/catalog-example.yaml)
 * against the code: the example loads with the service's own loader, the reference embeds the
 * example verbatim, and every field and allowed value the zod schema accepts is documented. The
 * field names are read from the schema itself (domain/catalog/schema.ts), so a field added there
 * fails this test until the reference and the example describe it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { parseCatalog } from '../domain/catalog/load';
import { CatalogSchema } from '../domain/catalog/schema';

const DOCS = join(__dirname, '..', 'docs');
const REFERENCE_FILE = join(DOCS, 'catalog.md');
const EXAMPLE_FILE = join(DOCS, 'catalog-example.yaml');
const EXAMPLE_HEADING = 'A complete example';

const reference = readFileSync(REFERENCE_FILE, 'utf8');
const example = readFileSync(EXAMPLE_FILE, 'utf8');

// --- the schema, walked ---

/** The parts of a zod 4 schema definition the walk reads. */
interface Def {
  type: string;
  shape?: Record<string, Walkable>;
  in?: Walkable;
  out?: Walkable;
  innerType?: Walkable;
  element?: Walkable;
  options?: Walkable[];
  entries?: Record<string, string | number>;
  values?: unknown[];
}
interface Walkable {
  _zod: { def: Def };
}

interface SchemaObject {
  /** Where it sits in a catalog, e.g. `deliverables[].chest.pool[]`. */
  path: string;
  keys: string[];
}

interface SchemaFacts {
  objects: SchemaObject[];
  /** Every field name of every object. */
  fields: Set<string>;
  /** The allowed string values of enums and literals, by path. */
  values: Map<string, string[]>;
}

/**
 * Types with nothing inside to walk. A record's keys are the file's own (an experiment's patch: entry
 * uids, then fields of that entry's section, which are documented there).
 */
const LEAVES = new Set(['string', 'number', 'boolean', 'transform', 'record']);
/** Wrappers around one schema. */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'catch', 'readonly', 'nonoptional']);

function walkSchema(root: Walkable): SchemaFacts {
  const facts: SchemaFacts = { objects: [], fields: new Set(), values: new Map() };
  const addValues = (path: string, values: unknown[]) => {
    const strings = values.filter((v): v is string => typeof v === 'string');
    if (strings.length > 0) facts.values.set(path, [...(facts.values.get(path) ?? []), ...strings]);
  };
  const walk = (schema: Walkable, path: string): void => {
    const def = schema._zod.def;
    if (def.type === 'object') {
      const shape = def.shape ?? {};
      facts.objects.push({ path: path || '(root)', keys: Object.keys(shape) });
      for (const [key, child] of Object.entries(shape)) {
        facts.fields.add(key);
        walk(child, path ? `${path}.${key}` : key);
      }
    } else if (def.type === 'pipe') {
      walk(def.in!, path);
      walk(def.out!, path);
    } else if (WRAPPERS.has(def.type)) {
      walk(def.innerType!, path);
    } else if (def.type === 'array') {
      walk(def.element!, `${path}[]`);
    } else if (def.type === 'union') {
      for (const option of def.options!) walk(option, path);
    } else if (def.type === 'enum') {
      addValues(path, Object.values(def.entries ?? {}));
    } else if (def.type === 'literal') {
      addValues(path, def.values ?? []);
    } else if (!LEAVES.has(def.type)) {
      // A construct this walk does not know would hide fields: teach the walk rather than skip it.
      throw new Error(`schema walk: unknown zod type "${def.type}" at ${path || '(root)'}`);
    }
  };
  walk(root, '');
  return facts;
}

const schema = walkSchema(CatalogSchema as unknown as Walkable);

// --- the reference, read ---

/** The reference without its "A complete example" section (up to the next heading of its level or above). */
function withoutExampleSection(markdown: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => /^#{1,6} /.test(l) && l.includes(EXAMPLE_HEADING));
  if (start < 0) return markdown;
  const level = /^#+/.exec(lines[start])![0].length;
  let end = lines.findIndex((l, i) => i > start && new RegExp(`^#{1,${level}} `).test(l));
  if (end < 0) end = lines.length;
  return [...lines.slice(0, start), ...lines.slice(end)].join('\n');
}

/** The content of the first ```yaml block under the "A complete example" heading, or null. */
function exampleBlock(markdown: string): string | null {
  const lines = markdown.split('\n');
  const heading = lines.findIndex((l) => /^#{1,6} /.test(l) && l.includes(EXAMPLE_HEADING));
  if (heading < 0) return null;
  const open = lines.findIndex((l, i) => i > heading && /^```ya?ml\s*$/.test(l));
  if (open < 0) return null;
  const close = lines.findIndex((l, i) => i > open && /^```\s*$/.test(l));
  if (close < 0) return null;
  return lines
    .slice(open + 1, close)
    .map((l) => `${l}\n`)
    .join('');
}

/** Text outside fenced code blocks: a field must be described, not only shown in an example. */
function prose(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, '');
}

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/g;

/** The identifiers inside inline code spans (`settings.timezone` gives settings and timezone). */
function codeIdentifiers(text: string): Set<string> {
  const out = new Set<string>();
  for (const [, code] of text.matchAll(/`([^`\n]+)`/g)) for (const [word] of code.matchAll(IDENTIFIER)) out.add(word);
  return out;
}

/** The values written in inline code spans, whole (`weekly`, `{ action: order }`). */
function codeSpans(text: string): Set<string> {
  return new Set([...text.matchAll(/`([^`\n]+)`/g)].map(([, code]) => code.trim()));
}

interface Table {
  header: string[];
  rows: string[][];
}

function cellsOf(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

/** Markdown tables: runs of lines starting with `|`, the second being the separator. */
function tablesOf(markdown: string): Table[] {
  const tables: Table[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length >= 2 && /^\|?\s*:?-{3,}/.test(run[1].trim()))
      tables.push({ header: cellsOf(run[0]), rows: run.slice(2).map(cellsOf) });
    run = [];
  };
  for (const line of markdown.split('\n')) {
    if (line.trim().startsWith('|')) run.push(line);
    else flush();
  }
  flush();
  return tables;
}

const referenceText = prose(withoutExampleSection(reference));
const documented = codeIdentifiers(referenceText);
const documentedValues = codeSpans(referenceText);
const tables = tablesOf(referenceText);
/** Tables of fields: their first header cell is "Field". */
const fieldTables = tables.filter((t) => /^field$/i.test(t.header[0] ?? ''));

// --- the example, read ---

/** Every key used anywhere in a parsed YAML value, and every string value. */
function keysAndStrings(
  value: unknown,
  keys = new Set<string>(),
  strings = new Set<string>(),
): { keys: Set<string>; strings: Set<string> } {
  if (Array.isArray(value)) value.forEach((v) => keysAndStrings(v, keys, strings));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      keys.add(k);
      keysAndStrings(v, keys, strings);
    }
  } else if (typeof value === 'string') strings.add(value);
  return { keys, strings };
}

// --- the tests ---

describe('the schema walk', () => {
  it('finds the catalog sections and nested fields', () => {
    // A guard on the walk itself: if it found nothing, every check below would pass vacuously.
    expect(schema.objects.find((o) => o.path === '(root)')?.keys).toEqual(
      expect.arrayContaining([
        'version',
        'settings',
        'deliverables',
        'actions',
        'badges',
        'rankSets',
        'triggers',
        'levels',
        'leaderboards',
        'stores',
      ]),
    );
    expect([...schema.fields]).toEqual(
      expect.arrayContaining(['perSecond', 'scalingMode', 'targetPrizes', 'atLeast', 'requiresFulfillment', 'metric']),
    );
    expect(schema.values.get('deliverables[].kind')).toEqual(['Currency', 'Item', 'Chest', 'Powerup']);
  });
});

describe('docs/catalog-example.yaml', () => {
  it('loads with the service loader with no problems', () => {
    const result = parseCatalog(example, EXAMPLE_FILE);
    expect(result.ok ? [] : result.problems).toEqual([]);
  });

  it('uses every field name of the schema', () => {
    const { keys } = keysAndStrings(parse(example));
    expect([...schema.fields].filter((f) => !keys.has(f)).sort()).toEqual([]);
  });

  it('uses every allowed value of every enum', () => {
    const { strings } = keysAndStrings(parse(example, { version: '1.2', schema: 'core' }));
    const unused = [...schema.values].flatMap(([path, values]) =>
      values.filter((v) => !strings.has(v)).map((v) => `${path}: ${v}`),
    );
    expect(unused).toEqual([]);
  });
});

describe('docs/catalog.md', () => {
  it(`embeds docs/catalog-example.yaml verbatim under "${EXAMPLE_HEADING}"`, () => {
    const block = exampleBlock(reference);
    expect(block).not.toBeNull();
    expect(block).toBe(example);
  });

  it('names every top-level key and every field name of the schema in code', () => {
    expect([...schema.fields].filter((f) => !documented.has(f)).sort()).toEqual([]);
  });

  it('lists every allowed value of every enum in code', () => {
    const missing = [...schema.values].flatMap(([path, values]) =>
      values.filter((v) => !documentedValues.has(v)).map((v) => `${path}: ${v}`),
    );
    expect(missing).toEqual([]);
  });

  it('has, for every object of the schema, a table naming all of its fields', () => {
    const uncovered = schema.objects.flatMap(({ path, keys }) => {
      const covers = tables.map((t) => {
        const names = codeIdentifiers(t.rows.map((r) => r.join(' | ')).join('\n'));
        return keys.filter((k) => !names.has(k));
      });
      const best = covers.reduce<string[] | null>((a, b) => (a === null || b.length < a.length ? b : a), null) ?? keys;
      return best.length === 0 ? [] : [`${path}: no table names ${best.join(', ')}`];
    });
    expect(uncovered).toEqual([]);
  });

  it('documents no field that the schema does not accept', () => {
    expect(fieldTables.length).toBeGreaterThan(0);
    const unknown = fieldTables.flatMap((t) =>
      t.rows.flatMap((row) =>
        [...codeIdentifiers(row[0] ?? '')]
          .filter((name) => !schema.fields.has(name))
          .map((name) => `${name} (row "${row[0]}")`),
      ),
    );
    expect(unknown).toEqual([]);
  });

  it('stands alone: no reference to documents outside the repository', () => {
    expect(reference).not.toMatch(/\bspec\b|api\.md|decisions\.md|\.\.\/shared/i);
  });
});
