/** The experiments step of a decision: given the experiments a player joined, those an action is decided under and those it joins them to. */
import { catalogOf, DAY, playerSpec, T0 } from '../../test/support/player-spec';
import { experimentsOfAction, variantFor } from './experiments';

const catalog = catalogOf(`
  version: 1
  actions: [{ uid: act-share, identifier: share, points: 10 }]
  experiments:
    - uid: exp
      label: Double share points
      startDate: "2026-06-01T00:00:00"
      endDate: "2026-06-02T00:00:00"
      variants:
        - { uid: control, weight: 50 }
        - { uid: double, weight: 50, patch: { actions: { act-share: { points: 20 } } } }
`);

describe('the experiments step', () => {
  it("joins a new player to the rule's variant in the window, keeps a joined one in theirs, and decides outside it on the base game", () => {
    const p = playerSpec(catalog);
    const playerId = p.state.playerId;
    const variant = variantFor({ uid: 'exp', variants: catalog.experiments[0].variants }, playerId).uid;
    expect(experimentsOfAction(catalog, p.state, playerId, T0)).toEqual({
      joins: [{ experimentUid: 'exp', variantUid: variant }],
      inForce: [{ uid: 'exp', variant }],
    });
    p.process('share', { at: T0 });
    expect(experimentsOfAction(catalog, p.state, playerId, T0 + 1000)).toEqual({
      joins: [],
      inForce: [{ uid: 'exp', variant }],
    });
    expect(experimentsOfAction(catalog, p.state, playerId, T0 + 2 * DAY)).toEqual({ joins: [], inForce: [] });
  });
});
