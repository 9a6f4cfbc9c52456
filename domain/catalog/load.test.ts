import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { canonicalJson } from '../canonical-json';
import { MAX_ENTRIES, MAX_RANKS_PER_SET, MAX_STEPS_PER_MISSION } from './limits';
import { loadCatalogFile, parseCatalog } from './load';
import { CATALOG_SECTIONS } from './types';
import { validCatalog } from './test-fixture';

const DEMO = join(__dirname, '../../catalog/demo-catalog.yaml');

describe('the demo catalog', () => {
  it('loads with no problems, defaults applied', async () => {
    const result = await loadCatalogFile(DEMO);
    if (!result.ok) throw new Error(result.problems.join('\n'));
    const { catalog, hash } = result;
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(catalog.settings.timezone).toBe('UTC');
    expect(catalog.deliverables.map((d) => d.uid)).toEqual([
      'gold',
      'gems',
      'stars',
      'sword',
      'hoodie',
      'banner-vip',
      'notify-risk',
      'chest-silver',
      'chest-leveled',
      'boost-gold',
    ]);
    expect(catalog.deliverables.find((d) => d.uid === 'banner-vip')).toMatchObject({
      kind: null,
      isActive: true,
      imageName: null,
      description: null,
    });
    expect(catalog.actions.find((a) => a.identifier === 'login')).toMatchObject({
      cost: 0,
      costDeliverable: null,
      actionObjects: [],
      deliverables: [],
      createDate: null,
    });
    expect(catalog.badges.find((b) => b.uid === 'b-vip')!.conditions[0].challenge).toEqual({
      times: null,
      sum: { field: 'amount', atLeast: 1000 },
      withinDays: 30,
      between: null,
    });
    expect(catalog.triggers.find((t) => t.uid === 't-risk')).toMatchObject({
      randomizedPrize: false,
      limited: false,
      limit: 0,
    });
    expect(catalog.stores[0].bundles.find((b) => b.uid === 'bd-sword')).toMatchObject({ requiresFulfillment: false });
    expect(catalog.leaderboards.map((b) => b.metric)).toEqual(['points', 'points', { action: 'purchase' }]);
  });

  it('keeps unquoted YAML dates as local date-time strings (YAML 1.2 core schema has no timestamps)', async () => {
    const result = await loadCatalogFile(DEMO);
    expect(result.ok && result.catalog.leaderboards[0].startDate).toBe('2026-01-01T00:00:00');
    const unquoted = parseCatalog(
      'version: 1\nstores: [{ uid: s, label: S, startDate: 2026-01-01T00:00:00 }]\n',
      'c.yaml',
    );
    expect(unquoted.ok && unquoted.catalog.stores[0].startDate).toBe('2026-01-01T00:00:00');
  });
});

describe('YAML and JSON', () => {
  it('give the same catalog and hash for the same content', () => {
    const raw = validCatalog();
    const fromJson = parseCatalog(JSON.stringify(raw), 'catalog.json');
    const fromYaml = parseCatalog(stringify(raw), 'catalog.yaml');
    expect(fromJson.ok).toBe(true);
    expect(fromYaml).toEqual(fromJson);
  });

  it('the extension picks the syntax; YAML also reads JSON', () => {
    const json = JSON.stringify(validCatalog());
    expect(parseCatalog(json, 'CATALOG.JSON').ok).toBe(true);
    expect(parseCatalog(json, 'catalog.yml').ok).toBe(true);
    expect(parseCatalog(json, 'catalog').ok).toBe(true);
    expect(parseCatalog('version: 1\n', 'catalog.json')).toEqual({
      ok: false,
      problems: [expect.stringMatching(/^JSON: Unexpected token/)],
    });
  });

  it('ignores a byte order mark', () => {
    expect(parseCatalog(`\uFEFF${JSON.stringify(validCatalog())}`, 'catalog.json').ok).toBe(true);
  });
});

