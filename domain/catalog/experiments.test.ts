/** The experiments section (docs/catalog.md, "Experiments"): what it accepts, the problems it names, and a variant's game. */
import { catalogForPlayer } from './experiments';
import { parseCatalog } from './load';

const BASE = `version: 1
actions: [{ uid: act-share, identifier: share, points: 10 }, { uid: act-order, identifier: order }]
streaks: [{ uid: s-daily-order, label: Daily orders, period: Day, conditions: [{ action: order }] }]
badges: [{ uid: badge-fan, label: Fan, type: OneTimeOnly, isActive: false, conditions: [{ action: share }] }]
segments: [{ uid: seg-de, label: Germany, conditions: [{ attribute: country, in: [DE] }] }]
experiments:
`;

const ISSUE_EXPERIMENT = `  - uid: exp-share-points
    label: Do double share points bring players back?
    segment: null
    startDate: null
    endDate: null
    variants:
      - { uid: control, weight: 50 }
      - uid: double
        weight: 50
        patch:
          actions: { act-share: { points: 20 } }
          streaks: { s-daily-order: { freezes: { max: 2, earnEvery: 7 } } }
`;

const parse = (experiments: string) => parseCatalog(BASE + experiments, 'experiments.yaml');
const problemsOf = (experiments: string) => {
  const parsed = parse(experiments);
  return parsed.ok ? [] : parsed.problems;
};
const withPatch = (patch: string) => `  - uid: exp
    label: E
    variants:
      - { uid: control, weight: 1 }
      - uid: other
        weight: 1
        patch: ${patch}
`;

