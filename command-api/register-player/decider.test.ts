import { noEffects } from '../../domain/events/common';
import { playerStream } from '../../domain/streams';
import { deciderSpec } from '../../test/support/decider-spec';
import { catalogOf, DAY, PLAYER, T0, testEnv } from '../../test/support/player-spec';
import { registerPlayerDecider } from './decider';

/** Registration by /v1/player/create, as its handler decides it: on the player's state read from their stream. */
const registering = deciderSpec(registerPlayerDecider);

const catalog = catalogOf(`
  version: 1
  settings: { timezone: UTC }
  deliverables:
    - { uid: stars, label: Stars, type: Prize, kind: Currency, expiry: { afterDays: 30 } }
  actions: [{ identifier: login }]
  levels:
    - { uid: l0, label: Newcomer, level: 1, target: 0, deliverables: [{ deliverable: stars, amount: 5 }] }
    - { uid: l1, label: Regular, level: 2, target: 10 }
`);
const env = { ...testEnv(T0), catalog };
const stream = playerStream(PLAYER);

/** Level 1 reached at 0 points, with its stars (a lot expiring 30 days after the day of registration). */
const newcomer = {
  levels: [
    {
      uid: 'l0',
      label: 'Newcomer',
      level: 1,
      target: 0,
      imageName: null,
      grants: [{ uid: 'stars', label: 'Stars', type: 1, imageName: null, amount: 5, details: null }],
    },
  ],
  effects: {
    ...noEffects(),
    balances: [{ deliverableUid: 'stars', amount: 5 }],
    lots: [{ deliverableUid: 'stars', expiresAt: T0 + 31 * DAY, amount: 5 }],
  },
};

describe('registering a player', () => {
  it('given no player, writes PlayerRegistered named by the playerId, at the levels of 0 points with their grants', () => {
    const decision = registering
      .given({})
      .when({ playerId: PLAYER }, env)
      .thenWrites({
        [stream]: [
          {
            type: 'PlayerRegistered',
            data: { playerId: PLAYER, username: PLAYER, imageName: null, registeredAt: T0, ...newcomer },
          },
        ],
      });
    // The lot of stars granted expires by a job scheduled with the registration.
    expect(decision.jobs.map((j) => [j.type, j.runAt])).toEqual([['expire-currency', T0 + 31 * DAY]]);
    expect(decision.answer.username).toBe(PLAYER);
  });

  it("records the name, picture, time zone and attributes given (nulls left out); the levels' lots run in the player's zone", () => {
    registering
      .given({})
      .when(
        {
          playerId: PLAYER,
          username: 'Ada',
          imageName: 'https://img/ada.png',
          timeZone: 'Pacific/Auckland',
          attributes: { country: 'NZ', team: null },
        },
        env,
      )
      .thenWrites({
        [stream]: [
          {
            type: 'PlayerRegistered',
            data: {
              playerId: PLAYER,
              username: 'Ada',
              imageName: 'https://img/ada.png',
              registeredAt: T0,
              timeZone: 'Pacific/Auckland',
              attributes: { country: 'NZ' },
              ...newcomer,
              effects: {
                ...newcomer.effects,
                // T0 is 12:00 on 2026-06-01 in Auckland (UTC+12): the lot ends at the local midnight 31 days on.
                lots: [{ deliverableUid: 'stars', expiresAt: Date.UTC(2026, 6, 1, 12), amount: 5 }],
              },
            },
          },
        ],
      });
  });

  it('given a registered player, refuses 5002 and writes nothing', () => {
    const registered = registering
      .given({})
      .when({ playerId: PLAYER }, env)
      .thenWrites({
        [stream]: [
          {
            type: 'PlayerRegistered',
            data: { playerId: PLAYER, username: PLAYER, imageName: null, registeredAt: T0, ...newcomer },
          },
        ],
      });
    registering
      .given({ [stream]: [{ type: 'PlayerRegistered', data: registered.answer }] })
      .when({ playerId: PLAYER, username: 'again' }, env)
      .thenFails(5002);
  });

  it('given an erased player, refuses 5003: the id is never registered again', () => {
    const erased = { type: 'PlayerErased', data: { playerId: PLAYER, erasedAt: T0, effects: noEffects() } };
    const registered = {
      type: 'PlayerRegistered',
      data: { playerId: PLAYER, username: PLAYER, imageName: null, registeredAt: T0, ...newcomer },
    };
    registering
      .given({ [stream]: [registered, erased] })
      .when({ playerId: PLAYER }, env)
      .thenFails(5003);
  });
});