describe('syntax errors', () => {
  it('YAML: one line each, with line and column', () => {
    expect(parseCatalog('version: 1\nbadges: [\n', 'c.yaml')).toEqual({
      ok: false,
      problems: ['line 3, column 1: Flow sequence in block collection must be sufficiently indented and end with a ]'],
    });
  });

  it('YAML: duplicate keys', () => {
    expect(parseCatalog('version: 1\nversion: 1\n', 'c.yaml')).toEqual({
      ok: false,
      problems: ['line 2, column 1: Map keys must be unique'],
    });
  });

  it('YAML: several documents', () => {
    const result = parseCatalog('version: 1\n---\nversion: 1\n', 'c.yaml');
    expect(result.ok === false && result.problems).toEqual([
      expect.stringMatching(/^line 2, column 1: Source contains multiple documents/),
    ]);
  });

  it('JSON: with line and column when the parser gives a position', () => {
    expect(parseCatalog('{\n "version": 1\n "badges": []\n}', 'c.json')).toEqual({
      ok: false,
      problems: [expect.stringMatching(/^line 3, column 2: \S.*[^\n]$/)],
    });
  });

  it('JSON: on one line when the message quotes the source', () => {
    const result = parseCatalog('{\n  "version": 1,\n  "badges": [,]\n}', 'c.json');
    expect(result.ok === false && result.problems).toEqual([
      expect.stringMatching(/^JSON: Unexpected token ','[^\n]*$/),
    ]);
  });

  it('JSON: without a position', () => {
    expect(parseCatalog('', 'c.json')).toEqual({ ok: false, problems: ['JSON: Unexpected end of JSON input'] });
  });
});

describe('files', () => {
  it('a missing file is a problem', async () => {
    const path = join(tmpdir(), 'no-such-dir-7d1f', 'catalog.yaml');
    expect(await loadCatalogFile(path)).toEqual({ ok: false, problems: [`${path}: file not found`] });
  });

  it('an unreadable path is a problem', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'catalog-'));
    const result = await loadCatalogFile(dir);
    expect(result.ok === false && result.problems).toEqual([
      expect.stringMatching(new RegExp(`^${dir}: cannot read the file \\(EISDIR`)),
    ]);
  });

  it('a JSON file', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'catalog-')), 'catalog.json');
    writeFileSync(path, JSON.stringify(validCatalog(), null, 2));
    expect((await loadCatalogFile(path)).ok).toBe(true);
  });
});

describe('hash', () => {
  const hashOf = (text: string, fileName = 'c.yaml') => {
    const result = parseCatalog(text, fileName);
    if (!result.ok) throw new Error(result.problems.join('\n'));
    return result.hash;
  };

  const base = `
version: 1
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
actions:
  - uid: act-login
    identifier: login
    points: 5
    deliverables: [{ deliverable: gold, amount: 1 }]
`;

  it('is the same after reformatting, comments, key order and defaults written out', () => {
    const reformatted = `# the demo, reformatted
version: 1
actions:
  - identifier: login   # same action
    deliverables:
      - amount: 1
        deliverable: gold
    uid: act-login
    points: 5.0
    isActive: true
    cost: 0
deliverables:
  - uid: gold
    type: Prize
    label: "Gold"
    kind: Currency
settings: { timezone: UTC }
badges: []
`;
    expect(hashOf(reformatted)).toBe(hashOf(base));
    const asJson = parseCatalog(base, 'c.yaml');
    expect(asJson.ok && hashOf(JSON.stringify(asJson.catalog), 'c.json')).toBe(hashOf(base));
  });

  it('changes when a value changes', () => {
    expect(hashOf(base.replace('points: 5', 'points: 6'))).not.toBe(hashOf(base));
    expect(hashOf(base.replace('label: Gold', 'label: Gold coins'))).not.toBe(hashOf(base));
    expect(hashOf(`${base}settings: { timezone: Europe/Berlin }\n`)).not.toBe(hashOf(base));
  });

  it('changes when entries are reordered (catalog order is meaningful)', () => {
    const two = `version: 1\ndeliverables:\n  - { uid: a, label: A, type: Content }\n  - { uid: b, label: B, type: Content }\n`;
    const swapped = `version: 1\ndeliverables:\n  - { uid: b, label: B, type: Content }\n  - { uid: a, label: A, type: Content }\n`;
    expect(hashOf(swapped)).not.toBe(hashOf(two));
  });

  it('canonicalJson sorts keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null }, u: undefined })).toBe('{"a":{"c":null,"d":[2,1]},"b":1}');
  });
});

