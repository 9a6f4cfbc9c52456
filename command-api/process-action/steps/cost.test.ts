/** The cost step: given a player's balance, what a counted action charges, or its refusal. */
import { indexCatalog } from '../../../domain/catalog/catalog-index';
import { catalogOf, failureOf, playerSpec } from '../../../test/support/player-spec';
import { costOf } from './cost';

const catalog = catalogOf(`
  version: 1
  deliverables:
    - { uid: gold, label: Gold, type: Prize, kind: Currency }
  actions:
    - { identifier: mine, deliverables: [{ deliverable: gold, amount: 10 }] }
    - { identifier: spin, cost: 4, costDeliverable: gold }
`);
const index = indexCatalog(catalog);
const spin = index.actionByIdentifier.get('spin')!;

describe('the cost step', () => {
  it('charges a counted action its cost in its currency, under a new provision uid', () => {
    const p = playerSpec(catalog);
    p.process('mine');
    const cost = costOf(spin, p.state, index.deliverableByUid, true, p.env);
    expect(cost).toEqual({
      ok: true,
      value: { deliverableUid: 'gold', label: 'Gold', amount: 4, provisionUid: expect.any(String) },
    });
  });

  it('refuses an action the player cannot pay', () => {
    const p = playerSpec(catalog);
    expect(failureOf(costOf(spin, p.state, index.deliverableByUid, true, p.env)).message).toMatch(/costs 4 Gold/);
  });

  it('charges nothing for a free action, or one that does not count', () => {
    const p = playerSpec(catalog);
    expect(costOf(index.actionByIdentifier.get('mine')!, p.state, index.deliverableByUid, true, p.env)).toEqual({
      ok: true,
      value: null,
    });
    expect(costOf(spin, p.state, index.deliverableByUid, false, p.env)).toEqual({ ok: true, value: null });
  });
});
