/** The streaks section (docs/catalog.md, "streaks"): what the schema and the cross-entry checks refuse. */
import { parseCatalog } from './load';

describe('streaks', () => {
  const problemsOf = (streaks: string) => {
    const parsed = parseCatalog(
      `version: 1\ndeliverables: [{ uid: beans, label: Beans, type: Prize }]\nactions: [{ uid: act-order, identifier: order }]\nstreaks:\n${streaks}`,
      'streaks.yaml',
    );
    return parsed.ok ? [] : parsed.problems;
  };

  it('accepts a streak with conditions, freezes and milestones', () => {
    expect(
      problemsOf(
        '  - { uid: s, label: S, period: Day, conditions: [{ action: order }], freezes: { max: 2, earnEvery: 7 }, milestones: [{ length: 3 }, { length: 7, points: 5, deliverables: [{ deliverable: beans, amount: 1 }] }] }',
      ),
    ).toEqual([]);
  });

  it.each([
    ['  - { uid: s, label: S, period: Month, conditions: [{ action: order }] }', 'streaks[0].period'],
    [
      '  - { uid: s, label: S, period: Day, conditions: [] }',
      'streaks[0].conditions: at least one condition is required',
    ],
    ['  - { uid: s, label: S, period: Day, conditions: [{ action: order, challenge: { times: 2 } }] }', 'challenge'],
    [
      '  - { uid: s, label: S, period: Day, conditions: [{ action: nope }] }',
      'streaks[0].conditions[0].action: unknown action "nope"',
    ],
    [
      '  - { uid: s, label: S, period: Day, conditions: [{ action: act-order }] }',
      'is an action uid; name the action identifier "order"',
    ],
    [
      '  - { uid: s, label: S, period: Day, conditions: [{ action: order }], freezes: { max: 0, earnEvery: 7 } }',
      'streaks[0].freezes.max: must be at least 1',
    ],
    [
      '  - { uid: s, label: S, period: Day, conditions: [{ action: order }], milestones: [{ length: 3 }, { length: 3 }] }',
      'streaks[0].milestones[1].length: duplicate milestone length 3',
    ],
    [
      '  - { uid: s, label: S, period: Day, conditions: [{ action: order }], milestones: [{ length: 3, deliverables: [{ deliverable: gems, amount: 1 }] }] }',
      'streaks[0].milestones[0].deliverables[0].deliverable: unknown deliverable "gems"',
    ],
    [
      '  - { uid: beans, label: S, period: Day, conditions: [{ action: order }] }',
      'streaks[0].uid: duplicate uid "beans"',
    ],
  ])('refuses %s', (yaml, problem) => {
    expect(problemsOf(yaml).join('\n')).toContain(problem);
  });
});