describe('all problems at once', () => {
  it('reports schema and cross-reference problems together, each once', () => {
    const raw = validCatalog();
    raw.deliverables[0].kind = 'Coin'; // schema: the deliverable "gold" is rejected...
    raw.actions[0].points = -1; // schema: the action "buy" is rejected...
    raw.badges[2].rankSet = 'nope'; // cross-reference, in an entry the schema accepts
    raw.levels[1].target = 0; // cross-reference
    raw.stores[0].bundles[0].costDeliverable = 'banner'; // cross-reference
    const result = parseCatalog(JSON.stringify(raw), 'catalog.json');
    // ...and references to "gold" and "buy" are not reported as unknown.
    expect(result).toEqual({
      ok: false,
      problems: [
        'deliverables[0].kind: must be one of Currency, Item, Chest, Powerup, got "Coin"',
        'actions[0].points: must not be negative',
        'badges[2].rankSet: unknown rank set "nope"',
        'levels[1].target: must be greater than the target of level 1 (0)',
        'stores[0].bundles[0].costDeliverable: "banner" is a Content deliverable, not a Prize',
      ],
    });
  });

  it('in YAML, with paths into the file', () => {
    const text = `
version: 1
settings: { timezone: Mars/Base }
deliverables:
  - { uid: gold, label: Gold, type: Prize }
  - { uid: gold, label: Gold again, type: Prize }
actions:
  - { identifier: buy, cost: 5 }
badges:
  - { uid: b, label: B, type: OneTimeOnly, conditions: [{ action: sell }], startDate: 2026-02-01T00:00:00, endDate: 2026-01-01T00:00:00 }
`;
    expect(parseCatalog(text, 'c.yaml')).toEqual({
      ok: false,
      problems: [
        'settings.timezone: unknown time zone "Mars/Base"',
        'deliverables[1].uid: duplicate uid "gold" (first at deliverables[0])',
        'actions[0].costDeliverable: required when cost > 0',
        'badges[0].endDate: must be after startDate (2026-02-01T00:00:00)',
        'badges[0].conditions[0].action: unknown action "sell"',
      ],
    });
  });
});

describe('every problem in one run', () => {
  it('a wrong date or number in an entry does not hide the unknown action it names; month 13 is named as such', () => {
    const text = `
version: 1
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
actions:
  - { uid: act-a, identifier: a, points: -5 }
badges:
  - { uid: b1, label: B, type: OneTimeOnly, startDate: 2026-13-01T00:00:00, conditions: [{ action: nope }] }
  - { uid: b2, label: C, type: OneTimeOnly, points: -1, conditions: [{ action: a, challenge: { withinDays: -1 } }, { action: gone }] }
`;
    expect(parseCatalog(text, 'c.yaml')).toEqual({
      ok: false,
      problems: [
        'actions[0].points: must not be negative',
        'badges[0].startDate: not a real date: month 13, got "2026-13-01T00:00:00"',
        'badges[1].points: must not be negative',
        'badges[1].conditions[0].challenge.withinDays: must be greater than 0',
        'badges[0].conditions[0].action: unknown action "nope"',
        'badges[1].conditions[1].action: unknown action "gone"',
      ],
    });
  });

  it('a field taken out for the cross-entry checks is reported once, by the schema', () => {
    const raw = validCatalog();
    raw.triggers[0].limit = 1e10; // without it, "limit: must be at least 1 when limited is true" would follow
    const result = parseCatalog(JSON.stringify(raw), 'catalog.json');
    expect(result).toEqual({ ok: false, problems: ['triggers[0].limit: must be at most 1,000,000,000'] });
  });
});

