/** The streaks step: given a player's run, the step an action makes in it, and the step as recorded with its milestones' grants. */
import { indexCatalog } from '../../../domain/catalog/catalog-index';
import { grantOf } from '../../../domain/rules/grants';
import { catalogOf, DAY, playerSpec, T0 } from '../../../test/support/player-spec';
import { streakMovesOf, streakStepsRecorded } from './streaks';

const catalog = catalogOf(`
  version: 1
  deliverables:
    - { uid: beans, label: Beans, type: Prize, kind: Currency }
  actions:
    - { identifier: order }
    - { identifier: browse }
  streaks:
    - uid: s-daily
      label: Daily order
      period: Day
      conditions: [{ action: order }]
      milestones: [{ length: 2, points: 10, deliverables: [{ deliverable: beans, amount: 3 }] }]
`);
const order = (timestamp: number) => ({ name: 'order', timestamp });

describe('the streaks step', () => {
  it("extends the player's run on the next day and reaches its milestone; counts nothing for another action", () => {
    const p = playerSpec(catalog);
    p.process('order', { at: T0 });
    const [move] = streakMovesOf(catalog, p.state, order(T0 + DAY), new Map(), 'UTC');
    expect(move.step.run.length).toBe(2);
    expect(move.step.extended).toBe(true);
    expect(move.milestones.map((m) => m.length)).toEqual([2]);
    expect(streakMovesOf(catalog, p.state, { name: 'browse', timestamp: T0 + DAY }, new Map(), 'UTC')).toEqual([]);
  });

  it('records each move with its milestones given the grants as granted, in order', () => {
    const p = playerSpec(catalog);
    p.process('order', { at: T0 });
    const moves = streakMovesOf(catalog, p.state, order(T0 + DAY), new Map(), 'UTC');
    const grant = grantOf(indexCatalog(catalog).deliverableByUid.get('beans')!, 2);
    const [recorded] = streakStepsRecorded(moves, [[grant]]);
    expect(recorded).toMatchObject({ uid: 's-daily', length: 2, longest: 2, extended: true, freezesUsed: 0 });
    expect(recorded.milestones).toEqual([{ length: 2, points: 10, grants: [grant] }]);
  });
});
