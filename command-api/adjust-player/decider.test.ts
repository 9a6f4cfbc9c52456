import { noEffects } from '../../domain/events/common';
import { balanceOf } from '../../domain/player/state';
import { playerStream } from '../../domain/streams';
import { deciderSpec } from '../../test/support/decider-spec';
import type { PlayerAdjusted } from '../../domain/events/player-events';
import { catalogOf, DAY, PLAYER, playerSpec, T0, type PlayerSpec } from '../../test/support/player-spec';
import { adjustPlayerDecider, type AdjustPlayerCommand } from './decider';

const catalog = catalogOf(`
  version: 1
  settings: { timezone: UTC }
  deliverables:
    - { uid: gold, label: Gold, type: Prize, kind: Currency }
    - { uid: stars, label: Stars, type: Prize, kind: Currency, expiry: { afterDays: 30 } }
    - { uid: boost, label: Boost, type: Prize, kind: Powerup, powerup: { multiplier: 2, neverExpires: true } }
    - { uid: sword, label: Sword, type: Prize }
  actions:
    - { identifier: earn, points: 50, deliverables: [{ deliverable: gold, amount: 100 }, { deliverable: stars, amount: 10 }] }
  levels:
    - { uid: l1, label: L1, level: 1, target: 0 }
    - { uid: l2, label: L2, level: 2, target: 100, deliverables: [{ deliverable: sword, amount: 1 }] }
  leaderboards:
    - { uid: lb-teams, label: Teams, type: 0, scope: team }
`);

const adjusting = deciderSpec(adjustPlayerDecider);

const adjustment = (change: Partial<AdjustPlayerCommand>): AdjustPlayerCommand => ({
  playerId: PLAYER,
  reason: 'ticket 42',
  keyName: 'support',
  points: 0,
  deliverables: [],
  ...change,
});

/** A registered player who earned once: 50 points, 100 gold, 10 stars (a lot expiring in 30 days), level 1. */
function earned(): PlayerSpec {
  const p = playerSpec(catalog);
  p.process('earn');
  return p;
}

/** The adjustment decided on the player's spec, its uids `uid-1`, `uid-2`, … (the adjustment's first). */
const adjust = (p: PlayerSpec, change: Partial<AdjustPlayerCommand>) => {
  let n = 0;
  return p.deciding(adjusting, adjustment(change), { ...p.env, catalog, newUid: () => `uid-${++n}` });
};

const gold = (amount: number) => ({ uid: 'gold', label: 'Gold', type: 1, imageName: null, amount, details: null });
const stars = (amount: number) => ({ uid: 'stars', label: 'Stars', type: 1, imageName: null, amount, details: null });

/** The PlayerAdjusted an adjustment writes to the player's stream, at T0 unless told. */
const adjusted = (fields: Partial<PlayerAdjusted>) => ({
  [playerStream(PLAYER)]: [
    {
      type: 'PlayerAdjusted',
      data: {
        playerId: PLAYER,
        adjustmentUid: 'uid-1',
        reason: 'ticket 42',
        keyName: 'support',
        points: 0,
        deliverables: [],
        levels: [],
        adjustedAt: T0,
        effects: noEffects(),
        ...fields,
      },
    },
  ],
});

