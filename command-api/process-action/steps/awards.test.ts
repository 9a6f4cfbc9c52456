/** The badges and triggers step: given a player's progress, what an action adds to it and the awards it earns. */
import { indexCatalog } from '../../../domain/catalog/catalog-index';
import { catalogOf, playerSpec, T0 } from '../../../test/support/player-spec';
import { awardsOf } from './awards';

const catalog = catalogOf(`
  version: 1
  deliverables:
    - { uid: gold, label: Gold, type: Prize, kind: Currency }
  actions:
    - { identifier: play }
  badges:
    - { uid: b-twice, label: Twice, type: OneTimeOnly, points: 5, conditions: [{ action: play, challenge: { times: 2 } }], deliverables: [{ deliverable: gold, amount: 1 }] }
  triggers:
    - { uid: t-first, label: First, type: OneTimeOnly, points: 1, conditions: [{ action: play }], limited: true, limit: 10 }
`);
const deliverables = indexCatalog(catalog).deliverableByUid;
const action = (referenceId: string) => ({ name: 'play', referenceId, timestamp: T0 });

describe('the badges and triggers step', () => {
  it('adds an entry to each condition the action meets; awards the trigger with activations left, the badge once its challenge holds', () => {
    const p = playerSpec(catalog);
    const env = { ...p.env, catalog };
    const first = awardsOf(action('r1'), p.state, env, new Map(), deliverables, new Map([['t-first', 0]]));
    expect(first.progress).toEqual([
      { rule: 'b-twice', condition: 0, entry: { ref: 'r1', ts: T0, value: 0 } },
      { rule: 't-first', condition: 0, entry: { ref: 'r1', ts: T0, value: 0 } },
    ]);
    expect(first.awards.map((a) => [a.uid, a.points, a.limited])).toEqual([['t-first', 1, true]]);

    p.process('play', { ref: 'r1' });
    const second = awardsOf(action('r2'), p.state, env, new Map(), deliverables, new Map([['t-first', 1]]));
    expect(second.awards.map((a) => [a.uid, a.points, a.grants.map((g) => [g.uid, g.amount])])).toEqual([
      ['b-twice', 5, [['gold', 1]]],
    ]);
    expect(second.awards[0].consumed).toEqual([
      [expect.objectContaining({ ref: 'r1' }), expect.objectContaining({ ref: 'r2' })],
    ]);
  });

  it('does not fire a limited trigger with no activation left', () => {
    const p = playerSpec(catalog);
    const outcome = awardsOf(
      action('r1'),
      p.state,
      { ...p.env, catalog },
      new Map(),
      deliverables,
      new Map([['t-first', 10]]),
    );
    expect(outcome.awards).toEqual([]);
    expect(outcome.progress).toHaveLength(2);
  });
});
