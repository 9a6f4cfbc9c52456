import { noEffects } from '../../domain/events/common';
import { playerStream } from '../../domain/streams';
import { catalogOf, PLAYER, playerSpec, T0, testEnv } from '../../test/support/player-spec';
import { registerPlayerDecider } from '../register-player/decider';
import { deciderSpec } from '../../test/support/decider-spec';
import { updatePlayerDecider } from './decider';

/** The update as its handler decides it: on the player's state read from their stream. */
const updating = deciderSpec(updatePlayerDecider);
const registering = deciderSpec(registerPlayerDecider);

const catalog = catalogOf(`
  version: 1
  settings: { timezone: Europe/Berlin }
  actions: [{ identifier: login }]
`);

type Fields = {
  username?: string;
  imageName?: string | null;
  timeZone?: string;
  attributes?: Record<string, string | null>;
};

/** A spec whose player registered through /v1/player/create with these fields (the registration checked written). */
function registered(fields: Fields = {}, written: Record<string, unknown> = {}) {
  const p = playerSpec(catalog);
  p.deciding(registering, { playerId: PLAYER, ...fields }, { ...testEnv(), catalog }).thenWrites({
    [playerStream(PLAYER)]: [
      {
        type: 'PlayerRegistered',
        data: {
          playerId: PLAYER,
          username: fields.username ?? PLAYER,
          imageName: fields.imageName ?? null,
          registeredAt: T0,
          levels: [],
          effects: noEffects(),
          ...written,
        },
      },
    ],
  });
  return p;
}

/** The PlayerUpdated an update writes: the player's fields as they are after it. */
const updated = (
  fields: { username: string; imageName: string | null; timeZone: string | null; attributes?: Record<string, string> },
  at = T0,
) => ({
  [playerStream(PLAYER)]: [
    {
      type: 'PlayerUpdated',
      data: { playerId: PLAYER, attributes: {}, ...fields, updatedAt: at, effects: noEffects() },
    },
  ],
});

describe("a player's time zone", () => {
  it("given a registration with a time zone, the player's calendar is in it", () => {
    const p = registered({ username: 'Ada', timeZone: 'Pacific/Auckland' }, { timeZone: 'Pacific/Auckland' });
    expect([p.state.username, p.state.timeZone]).toEqual(['Ada', 'Pacific/Auckland']);
  });

  it('given a registration without one, the player has none of their own', () => {
    const p = registered();
    expect(p.state.timeZone).toBeNull();
  });

  it('when only the time zone is updated, the name and picture stay', () => {
    const p = registered({ username: 'Ada', imageName: 'https://img/ada.png' });
    p.deciding(
      updating,
      { playerId: PLAYER, timeZone: 'Pacific/Kiritimati' },
      { ...testEnv(T0 + 5), catalog },
    ).thenWrites(
      updated({ username: 'Ada', imageName: 'https://img/ada.png', timeZone: 'Pacific/Kiritimati' }, T0 + 5),
    );
    expect([p.state.username, p.state.imageName, p.state.timeZone]).toEqual([
      'Ada',
      'https://img/ada.png',
      'Pacific/Kiritimati',
    ]);
  });

  it("when the name is changed, the picture removed and the zone set to null, the player goes back to the catalog's zone", () => {
    const p = registered(
      { username: 'Ada', imageName: 'https://img/ada.png', timeZone: 'Pacific/Pago_Pago' },
      { timeZone: 'Pacific/Pago_Pago' },
    );
    const decision = p
      .deciding(
        updating,
        { playerId: PLAYER, username: 'Grace', imageName: null, timeZone: null },
        { ...testEnv(T0), catalog },
      )
      .thenWrites(updated({ username: 'Grace', imageName: null, timeZone: null }));
    expect(decision.answer).toMatchObject({ username: 'Grace', imageName: null, timeZone: null });
    expect([p.state.username, p.state.imageName, p.state.timeZone]).toEqual(['Grace', null, null]);
  });

  it('when an unknown player is updated, 5003 and nothing is written', () => {
    updating
      .given()
      .when({ playerId: PLAYER, timeZone: 'UTC' }, { ...testEnv(T0), catalog })
      .thenFails(5003, 'PlayerId does not exist');
  });

  it("the update is written to the player's stream only", () => {
    const given = { [playerStream(PLAYER)]: registered().recorded };
    updating
      .given(given)
      .when({ playerId: PLAYER, username: 'x' }, { ...testEnv(T0), catalog })
      .thenWrites(updated({ username: 'x', imageName: null, timeZone: null }));
  });
});

describe("a player's attributes", () => {
  it('given a registration with attributes, nulls are left out and the rest recorded', () => {
    const p = registered({ attributes: { country: 'DE', team: null } }, { attributes: { country: 'DE' } });
    expect(p.state.attributes).toEqual({ country: 'DE' });
  });

  it('when updated, a string sets a key, null removes one, the others stay; the event carries the result', () => {
    const p = registered(
      { attributes: { country: 'DE', team: 'red' } },
      { attributes: { country: 'DE', team: 'red' } },
    );
    p.deciding(
      updating,
      { playerId: PLAYER, attributes: { team: null, tier: 'gold' } },
      { ...testEnv(T0), catalog },
    ).thenWrites(
      updated({ username: PLAYER, imageName: null, timeZone: null, attributes: { country: 'DE', tier: 'gold' } }),
    );
    expect(p.state.attributes).toEqual({ country: 'DE', tier: 'gold' });
  });

  it('when an update would leave more than 20 attributes, 1001 and nothing is written', () => {
    const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, 'v']));
    const p = registered({ attributes: twenty }, { attributes: twenty });
    const given = p.givenStreams();
    updating
      .given(given)
      .when({ playerId: PLAYER, attributes: { extra: 'v' } }, { ...testEnv(T0), catalog })
      .thenFails(1001, 'attributes: a player has at most 20 attributes');
    const { k0: _removed, ...kept } = twenty;
    updating
      .given(given)
      .when({ playerId: PLAYER, attributes: { k0: null, extra: 'v' } }, { ...testEnv(T0), catalog })
      .thenWrites(updated({ username: PLAYER, imageName: null, timeZone: null, attributes: { ...kept, extra: 'v' } }));
  });
});