describe('experiments', () => {
  it("accepts the issue's experiment: the control's patch is empty, absent fields are null", () => {
    const parsed = parse(ISSUE_EXPERIMENT);
    expect(parsed.ok && parsed.catalog.experiments).toEqual([
      {
        uid: 'exp-share-points',
        label: 'Do double share points bring players back?',
        segment: null,
        startDate: null,
        endDate: null,
        variants: [
          { uid: 'control', weight: 50, patch: {} },
          {
            uid: 'double',
            weight: 50,
            patch: {
              actions: { 'act-share': { points: 20 } },
              streaks: { 's-daily-order': { freezes: { max: 2, earnEvery: 7 } } },
            },
          },
        ],
      },
    ]);
  });

  it("plays a variant's game: the patched fields replaced, objects merged key by key, the base left as it was", () => {
    const parsed = parse(ISSUE_EXPERIMENT);
    if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
    const base = parsed.catalog;
    const double = catalogForPlayer(base, [{ uid: 'exp-share-points', variant: 'double' }]);
    expect(double.actions.find((a) => a.uid === 'act-share')!.points).toBe(20);
    expect(double.streaks[0].freezes).toEqual({ max: 2, earnEvery: 7 });
    expect(base.actions.find((a) => a.uid === 'act-share')!.points).toBe(10);
    expect(base.streaks[0].freezes).toBeNull();
    // Entries the patch does not name are the base's own; the game is made once.
    expect(double.actions[1]).toBe(base.actions[1]);
    expect(catalogForPlayer(base, [{ uid: 'exp-share-points', variant: 'double' }])).toBe(double);
    expect(catalogForPlayer(base, [{ uid: 'exp-share-points', variant: 'control' }]).actions[0].points).toBe(10);
    expect(catalogForPlayer(base, [])).toBe(base);

    const merged = parse(
      withPatch('{ streaks: { s-daily-order: { freezes: { max: 3 } } } }').replace(
        '      - { uid: control, weight: 1 }',
        '      - uid: control\n        weight: 1\n        patch: { streaks: { s-daily-order: { freezes: { max: 1, earnEvery: 5 } } } }',
      ),
    );
    // A patch merges into the base's object: the control's freezes are the base's null, so its own patch gives both keys.
    expect(merged.ok).toBe(false);
  });

  it('switches an entry on for one variant only', () => {
    const parsed = parse(withPatch('{ badges: { badge-fan: { isActive: true } } }'));
    if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
    expect(catalogForPlayer(parsed.catalog, [{ uid: 'exp', variant: 'other' }]).badges[0].isActive).toBe(true);
    expect(parsed.catalog.badges[0].isActive).toBe(false);
  });

  it.each([
    [
      '{ actions: { act-share: { points: -1 } } }',
      'experiments[0].variants[1].patch.actions.act-share.points: must not be negative',
    ],
    [
      '{ actions: { act-share: { uid: other } } }',
      'experiments[0].variants[1].patch.actions.act-share.uid: cannot be patched (it names the entry)',
    ],
    [
      '{ actions: { act-share: { identifier: other } } }',
      'experiments[0].variants[1].patch.actions.act-share.identifier: cannot be patched (it names the entry)',
    ],
    [
      '{ actions: { act-share: { colour: red } } }',
      'experiments[0].variants[1].patch.actions.act-share.colour: unknown field',
    ],
    [
      '{ actions: { act-nothing: { points: 1 } } }',
      'experiments[0].variants[1].patch.actions.act-nothing: no action with uid "act-nothing" in actions',
    ],
    [
      '{ streaks: { s-daily-order: { freezes: { max: 2 } } } }',
      'experiments[0].variants[1].patch.streaks.s-daily-order.freezes.earnEvery: required',
    ],
    ['{ levels: { l1: { target: 3 } } }', 'experiments[0].variants[1].patch.levels: unknown field'],
    // The variant's game as a whole catalog: a problem in a patched field, at the patch's path.
    [
      '{ badges: { badge-fan: { conditions: [{ action: nothing }] } } }',
      'experiments[0].variants[1].patch.badges.badge-fan.conditions[0].action: unknown action "nothing"',
    ],
    [
      '{ actions: { act-share: { cost: 5 } } }',
      // In a field the patch leaves as it was: the game's own path, after the patch's.
      'experiments[0].variants[1].patch: actions[0].costDeliverable: required when cost > 0',
    ],
  ])('names the problem of the patch %s at its path', (patch, problem) => {
    expect(problemsOf(withPatch(patch))).toContain(problem);
  });

  it.each([
    ['  - { uid: exp, label: E, variants: [] }', 'experiments[0].variants: at least one variant is required'],
    [
      '  - { uid: exp, label: E, variants: [{ uid: a, weight: 0 }, { uid: b, weight: 0 }] }',
      'experiments[0].variants: the weights must not all be 0',
    ],
    [
      '  - { uid: exp, label: E, variants: [{ uid: a, weight: 1 }, { uid: a, weight: 1 }] }',
      'experiments[0].variants[1].uid: duplicate variant uid "a"',
    ],
    [
      '  - { uid: exp, label: E, segment: seg-none, variants: [{ uid: a, weight: 1 }] }',
      'experiments[0].segment: unknown segment "seg-none"',
    ],
    [
      "  - { uid: exp, label: E, startDate: '2026-02-01T00:00:00', endDate: '2026-01-01T00:00:00', variants: [{ uid: a, weight: 1 }] }",
      'experiments[0].endDate: must be after startDate',
    ],
    [
      '  - { uid: exp, label: E, variants: [{ uid: a, weight: -1 }] }',
      'experiments[0].variants[0].weight: must not be negative',
    ],
    [
      '  - { uid: act-share, label: E, variants: [{ uid: a, weight: 1 }] }',
      'experiments[0].uid: duplicate uid "act-share"',
    ],
  ])('refuses %s', (experiment, problem) => {
    expect(problemsOf(experiment + '\n').join('\n')).toContain(problem);
  });

  it('reads a catalog without experiments as none', () => {
    const parsed = parseCatalog('version: 1\n', 'x.yaml');
    expect(parsed.ok && parsed.catalog.experiments).toEqual([]);
  });
});