describe('numbers too large to hold', () => {
  it('.inf, .nan and 1e400 (YAML) and 1e400 (JSON) are named as not finite', () => {
    const yaml =
      'version: 1\nactions:\n  - { identifier: a, points: .inf }\n  - { identifier: b, points: 1e400 }\n  - { identifier: c, points: .nan }\n';
    expect(parseCatalog(yaml, 'c.yaml')).toEqual({
      ok: false,
      problems: [
        'actions[0].points: must be a finite number, got Infinity (.inf, or a number too large to hold, such as 1e400)',
        'actions[1].points: must be a finite number, got Infinity (.inf, or a number too large to hold, such as 1e400)',
        'actions[2].points: must be a finite number, got NaN (.nan)',
      ],
    });
    expect(parseCatalog('{"version": 1, "actions": [{"identifier": "a", "points": 1e400}]}', 'c.json')).toEqual({
      ok: false,
      problems: [
        'actions[0].points: must be a finite number, got Infinity (.inf, or a number too large to hold, such as 1e400)',
      ],
    });
  });
});

describe('limits on the lists', () => {
  const times = <T>(n: number, entry: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => entry(i));

  it('a catalog at its limits is read; one entry more in a section, a rank set or a mission is refused, naming the limit', () => {
    const raw = validCatalog();
    const atLimits = {
      ...raw,
      leaderboards: times(MAX_ENTRIES.leaderboards, (i) => ({ uid: `lb-${i}`, label: `Board ${i}`, type: 0 })),
      rankSets: [
        { ...raw.rankSets[0], ranks: times(MAX_RANKS_PER_SET, (i) => ({ rank: i + 1, label: `R${i}`, times: i + 1 })) },
      ],
      missions: [
        {
          uid: 'm-long',
          label: 'Long',
          steps: times(MAX_STEPS_PER_MISSION, (i) => ({
            uid: `s-${i}`,
            label: `Step ${i}`,
            condition: { action: 'buy' },
          })),
        },
      ],
    };
    const read = parseCatalog(JSON.stringify(atLimits), 'catalog.json');
    if (!read.ok) throw new Error(read.problems.join('\n'));
    const over = structuredClone(atLimits);
    over.leaderboards.push({ uid: 'lb-more', label: 'More', type: 0 });
    over.rankSets[0].ranks.push({ rank: MAX_RANKS_PER_SET + 1, label: 'More', times: MAX_RANKS_PER_SET + 1 });
    over.missions[0].steps.push({ uid: 's-more', label: 'More', condition: { action: 'buy' } });
    const n = (x: number) => x.toLocaleString('en-US');
    expect(parseCatalog(JSON.stringify(over), 'catalog.json')).toEqual({
      ok: false,
      problems: [
        `leaderboards: at most ${n(MAX_ENTRIES.leaderboards)} entries (the catalog's limit), got ${n(MAX_ENTRIES.leaderboards + 1)}`,
        `rankSets[0].ranks: at most ${n(MAX_RANKS_PER_SET)} ranks (the catalog's limit), got ${n(MAX_RANKS_PER_SET + 1)}`,
        `missions[0].steps: at most ${n(MAX_STEPS_PER_MISSION)} steps (the catalog's limit), got ${n(MAX_STEPS_PER_MISSION + 1)}`,
      ],
    });
  });

  it("every section has a limit; a section over it is refused alone, its entries' lists not looked at", () => {
    for (const section of CATALOG_SECTIONS) {
      const raw = validCatalog();
      raw[section] = times(MAX_ENTRIES[section] + 1, () => ({}));
      const read = parseCatalog(JSON.stringify(raw), 'catalog.json');
      expect([section, read.ok ? [] : read.problems]).toEqual([
        section,
        [expect.stringMatching(new RegExp(`^${section}: at most [\\d,]+ entries \\(the catalog's limit\\)`))],
      ]);
    }
    const raw = validCatalog();
    raw.missions = times(MAX_ENTRIES.missions + 1, () => ({ steps: times(MAX_STEPS_PER_MISSION + 1, () => ({})) }));
    const read = parseCatalog(JSON.stringify(raw), 'catalog.json');
    expect(read.ok ? [] : read.problems).toHaveLength(1);
  });
});
