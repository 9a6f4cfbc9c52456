import { catalogOf, DAY, playerSpec, T0 } from '../../test/support/player-spec';
import { summarizeEvent } from './events';

const catalog = catalogOf(`
  version: 1
  actions:
    - { identifier: order, points: 10, caps: [{ period: Day, points: 15 }] }
  streaks:
    - { uid: s-daily, label: Daily, period: Day, conditions: [{ action: order }], freezes: { max: 1, earnEvery: 1 }, milestones: [{ length: 2, points: 1 }] }
`);

describe('the summary of an event in a trace', () => {
  it("shows a freeze used, a milestone and a cap's cut; a reversal shows the milestone taken back", () => {
    const p = playerSpec(catalog);
    p.process('order', { ref: 'a', at: T0 });
    p.process('order', { ref: 'b', at: T0 + 2 * DAY + 1 });
    p.process('order', { ref: 'c', at: T0 + 2 * DAY + 2 });
    const summaries = p.recorded.map(summarizeEvent);
    expect(summaries[2]).toBe('order ref b, streak s-daily length 2 (1 freeze used) milestone 2 [points +11]');
    expect(summaries[3]).toBe('order ref c, streak s-daily length 2, capped: points 15 a Day [points +5]');
    p.reverse('b');
    expect(summarizeEvent(p.recorded[4])).toContain('revoked milestone 2 of streak s-daily of b');
  });
});

describe('the summary of an action in a mission', () => {
  it('shows the steps completed and the completion; a reversal shows the completion taken back', () => {
    const p = playerSpec(
      catalogOf(`
        version: 1
        actions: [{ identifier: check_in }, { identifier: order }]
        missions:
          - { uid: m, label: M, points: 5, steps: [{ uid: s1, label: S1, condition: { action: check_in } }, { uid: s2, label: S2, condition: { action: order } }] }
      `),
    );
    p.process('check_in', { ref: 'a' });
    p.process('order', { ref: 'b' });
    expect(p.recorded.map(summarizeEvent).slice(1)).toEqual([
      'check_in ref a, mission m 1/2',
      'order ref b, mission m 2/2 completed [points +5]',
    ]);
    p.reverse('b');
    expect(summarizeEvent(p.recorded[3])).toContain('revoked mission m of b');
  });
});
