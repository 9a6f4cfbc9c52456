/** The levels step of a decision: given the levels a player holds, the levels a points total newly reaches. */
import { catalogOf, playerSpec } from '../../test/support/player-spec';
import { levelsReachedAt } from './levels';

const catalog = catalogOf(`
  version: 1
  deliverables: [{ uid: gold, label: Gold, type: Prize, kind: Currency }]
  actions: [{ identifier: play, points: 10 }]
  levels:
    - { uid: l1, label: L1, level: 1, target: 0 }
    - { uid: l3, label: L3, level: 3, target: 50 }
    - { uid: l2, label: L2, level: 2, target: 10, deliverables: [{ deliverable: gold, amount: 5 }] }
`);

describe('the levels step', () => {
  it('reaches every level not held whose target the total meets, lowest first, each with its grants', () => {
    const p = playerSpec(catalog);
    p.process('play');
    expect([...p.state.levelsReached.keys()].sort()).toEqual(['l1', 'l2']);
    expect(levelsReachedAt(catalog, p.state, 10)).toEqual([]);
    const reached = levelsReachedAt(catalog, p.state, 60);
    expect(reached.map((l) => [l.uid, l.level, l.grants.length])).toEqual([['l3', 3, 0]]);
    expect(
      levelsReachedAt(catalog, playerSpec(catalog).state, 60).map((l) => [l.uid, l.grants.map((g) => g.amount)]),
    ).toEqual([
      ['l1', []],
      ['l2', [5]],
      ['l3', []],
    ]);
  });
});
