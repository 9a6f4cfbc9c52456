import { decideRegisterPlayer } from '../register-player/decider';
import { decideUpdatePlayer } from '../update-player/decider';
import { catalogOf, PLAYER, playerSpec, T0, testEnv } from '../../test/support/player-spec';

const catalog = catalogOf(`
  version: 1
  actions: [{ identifier: score, points: 10 }]
  leaderboards:
    - { uid: lb-country, label: By country, type: 0, scope: country }
    - { uid: lb-teams, label: Teams, type: 0, scope: team, aggregate: sum }
`);

function registered(attributes: Record<string, string>) {
  const p = playerSpec(catalog);
  const decided = decideRegisterPlayer({ playerId: PLAYER, attributes }, p.state, { ...testEnv(), catalog });
  if (!decided.ok) throw new Error(decided.failure.message);
  p.apply(decided.value);
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
    const moved = decideUpdatePlayer({ playerId: PLAYER, attributes: { team: 'blue', country: null } }, p.state, {
      ...testEnv(T0),
      catalog,
    });
    if (!moved.ok) throw new Error(moved.failure.message);
    p.apply(moved.value);
    expect(p.process('score').attributes).toEqual({ team: 'blue' });
    expect(before.attributes).toEqual({ country: 'DE', team: 'red' });
  });

  it('given a player without any of them, the action records none', () => {
    const p = registered({ tier: 'gold' });
    expect(p.process('score')).not.toHaveProperty('attributes');
  });
});
