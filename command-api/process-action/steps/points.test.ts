/** The points step: given a player's last points for an action, whether it earns its own, its grants, and the points the decision earns. */
import { indexCatalog } from '../../../domain/catalog/catalog-index';
import { catalogOf, playerSpec, SECOND, T0 } from '../../../test/support/player-spec';
import { actionGrantsOf, earnedPointsOf, pointsAwardedFor } from './points';

const catalog = catalogOf(`
  version: 1
  deliverables:
    - { uid: gold, label: Gold, type: Prize, kind: Currency }
  actions:
    - { identifier: post, points: 10, pointGap: 60, deliverables: [{ deliverable: gold, amount: 2 }] }
`);
const index = indexCatalog(catalog);
const post = index.actionByIdentifier.get('post')!;

describe('the points step', () => {
  it('awards the action its points out of its pointGap since it last earned them, and only when it counts', () => {
    const p = playerSpec(catalog);
    expect(pointsAwardedFor(post, p.state, T0, true)).toBe(true);
    expect(pointsAwardedFor(post, p.state, T0, false)).toBe(false);
    p.process('post', { at: T0 });
    expect(pointsAwardedFor(post, p.state, T0 + 59 * SECOND, true)).toBe(false);
    expect(pointsAwardedFor(post, p.state, T0 + 60 * SECOND, true)).toBe(true);
  });

  it("grants the action's deliverables times its multiplier; none when it does not count", () => {
    expect(actionGrantsOf(post, index.deliverableByUid, 3, true)).toEqual([
      expect.objectContaining({ uid: 'gold', amount: 6 }),
    ]);
    expect(actionGrantsOf(post, index.deliverableByUid, 3, false)).toEqual([]);
  });

  it("earns the action's points and every award's, milestone's and completion's", () => {
    expect(earnedPointsOf(10, [{ points: 5 }, { points: 1 }], [{ points: 20 }], [{ points: 100 }])).toBe(136);
    expect(earnedPointsOf(0, [], [], [])).toBe(0);
  });
});
