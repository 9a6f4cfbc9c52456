/** The segments section (docs/catalog.md, "Segments"): its conditions, and what the schema and the cross-entry checks refuse. */
import { parseCatalog } from './load';
import { removedEntries } from './removals';
import type { Catalog } from './types';

const CATALOG = `version: 1
actions: [{ identifier: order }]
badges:
  - { uid: badge-regular, label: Regular, type: OneTimeOnly, conditions: [{ action: order }], segment: seg-dach-regulars }
levels: [{ level: 1, target: 0, label: One }, { level: 2, target: 100, label: Two }]
segments:
`;

describe('segments', () => {
  const parse = (segments: string, extra = '') => parseCatalog(CATALOG + segments + extra, 'segments.yaml');
  const problemsOf = (segments: string, extra = '') => {
    const parsed = parse(segments, extra);
    return parsed.ok ? [] : parsed.problems;
  };
  const regulars = `  - uid: seg-dach-regulars
    label: Regulars in Germany and Austria
    conditions:
      - { attribute: country, in: [DE, AT] }
      - { level: { min: 2 } }
      - { badge: badge-regular }
      - { points: { min: 100 } }
`;

  it("accepts the issue's segment, with each condition's absent bound null", () => {
    const parsed = parse(regulars);
    expect(parsed.ok && parsed.catalog.segments).toEqual([
      {
        uid: 'seg-dach-regulars',
        label: 'Regulars in Germany and Austria',
        conditions: [
          { attribute: 'country', in: ['DE', 'AT'] },
          { level: { min: 2, max: null } },
          { badge: 'badge-regular' },
          { points: { min: 100, max: null } },
        ],
      },
    ]);
    expect(parsed.ok && parsed.catalog.badges[0].segment).toBe('seg-dach-regulars');
  });

  it('leaves the segment of badges, triggers, streaks and missions null when none is given', () => {
    const parsed = parseCatalog(
      `version: 1
actions: [{ identifier: order }]
triggers: [{ uid: t, label: T, type: OneTimeOnly, conditions: [{ action: order }] }]
streaks: [{ uid: s, label: S, period: Day, conditions: [{ action: order }] }]
missions: [{ uid: m, label: M, steps: [{ uid: s1, label: S, condition: { action: order } }] }]
`,
      'segments.yaml',
    );
    expect(parsed.ok && [parsed.catalog.triggers[0], parsed.catalog.streaks[0], parsed.catalog.missions[0]]).toEqual([
      expect.objectContaining({ segment: null }),
      expect.objectContaining({ segment: null }),
      expect.objectContaining({ segment: null }),
    ]);
  });

  it.each([
    ['  - { uid: s, label: S, conditions: [] }', 'segments[0].conditions: at least one condition is required'],
    ['  - { label: S, conditions: [{ badge: badge-regular }] }', 'segments[0].uid'],
    [
      '  - { uid: s, label: S, conditions: [{ level: {} }] }',
      'segments[0].conditions[0].level: must give min, max or both',
    ],
    [
      '  - { uid: s, label: S, conditions: [{ level: { min: -1 } }] }',
      'segments[0].conditions[0].level.min: must not be negative',
    ],
    [
      '  - { uid: s, label: S, conditions: [{ badge: b, level: { min: 1 } }] }',
      'segments[0].conditions[0]: must be one of',
    ],
    ['  - { uid: s, label: S, conditions: [{ colour: red }] }', 'segments[0].conditions[0]: must be one of'],
    [
      '  - { uid: s, label: S, conditions: [{ attribute: country, in: [] }] }',
      'segments[0].conditions[0].in: must not be empty',
    ],
  ])('refuses %s', (segment, problem) => {
    expect(problemsOf(segment + '\n').join('\n')).toContain(problem);
  });

  it('names an unknown badge, a range out of order and an unknown segment at their paths', () => {
    expect(
      problemsOf(
        `  - { uid: s, label: S, conditions: [{ badge: badge-nobody }, { level: { min: 3, max: 2 } }, { points: { min: 10, max: 5 } }] }
`,
        `streaks: [{ uid: st, label: St, period: Day, conditions: [{ action: order }], segment: seg-nowhere }]
missions: [{ uid: m, label: M, steps: [{ uid: s1, label: S, condition: { action: order } }], segment: s }]
triggers: [{ uid: t, label: T, type: OneTimeOnly, conditions: [{ action: order }], segment: badge-regular }]
`,
      ),
    ).toEqual([
      'badges[0].segment: unknown segment "seg-dach-regulars"',
      'triggers[0].segment: "badge-regular" is a badge (badges[0]), not a segment',
      'streaks[0].segment: unknown segment "seg-nowhere"',
      'segments[0].conditions[0].badge: unknown badge "badge-nobody"',
      'segments[0].conditions[1].level: min (3) must not be greater than max (2)',
      'segments[0].conditions[2].points: min (10) must not be greater than max (5)',
    ]);
  });

  it('are compared with a version published before segments existed as with one that had none', () => {
    const parsed = parse(regulars);
    if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
    const { segments: _, ...before } = parsed.catalog;
    expect(removedEntries(before as Catalog, parsed.catalog)).toEqual([]);
    expect(removedEntries(parsed.catalog, { ...parsed.catalog, segments: [] })).toEqual([
      { section: 'segments', uids: ['seg-dach-regulars'] },
    ]);
  });
});