describe('a support adjustment', () => {
  it('given a player, when points and deliverables are granted and taken back, writes PlayerAdjusted with the reason and the key', () => {
    const p = earned();
    adjust(p, {
      points: -20,
      deliverables: [
        { deliverable: 'gold', amount: 25 },
        { deliverable: 'stars', amount: -4 },
      ],
    }).thenWrites(
      adjusted({
        points: -20,
        deliverables: [gold(25), stars(-4)],
        effects: {
          ...noEffects(),
          points: -20,
          balances: [
            { deliverableUid: 'gold', amount: 25 },
            { deliverableUid: 'stars', amount: -4 },
          ],
          // Stars taken back come out of the lot they were granted in.
          lots: [{ deliverableUid: 'stars', expiresAt: T0 + 31 * DAY, amount: -4 }],
        },
      }),
    );
    expect([p.state.points, balanceOf(p.state, 'gold'), balanceOf(p.state, 'stars')]).toEqual([30, 125, 6]);
  });

  it('when it takes back all the player holds, succeeds; one more is 9011 and writes nothing', () => {
    const p = earned();
    adjust(p, { points: -50.5 }).thenFails(
      9011,
      "Adjustment would take the player's points or a balance below zero: the player has 50 points",
    );
    adjust(p, { deliverables: [{ deliverable: 'gold', amount: -101 }] }).thenFails(
      9011,
      "Adjustment would take the player's points or a balance below zero: the player has 100 Gold",
    );
    adjust(p, { deliverables: [{ deliverable: 'sword', amount: -1 }] }).thenFails(
      9011,
      "Adjustment would take the player's points or a balance below zero: the player has 0 Sword",
    );
    adjust(p, { points: -50, deliverables: [{ deliverable: 'gold', amount: -100 }] }).thenWrites(
      adjusted({
        points: -50,
        deliverables: [gold(-100)],
        effects: { ...noEffects(), points: -50, balances: [{ deliverableUid: 'gold', amount: -100 }] },
      }),
    );
    expect([p.state.points, balanceOf(p.state, 'gold')]).toEqual([0, 0]);
  });

  it('given expired stars, counts only those still usable as held', () => {
    const p = earned();
    p.env.now = T0 + 40 * DAY;
    adjust(p, { deliverables: [{ deliverable: 'stars', amount: -1 }] }).thenFails(
      9011,
      "Adjustment would take the player's points or a balance below zero: the player has 0 Stars",
    );
  });

  it('given an unknown or erased player, refuses 5003', () => {
    adjusting
      .given({})
      .when(adjustment({ points: 5 }), { ...earned().env, catalog })
      .thenFails(5003);
    const p = earned();
    p.given({ type: 'PlayerErased', data: { playerId: PLAYER, erasedAt: T0, effects: noEffects() } });
    adjust(p, { points: 5 }).thenFails(5003);
  });

  it('refuses a deliverable the catalog does not have (1001, naming it) and a powerup taken back (1001)', () => {
    const p = earned();
    adjust(p, { deliverables: [{ deliverable: 'diamonds', amount: 1 }] }).thenFails(
      1001,
      'Deliverable does not exist: diamonds',
    );
    // Each powerup granted is an instance of its own (uid-1, uid-2), minted before the adjustment's uid.
    const boost = (uid: string) => ({
      uid,
      deliverableUid: 'boost',
      prizeLabel: 'Boost',
      prizeImageName: null,
      multiplier: 2,
      targetPrizes: [],
      initialUseCount: 0,
      timeoutSeconds: 0,
      neverExpires: true,
      expiresAt: 0,
      createdAt: T0 / 1000,
    });
    adjust(p, { deliverables: [{ deliverable: 'boost', amount: 2 }] }).thenWrites(
      adjusted({
        adjustmentUid: 'uid-3',
        deliverables: [{ uid: 'boost', label: 'Boost', type: 1, imageName: null, amount: 2, details: null }],
        effects: { ...noEffects(), powerupsGranted: [boost('uid-1'), boost('uid-2')] },
      }),
    );
    expect(p.state.powerups.size).toBe(2);
    adjust(p, { deliverables: [{ deliverable: 'boost', amount: -1 }] }).thenFails(1001);
  });

  it('grants a currency that expires as a lot, and schedules its expiry', () => {
    const p = earned();
    p.env.now = T0 + DAY;
    const decision = adjust(p, { deliverables: [{ deliverable: 'stars', amount: 5 }] }).thenWrites(
      adjusted({
        deliverables: [stars(5)],
        adjustedAt: T0 + DAY,
        effects: {
          ...noEffects(),
          balances: [{ deliverableUid: 'stars', amount: 5 }],
          lots: [{ deliverableUid: 'stars', expiresAt: T0 + 32 * DAY, amount: 5 }],
        },
      }),
    );
    expect(decision.jobs.map((j) => j.runAt)).toEqual([T0 + 32 * DAY]);
  });

  it('points granted reach levels with their grants; points taken back take no level back', () => {
    const p = earned();
    const sword = { uid: 'sword', label: 'Sword', type: 1, imageName: null, amount: 1, details: null };
    adjust(p, { points: 60 }).thenWrites(
      adjusted({
        points: 60,
        levels: [{ uid: 'l2', label: 'L2', level: 2, target: 100, imageName: null, grants: [sword] }],
        effects: { ...noEffects(), points: 60, balances: [{ deliverableUid: 'sword', amount: 1 }] },
      }),
    );
    expect(balanceOf(p.state, 'sword')).toBe(1);
    expect(p.state.levelsReached.get('l2')).toBe(2);
    adjust(p, { points: -100 }).thenWrites(adjusted({ points: -100, effects: { ...noEffects(), points: -100 } }));
    expect(p.state.points).toBe(10);
    expect(p.state.levelsReached.get('l2')).toBe(2);
  });

  it("carries the player's scoped attributes, for the leaderboards", () => {
    const p = earned();
    p.given({
      type: 'PlayerUpdated',
      data: {
        playerId: PLAYER,
        username: 'Ada',
        imageName: null,
        timeZone: null,
        attributes: { team: 'red', country: 'DE' },
        updatedAt: T0,
        effects: noEffects(),
      },
    });
    adjust(p, { points: 5 }).thenWrites(
      adjusted({ points: 5, effects: { ...noEffects(), points: 5 }, attributes: { team: 'red' } }),
    );
  });
});
