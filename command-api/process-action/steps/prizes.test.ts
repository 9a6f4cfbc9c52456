/** The prizes step: given a player's powerups and earn allowances, what each source of a decision grants as received, and the decision's effects. */
import { indexCatalog } from '../../../domain/catalog/catalog-index';
import { grantOf } from '../../../domain/rules/grants';
import { activated, catalogOf, playerSpec, T0 } from '../../../test/support/player-spec';
import { effectsOfAction, prizesOf } from './prizes';

const catalog = catalogOf(`
  version: 1
  deliverables:
    - { uid: gold, label: Gold, type: Prize, kind: Currency }
    - { uid: beans, label: Beans, type: Prize, kind: Currency, earnCaps: [{ period: Day, amount: 3 }] }
    - { uid: boost, label: Double gold, type: Prize, kind: Powerup, powerup: { multiplier: 2, neverExpires: true, targetPrizes: [gold] } }
  actions:
    - { identifier: get-boost, deliverables: [{ deliverable: boost, amount: 1 }] }
`);
const deliverables = indexCatalog(catalog).deliverableByUid;
const gold = (amount: number) => grantOf(deliverables.get('gold')!, amount);
const beans = (amount: number) => grantOf(deliverables.get('beans')!, amount);
const clock = { timestamp: T0, timeZone: 'UTC' };
const award = (grants: ReturnType<typeof gold>[]) => ({
  kind: 'badge' as const,
  uid: 'b',
  label: 'B',
  ruleType: 'OneTimeOnly' as const,
  rank: null,
  points: 0,
  imageName: null,
  grants,
  consumed: [],
  limited: false,
});
const withBeans = { deliverables: [{ deliverable: 'beans', amount: 2 }] };

describe('the prizes step', () => {
  it('hands each source its grants: the earn cap cuts them in order, across sources', () => {
    const p = playerSpec(catalog);
    const prizes = prizesOf(p.state, p.env, deliverables, clock, [beans(2)], [award([gold(1)])], [], [withBeans], []);
    expect(prizes.actionGrants.map((g) => g.amount)).toEqual([2]);
    expect(prizes.awards[0].grants).toEqual([gold(1)]);
    expect(prizes.milestoneGrants).toEqual([[beans(1)]]);
    expect(prizes.all).toEqual([beans(2), gold(1), beans(1)]);
    expect(prizes.earnCuts).toEqual([{ period: 'Day', kind: 'earn', limit: 3, deliverable: 'beans' }]);
    expect(prizes.earnUses).toEqual([expect.objectContaining({ kind: 'earn', of: 'beans', used: 3 })]);
    expect(prizes.powerupUses).toEqual([]);
  });

  it('multiplies the target prizes of an activated powerup, which is used once', () => {
    const p = playerSpec(catalog);
    p.process('get-boost');
    const [instance] = p.state.powerups.keys();
    p.given(activated(instance, p.env.now));
    const prizes = prizesOf(p.state, p.env, deliverables, clock, [gold(5), beans(1)], [], [], [], []);
    expect(prizes.actionGrants.map((g) => [g.uid, g.amount])).toEqual([
      ['gold', 10],
      ['beans', 1],
    ]);
    expect(prizes.powerupUses).toEqual([instance]);
  });

  it("makes the decision's effects: what it grants, its points, the cost taken and the powerups used", () => {
    const p = playerSpec(catalog);
    const cost = { deliverableUid: 'gold', label: 'Gold', amount: 4, provisionUid: 'p1' };
    const effects = effectsOfAction(catalog, { all: [gold(10)], powerupUses: ['boost-1'] }, 7, cost, p.env, clock);
    expect(effects).toEqual({
      ok: true,
      value: expect.objectContaining({
        points: 7,
        balances: [{ deliverableUid: 'gold', amount: 6 }],
        powerupUses: [{ uid: 'boost-1', uses: 1 }],
      }),
    });
  });
});
