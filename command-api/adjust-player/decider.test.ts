import { noEffects } from '../../domain/events/common';
import { balanceOf } from '../../domain/player/state';
import { playerStream } from '../../domain/streams';
import { deciderSpec } from '../../test/support/decider-spec';
import {
  catalogOf,
  DAY,
  failureOf,
  PLAYER,
  playerSpec,
  succeeded,
  T0,
  type PlayerSpec,
  written,
} from '../../test/support/player-spec';
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

const adjust = (p: PlayerSpec, change: Partial<AdjustPlayerCommand>) => p.when(adjusting, adjustment(change));

describe('a support adjustment', () => {
  it('given a player, when points and deliverables are granted and taken back, writes PlayerAdjusted with the reason and the key', () => {
    const p = earned();
    const decision = succeeded(
      adjust(p, {
        points: -20,
        deliverables: [
          { deliverable: 'gold', amount: 25 },
          { deliverable: 'stars', amount: -4 },
        ],
      }),
    );
    expect(written(decision, playerStream(PLAYER))).toEqual([
      {
        type: 'PlayerAdjusted',
        data: {
          playerId: PLAYER,
          adjustmentUid: decision.answer.adjustmentUid,
          reason: 'ticket 42',
          keyName: 'support',
          points: -20,
          deliverables: [
            { uid: 'gold', label: 'Gold', type: 1, imageName: null, amount: 25, details: null },
            { uid: 'stars', label: 'Stars', type: 1, imageName: null, amount: -4, details: null },
          ],
          levels: [],
          adjustedAt: T0,
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
        },
      },
    ]);
    expect(decision.writes.map((w) => w.stream)).toEqual([playerStream(PLAYER)]);
    expect([p.state.points, balanceOf(p.state, 'gold'), balanceOf(p.state, 'stars')]).toEqual([30, 125, 6]);
  });

  it('when it takes back all the player holds, succeeds; one more is 9011 and writes nothing', () => {
    const p = earned();
    expect(failureOf(adjust(p, { points: -50.5 }))).toMatchObject({ code: 9011 });
    expect(failureOf(adjust(p, { deliverables: [{ deliverable: 'gold', amount: -101 }] }))).toMatchObject({
      code: 9011,
      message: "Adjustment would take the player's points or a balance below zero: the player has 100 Gold",
    });
    expect(failureOf(adjust(p, { deliverables: [{ deliverable: 'sword', amount: -1 }] }))).toMatchObject({
      code: 9011,
    });
    expect(p.recorded.map((e) => e.type)).not.toContain('PlayerAdjusted');
    succeeded(adjust(p, { points: -50, deliverables: [{ deliverable: 'gold', amount: -100 }] }));
    expect([p.state.points, balanceOf(p.state, 'gold')]).toEqual([0, 0]);
  });

  it('given expired stars, counts only those still usable as held', () => {
    const p = earned();
    p.env.now = T0 + 40 * DAY;
    expect(failureOf(adjust(p, { deliverables: [{ deliverable: 'stars', amount: -1 }] }))).toMatchObject({
      code: 9011,
    });
  });

  it('given an unknown or erased player, refuses 5003', () => {
    adjusting
      .given({})
      .when(adjustment({ points: 5 }), { ...earned().env, catalog })
      .thenFails(5003);
    const p = earned();
    p.given({ type: 'PlayerErased', data: { playerId: PLAYER, erasedAt: T0, effects: noEffects() } });
    expect(failureOf(adjust(p, { points: 5 }))).toMatchObject({ code: 5003 });
  });

  it('refuses a deliverable the catalog does not have (1001, naming it) and a powerup taken back (1001)', () => {
    const p = earned();
    expect(failureOf(adjust(p, { deliverables: [{ deliverable: 'diamonds', amount: 1 }] }))).toEqual({
      code: 1001,
      message: 'Deliverable does not exist: diamonds',
    });
    succeeded(adjust(p, { deliverables: [{ deliverable: 'boost', amount: 2 }] }));
    expect(p.state.powerups.size).toBe(2);
    expect(failureOf(adjust(p, { deliverables: [{ deliverable: 'boost', amount: -1 }] }))).toMatchObject({
      code: 1001,
    });
  });

  it('grants a currency that expires as a lot, and schedules its expiry', () => {
    const p = earned();
    p.env.now = T0 + DAY;
    const decision = succeeded(adjust(p, { deliverables: [{ deliverable: 'stars', amount: 5 }] }));
    expect(decision.answer.effects.lots).toEqual([{ deliverableUid: 'stars', expiresAt: T0 + 32 * DAY, amount: 5 }]);
    expect(decision.jobs.map((j) => j.runAt)).toEqual([T0 + 32 * DAY]);
  });

  it('points granted reach levels with their grants; points taken back take no level back', () => {
    const p = earned();
    const up = succeeded(adjust(p, { points: 60 })).answer;
    expect(up.levels.map((l) => l.uid)).toEqual(['l2']);
    expect(balanceOf(p.state, 'sword')).toBe(1);
    expect(p.state.levelsReached.get('l2')).toBe(2);
    succeeded(adjust(p, { points: -100 }));
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
    expect(succeeded(adjust(p, { points: 5 })).answer.attributes).toEqual({ team: 'red' });
  });
});
