import { registerPlayerDecider } from '../register-player/decider';
import { updatePlayerDecider } from '../update-player/decider';
import { deciderSpec } from '../../test/support/decider-spec';
import { catalogOf, PLAYER, playerSpec, succeeded, T0, testEnv } from '../../test/support/player-spec';

/** A registration and an update as their handlers decide them: on the player read from their stream. */
const registering = deciderSpec(registerPlayerDecider);
const updating = deciderSpec(updatePlayerDecider);

const catalog = catalogOf(`
  version: 1
  actions: [{ identifier: score, points: 10 }]
  leaderboards:
    - { uid: lb-country, label: By country, type: 0, scope: country }
    - { uid: lb-teams, label: Teams, type: 0, scope: team, aggregate: sum }
`);

function registered(attributes: Record<string, string>) {
  const p = playerSpec(catalog);
  succeeded(p.when(registering, { playerId: PLAYER, attributes }, { ...testEnv(), catalog }));
  return p;
}

describe('the leaderboard scopes an action counts on', () => {
  it('given a player with attributes, the action records those the boards are scoped by, as they are now', () => {
    const p = registered({ country: 'DE', team: 'red', tier: 'gold' });
    expect(p.process('score').attributes).toEqual({ country: 'DE', team: 'red' });
  });

  it('when the player changes team, later actions record the new team and earlier ones keep the old', () => {
    const p = registered({ country: 'DE', team: 'red' });
    const before = p.process('score');
    succeeded(
      p.when(updating, { playerId: PLAYER, attributes: { team: 'blue', country: null } }, { ...testEnv(T0), catalog }),
    );
    expect(p.process('score').attributes).toEqual({ team: 'blue' });
    expect(before.attributes).toEqual({ country: 'DE', team: 'red' });
  });

  it('given a player without any of them, the action records none', () => {
    const p = registered({ tier: 'gold' });
    expect(p.process('score')).not.toHaveProperty('attributes');
  });
});
