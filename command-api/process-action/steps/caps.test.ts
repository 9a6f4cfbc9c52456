/** The caps step: given a player's uses of an action's allowances, the times cap reached, what the answer reports and the allowances used. */
import { indexCatalog } from '../../../domain/catalog/catalog-index';
import { timesCapReached } from '../../../domain/rules/caps';
import { catalogOf, DAY, playerSpec, T0 } from '../../../test/support/player-spec';
import { allowancesUsed, capsReported } from './caps';

const catalog = catalogOf(`
  version: 1
  actions:
    - { identifier: watch_ad, points: 10, caps: [{ period: Day, times: 2 }, { period: Week, points: 15 }] }
`);
const watchAd = indexCatalog(catalog).actionByIdentifier.get('watch_ad')!;
const clock = (timestamp: number) => ({ timestamp, timeZone: 'UTC' });

describe('the caps step', () => {
  it('given two actions today, the times cap is reached today, not tomorrow', () => {
    const p = playerSpec(catalog);
    expect(timesCapReached(watchAd, p.state, clock(T0))).toBeNull();
    p.repeat(2, 'watch_ad');
    expect(timesCapReached(watchAd, p.state, clock(T0))).toMatchObject({ period: 'Day', times: 2 });
    expect(timesCapReached(watchAd, p.state, clock(T0 + DAY))).toBeNull();
  });

  it('reports the times cap reached alone, else the points and earn cuts in order, else nothing', () => {
    const timesCap = watchAd.caps[0];
    const points = { period: 'Week' as const, kind: 'points' as const, limit: 15 };
    const earn = { period: 'Day' as const, kind: 'earn' as const, limit: 3, deliverable: 'beans' };
    expect(capsReported(timesCap, [points], [earn])).toEqual([{ period: 'Day', kind: 'times', limit: 2 }]);
    expect(capsReported(null, [points], [earn])).toEqual([points, earn]);
    expect(capsReported(null, [], [])).toBeNull();
  });

  it("a counted action uses one of each times allowance, then the points and earn caps' uses; an action that does not count uses none", () => {
    const pointsUse = { kind: 'points' as const, of: 'watch_ad', period: 'Week' as const, ordinal: 1, used: 10 };
    expect(allowancesUsed(watchAd, clock(T0), true, [pointsUse], [])).toEqual([
      expect.objectContaining({ kind: 'times', of: 'watch_ad', period: 'Day', used: 1 }),
      pointsUse,
    ]);
    expect(allowancesUsed(watchAd, clock(T0), false, [pointsUse], [])).toEqual([]);
  });
});
