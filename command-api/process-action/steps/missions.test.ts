/** The missions step: given a player's position in a mission, the move an action makes, and the move as recorded with its completion's grants. */
import { indexCatalog } from '../../../domain/catalog/catalog-index';
import { grantOf } from '../../../domain/rules/grants';
import { catalogOf, playerSpec, T0 } from '../../../test/support/player-spec';
import { missionMovesRecorded, missionStepsOf } from './missions';

const catalog = catalogOf(`
  version: 1
  deliverables:
    - { uid: beans, label: Beans, type: Prize, kind: Currency }
  actions:
    - { identifier: check_in }
    - { identifier: order }
    - { identifier: browse }
  missions:
    - uid: m-start
      label: Start
      ordered: false
      steps:
        - { uid: s1, label: Check in, condition: { action: check_in } }
        - { uid: s2, label: Order, condition: { action: order } }
      points: 100
      deliverables: [{ deliverable: beans, amount: 50 }]
`);
const action = (name: string, referenceId: string) => ({ name, referenceId, timestamp: T0 });

describe('the missions step', () => {
  it('counts the step the action matches; the last step completes the mission; another action moves nothing', () => {
    const p = playerSpec(catalog);
    const [first] = missionStepsOf(catalog, p.state, action('check_in', 'r1'), new Map(), 'UTC');
    expect(first).toMatchObject({ matches: [{ step: 0, value: 0 }], counted: [0], completes: false });
    p.process('check_in', { ref: 'r1' });
    const [last] = missionStepsOf(catalog, p.state, action('order', 'r2'), new Map(), 'UTC');
    expect(last).toMatchObject({ matches: [{ step: 1, value: 0 }], counted: [1], completes: true });
    expect(missionStepsOf(catalog, p.state, action('browse', 'r2'), new Map(), 'UTC')).toEqual([]);
  });

  it('records the move with the completed steps and the completion given its grants as granted', () => {
    const p = playerSpec(catalog);
    p.process('check_in', { ref: 'r1' });
    const steps = missionStepsOf(catalog, p.state, action('order', 'r2'), new Map(), 'UTC');
    const grant = grantOf(indexCatalog(catalog).deliverableByUid.get('beans')!, 50);
    expect(missionMovesRecorded(steps, [[grant]])).toEqual([
      expect.objectContaining({
        uid: 'm-start',
        counted: [1],
        completedSteps: [0, 1],
        completion: { points: 100, grants: [grant] },
      }),
    ]);
  });
});
