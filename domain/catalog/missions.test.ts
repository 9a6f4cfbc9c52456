/** The missions section (docs/catalog.md, "missions"): defaults, and what the schema and the cross-entry checks refuse. */
import { parseCatalog } from './load';

const CATALOG = `version: 1
deliverables: [{ uid: beans, label: Beans, type: Prize }]
actions: [{ uid: act-order, identifier: order, actionObjects: [{ label: amount, type: Number }] }, { identifier: check_in }]
badges: [{ uid: b-vip, label: VIP, type: OneTimeOnly, conditions: [{ action: order }] }]
levels: [{ level: 1, target: 0, label: One }, { level: 2, target: 100, label: Two }]
missions:
`;

describe('missions', () => {
  const parse = (missions: string) => parseCatalog(CATALOG + missions, 'missions.yaml');
  const problemsOf = (missions: string) => {
    const parsed = parse(missions);
    return parsed.ok ? [] : parsed.problems;
  };

  it('accepts the mission of the reference, and fills the defaults of a short one', () => {
    expect(
      problemsOf(`  - uid: m-first-week
    label: First week
    startDate: null
    endDate: null
    requires: { badge: b-vip, level: 2 }
    ordered: true
    repeat: Weekly
    steps:
      - { uid: m1-s1, label: Check in, condition: { action: check_in } }
      - { uid: m1-s2, label: Order twice, condition: { action: order, challenge: { times: 2 } } }
    points: 100
    deliverables: [{ deliverable: beans, amount: 50 }]
`),
    ).toEqual([]);
    const parsed = parse('  - { uid: m, label: M, steps: [{ uid: s1, label: S, condition: { action: order } }] }\n');
    expect(parsed.ok && parsed.catalog.missions[0]).toMatchObject({
      startDate: null,
      endDate: null,
      requires: { badge: null, level: null },
      ordered: false,
      repeat: 'None',
      points: 0,
      deliverables: [],
    });
  });

  const step = '{ uid: s1, label: S, condition: { action: order } }';
  it.each([
    [`  - { uid: m, label: M, steps: [] }`, 'missions[0].steps: at least one step is required'],
    [`  - { uid: m, label: M, repeat: Monthly, steps: [${step}] }`, 'missions[0].repeat'],
    [`  - { uid: m, label: M, steps: [${step}, ${step}] }`, 'missions[0].steps[1].uid: duplicate step uid "s1"'],
    [
      `  - { uid: m, label: M, steps: [{ uid: s1, label: S, condition: { action: nope } }] }`,
      'missions[0].steps[0].condition.action: unknown action "nope"',
    ],
    [
      `  - { uid: m, label: M, steps: [{ uid: s1, label: S, condition: { action: order, challenge: { sum: { field: qty, atLeast: 3 } } } }] }`,
      'missions[0].steps[0].condition.challenge.sum.field: "qty" is not a Number actionObject',
    ],
    [`  - { uid: m, label: M, requires: { badge: beans }, steps: [${step}] }`, 'missions[0].requires.badge'],
    [
      `  - { uid: m, label: M, requires: { badge: null, level: 0 }, steps: [${step}] }`,
      'missions[0].requires.level: must be at least 1',
    ],
    [
      `  - { uid: m, label: M, requires: { level: 7 }, steps: [${step}] }`,
      'missions[0].requires.level: no level 7 in levels',
    ],
    [
      `  - { uid: m, label: M, startDate: 2026-02-01T00:00:00, endDate: 2026-01-01T00:00:00, steps: [${step}] }`,
      'missions[0]',
    ],
    [
      `  - { uid: m, label: M, steps: [${step}], deliverables: [{ deliverable: gems, amount: 1 }] }`,
      'missions[0].deliverables[0].deliverable: unknown deliverable "gems"',
    ],
    [`  - { uid: beans, label: M, steps: [${step}] }`, 'missions[0].uid: duplicate uid "beans"'],
  ])('refuses %s', (yaml, problem) => {
    expect(problemsOf(yaml).join('\n')).toContain(problem);
  });
});
