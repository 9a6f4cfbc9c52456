/** The registration step: given an unknown player, the registration their first action makes, and the player it leaves. */
import { catalogOf, playerSpec } from '../../../test/support/player-spec';
import { autoRegistration, registeredPlayer } from './registration';

const game = (autoRegister: boolean) =>
  catalogOf(`
    version: 1
    settings: { autoRegisterPlayers: ${autoRegister} }
    deliverables:
      - { uid: gold, label: Gold, type: Prize, kind: Currency }
    actions: [{ identifier: play }]
    levels: [{ uid: l1, label: L1, level: 1, target: 0, deliverables: [{ deliverable: gold, amount: 10 }] }]
  `);

describe('the registration step', () => {
  it('registers an unknown player where the catalog says so, with what the first level grants', () => {
    const catalog = game(true);
    const p = playerSpec(catalog);
    const registration = autoRegistration(catalog, p.state, p.state.playerId, p.env);
    if (!registration?.ok) throw new Error('expected a registration');
    const player = registeredPlayer(p.state, registration.value);
    expect(player.balances.get('gold')).toBe(10);
    expect(player.levelsReached.get('l1')).toBe(1);
    expect(p.state.balances.get('gold')).toBeUndefined();
  });

  it('registers no one where the catalog does not, nor a known player', () => {
    const p = playerSpec(game(false));
    expect(autoRegistration(p.catalog, p.state, p.state.playerId, p.env)).toBeNull();
    const known = playerSpec(game(true));
    known.process('play');
    expect(autoRegistration(known.catalog, known.state, known.state.playerId, known.env)).toBeNull();
  });
});
