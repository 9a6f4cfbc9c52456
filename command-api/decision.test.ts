/**
 * The decider contract holds the state read-only all the way down. The compile-time half of this
 * file is checked by the typecheck `npm test` runs first (and by ts-jest): each line marked
 * `@ts-expect-error` must fail to compile, or the typecheck fails.
 */
import { mutableCopy } from '../domain/deep-readonly';
import type { ProvisionCost } from '../domain/events/provision-events';
import type { PlayerState } from '../domain/player/state';
import { ok } from '../domain/result';
import { decision, type Decider } from './decision';

const changesItsState: Decider<{ referenceId: string }, PlayerState, null> = (cmd, state) => {
  // @ts-expect-error a field of the state
  state.points = 1;
  // @ts-expect-error a list of the state
  state.holdings.pop();
  // @ts-expect-error a map of the state
  state.balances.set('coins', 1);
  const provision = state.provisions.get(cmd.referenceId)!;
  // @ts-expect-error an object inside a map of the state
  provision.cost.amount = 0;
  // @ts-expect-error a list inside an object inside a map of the state
  provision.contents.pop();
  return ok(decision(null, []));
};
// Never run: it exists for the compiler's errors above.
void changesItsState;

describe('the decider contract', () => {
  it("gives a new event data of the state's as a copy, which changing leaves the state as it was", () => {
    const cost: ProvisionCost = {
      deliverableUid: 'coins',
      label: 'Coins',
      amount: 5,
      lots: [{ deliverableUid: 'coins', expiresAt: 9, amount: 5 }],
    };
    const copy = mutableCopy<ProvisionCost>(cost);
    copy.lots!.push({ deliverableUid: 'coins', expiresAt: 10, amount: 1 });
    copy.amount = 6;
    expect(cost).toEqual({
      deliverableUid: 'coins',
      label: 'Coins',
      amount: 5,
      lots: [{ deliverableUid: 'coins', expiresAt: 9, amount: 5 }],
    });
    expect(copy.lots).toHaveLength(2);
  });
});
