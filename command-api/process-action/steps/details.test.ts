/** The details step: given an action's details, them by name, and the first a rule sums out of range. */
import { catalogOf } from '../../../test/support/player-spec';
import { detailOutOfRange, detailsByName } from './details';

const catalog = catalogOf(`
  version: 1
  actions:
    - { identifier: buy, actionObjects: [{ label: amount, type: Number }] }
  badges:
    - { uid: b-sum, label: Spent 100, type: OneTimeOnly, conditions: [{ action: buy, challenge: { sum: { field: amount, atLeast: 100 } } }] }
`);

describe('the details step', () => {
  it('holds the details by name, the last of a name winning', () => {
    expect(
      detailsByName([
        { name: 'amount', value: '1' },
        { name: 'amount', value: '2' },
      ]),
    ).toEqual(new Map([['amount', '2']]));
  });

  it('names a summed detail outside the amounts the engine holds; none when in range', () => {
    expect(detailOutOfRange(catalog, 'buy', detailsByName([{ name: 'amount', value: '1e300' }]))).toMatch(
      /"amount" is 1e\+300, outside the range/,
    );
    expect(detailOutOfRange(catalog, 'buy', detailsByName([{ name: 'amount', value: '50' }]))).toBeNull();
  });
});
