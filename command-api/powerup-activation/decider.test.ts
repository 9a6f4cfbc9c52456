import type { ActionProcessed } from '../../domain/events/player-events';
import {
  catalogOf,
  failureOf,
  PLAYER,
  playerSpec,
  SECOND,
  T0,
  testEnv,
  type PlayerSpec,
} from '../../test/support/player-spec';
import { playerStream } from '../../domain/streams';
import { deciderSpec } from '../../test/support/decider-spec';
import { activatePowerupDecider, deactivatePowerupDecider, expirePowerupDecider } from './decider';

/** The powerup deciders as their handlers and job decide: on the player's state read from their stream. */
const activating = deciderSpec(activatePowerupDecider);
const deactivating = deciderSpec(deactivatePowerupDecider);
const expiring = deciderSpec(expirePowerupDecider);

const catalog = catalogOf(`
  version: 1
  deliverables:
    - { uid: gold, label: Gold, type: Prize, kind: Currency }
    - { uid: gems, label: Gems, type: Prize, kind: Currency }
    - { uid: banner, label: Banner, type: Content }
    - { uid: boost-gold, label: Double gold, type: Prize, kind: Powerup, powerup: { multiplier: 2, maxUseCount: 2, timeoutSeconds: 3600, targetPrizes: [gold] } }
    - { uid: boost-all, label: Triple prizes, type: Prize, kind: Powerup, powerup: { multiplier: 3, neverExpires: true } }
  actions:
    - { identifier: get-boost-gold, deliverables: [{ deliverable: boost-gold, amount: 1 }] }
    - { identifier: get-boost-all, deliverables: [{ deliverable: boost-all, amount: 1 }] }
    - { identifier: play, points: 10, deliverables: [{ deliverable: gold, amount: 5 }, { deliverable: gems, amount: 1 }, { deliverable: banner, amount: 1 }] }
    - { identifier: gems-only, points: 1, deliverables: [{ deliverable: gems, amount: 1 }] }
`);

/** Activates a powerup on the spec's streams; the PowerupActivated is recorded when it succeeds. */
const activate = (p: PlayerSpec, powerupUid: string) => p.when(activating, { playerId: PLAYER, powerupUid });
const deactivate = (p: PlayerSpec, powerupUid: string) => p.when(deactivating, { playerId: PLAYER, powerupUid });

/** A player owning the given boosts (one instance each, in order), none activated; returns their uids too. */
const owning = (...boosts: ('boost-gold' | 'boost-all')[]) => {
  const p = playerSpec(catalog);
  for (const b of boosts) p.process(`get-${b}`);
  return { p, uids: [...p.state.powerups.keys()] };
};
/** Owning and activated, through PowerupActivated events. */
const activated = (...boosts: ('boost-gold' | 'boost-all')[]) => {
  const owned = owning(...boosts);
  for (const uid of owned.uids) expect(activate(owned.p, uid).ok).toBe(true);
  return owned;
};

const amounts = (e: ActionProcessed) => (e.result.deliverables ?? []).map((d) => [d.uid, d.amount]);
const usesOf = (p: PlayerSpec) =>
  [...p.state.powerups.values()].map((o) => [o.instance.deliverableUid, o.usesConsumed]);

describe('activate', () => {
  test('records PowerupActivated (Unix seconds), the instance is activated, and its expiry is scheduled with it', () => {
    const { p, uids } = owning('boost-gold');
    p.env.now = T0 + 1500;
    const decision = activate(p, uids[0]);
    const event = {
      playerId: PLAYER,
      powerupUid: uids[0],
      activatedAt: T0 / 1000 + 1,
      effects: { points: 0, balances: [], powerupsGranted: [], powerupsRemoved: [], powerupUses: [] },
    };
    expect(decision).toEqual({
      ok: true,
      value: {
        answer: event,
        writes: [{ stream: `player-${PLAYER}`, events: [{ type: 'PowerupActivated', data: event }] }],
        // Granted at T0 with a lifetime of 3600 s.
        jobs: [
          {
            type: 'expire-powerup',
            id: `expire-powerup-${uids[0]}`,
            runAt: T0 + 3600 * SECOND,
            payload: { playerId: PLAYER, powerupUid: uids[0] },
          },
        ],
      },
    });
    expect(p.state.powerups.get(uids[0])).toMatchObject({ activated: true, activatedAt: T0 / 1000 + 1 });
  });

  test('a powerup that never expires needs no expiry job', () => {
    const { p, uids } = owning('boost-all');
    const decision = activate(p, uids[0]);
    expect(decision.ok && decision.value.jobs).toEqual([]);
  });

  test('9020 for an unknown player; 9021 when missing, not owned or already active', () => {
    activating
      .given()
      .when({ playerId: PLAYER, powerupUid: 'x' }, { ...testEnv(), catalog })
      .thenFails(9020, 'Player not found');
    const { p, uids } = owning('boost-gold');
    expect(failureOf(activate(p, 'f'.repeat(32)))).toEqual({ code: 9021, message: 'Powerup not found or not owned' });
    // Uids count up per spec: the other player's second instance has a uid this player does not own.
    const other = owning('boost-all', 'boost-all');
    expect(p.state.powerups.has(other.uids[1])).toBe(false);
    expect(failureOf(activate(p, other.uids[1])).code).toBe(9021);
    activate(p, uids[0]);
    expect(failureOf(activate(p, uids[0]))).toEqual({ code: 9021, message: 'Powerup is already active' });
  });

  test('9021 once expired (at expiresAt exactly) or used up', () => {
    const { p, uids } = owning('boost-gold');
    p.env.now = T0 + 3600 * SECOND;
    expect(failureOf(activate(p, uids[0]))).toEqual({ code: 9021, message: 'Powerup is expired or used up' });

    const used = activated('boost-gold');
    used.p.repeat(2, 'play');
    expect(deactivate(used.p, used.uids[0]).ok).toBe(true);
    expect(failureOf(activate(used.p, used.uids[0])).code).toBe(9021);
  });

  test('a deactivated powerup may be activated again', () => {
    const { p, uids } = activated('boost-all');
    deactivate(p, uids[0]);
    expect(activate(p, uids[0]).ok).toBe(true);
  });
});

describe('deactivate', () => {
  test('records PowerupDeactivated; the instance is no longer activated', () => {
    const { p, uids } = activated('boost-gold');
    const decision = deactivate(p, uids[0]);
    expect(decision).toMatchObject({
      ok: true,
      value: { answer: { playerId: PLAYER, powerupUid: uids[0], deactivatedAt: T0 / 1000 }, jobs: [] },
    });
    expect(p.state.powerups.get(uids[0])).toMatchObject({ activated: false, activatedAt: null });
  });

  test('9020 for an unknown player; 9023 when missing, not owned or not active', () => {
    deactivating
      .given()
      .when({ playerId: PLAYER, powerupUid: 'x' }, { ...testEnv(), catalog })
      .thenFails(9020);
    const { p, uids } = owning('boost-gold');
    expect(failureOf(deactivate(p, 'nope'))).toEqual({ code: 9023, message: 'Powerup not found or not owned' });
    expect(failureOf(deactivate(p, uids[0]))).toEqual({ code: 9023, message: 'Powerup is not active' });
    activate(p, uids[0]);
    deactivate(p, uids[0]);
    expect(failureOf(deactivate(p, uids[0])).code).toBe(9023);
  });
});

describe('expiry (the job decision)', () => {
  test('waits until expiresAt, then records PowerupExpired once; nothing for a powerup that never expires', () => {
    const { p, uids } = activated('boost-gold', 'boost-all');
    const [gold, all] = uids;
    const at = (now: number) => ({ ...testEnv(now), catalog });
    const nothing = { ok: true, value: { writes: [], jobs: [], answer: { dueAt: null } } };
    const given = { [playerStream(PLAYER)]: p.recorded };
    expect(expiring.given(given).when({ playerId: PLAYER, powerupUid: gold }, at(T0 + 3599 * SECOND)).decided).toEqual({
      ok: true,
      value: { writes: [], jobs: [], answer: { dueAt: T0 + 3600 * SECOND } },
    });
    const decision = expiring
      .given(given)
      .when({ playerId: PLAYER, powerupUid: gold }, at(T0 + 3600 * SECOND))
      .thenWrites({
        [playerStream(PLAYER)]: [
          {
            type: 'PowerupExpired',
            data: { playerId: PLAYER, powerupUid: gold, expiredAt: T0 / 1000 + 3600, effects: expect.any(Object) },
          },
        ],
      });
    p.apply(decision);
    expect(p.state.powerups.get(gold)?.expired).toBe(true);
    // A rerun of the job finds it done.
    const after = { [playerStream(PLAYER)]: p.recorded };
    expect(expiring.given(after).when({ playerId: PLAYER, powerupUid: gold }, at(T0 + 3601 * SECOND)).decided).toEqual(
      nothing,
    );
    expect(expiring.given(after).when({ playerId: PLAYER, powerupUid: all }, at(T0 + 1e9)).decided).toEqual(nothing);
    expect(expiring.given(after).when({ playerId: PLAYER, powerupUid: 'gone' }, at(T0 + 1e9)).decided).toEqual(nothing);
  });
});

describe('activated powerups in action processing', () => {
  test('multiply their target prizes, not points, Content or other prizes, and each action uses one use', () => {
    const { p, uids } = activated('boost-gold');
    const play = p.process('play');
    expect(amounts(play)).toEqual([
      ['gold', 10],
      ['gems', 1],
      ['banner', 1],
    ]);
    expect(play.result.earnedPoints).toBe(10);
    expect(play.effects.powerupUses).toEqual([{ uid: uids[0], uses: 1 }]);
    expect(usesOf(p)).toEqual([['boost-gold', 1]]);
  });

  test('empty targetPrizes: every Prize deliverable', () => {
    const { p } = activated('boost-all');
    expect(amounts(p.process('play'))).toEqual([
      ['gold', 15],
      ['gems', 3],
      ['banner', 1],
    ]);
  });

  test('several powerups multiply together and with the request multiplier; points only by the multiplier', () => {
    const { p } = activated('boost-gold', 'boost-all');
    const play = p.process('play', { multiplier: 2 });
    expect(amounts(play)).toEqual([
      ['gold', 60], // 5 x 2 x 2 x 3
      ['gems', 6], // 1 x 2 x 3
      ['banner', 2], // Content: the request multiplier only
    ]);
    expect(play.result.earnedPoints).toBe(20);
    expect(usesOf(p)).toEqual([
      ['boost-gold', 1],
      ['boost-all', 1],
    ]);
  });

  test('an action granting none of its target prizes uses none', () => {
    const { p } = activated('boost-gold');
    expect(p.process('gems-only').effects.powerupUses).toEqual([]);
    expect(usesOf(p)).toEqual([['boost-gold', 0]]);
  });

  test('not activated, deactivated, used up or expired: it stops applying', () => {
    const idle = owning('boost-gold');
    expect(amounts(idle.p.process('play'))[0]).toEqual(['gold', 5]);

    const off = activated('boost-gold');
    deactivate(off.p, off.uids[0]);
    expect(amounts(off.p.process('play'))[0]).toEqual(['gold', 5]);

    const used = activated('boost-gold');
    used.p.repeat(2, 'play');
    expect(amounts(used.p.process('play'))[0]).toEqual(['gold', 5]);
    expect(usesOf(used.p)).toEqual([['boost-gold', 2]]);

    const timed = activated('boost-gold');
    timed.p.env.now = T0 + 3599 * SECOND;
    expect(amounts(timed.p.process('play'))[0]).toEqual(['gold', 10]);
    timed.p.env.now = T0 + 3600 * SECOND;
    expect(amounts(timed.p.process('play'))[0]).toEqual(['gold', 5]);
  });

  test('a PowerupExpired stops it too', () => {
    const { p, uids } = activated('boost-all');
    p.given({
      type: 'PowerupExpired',
      data: {
        playerId: PLAYER,
        powerupUid: uids[0],
        expiredAt: T0 / 1000,
        effects: { points: 0, balances: [], powerupsGranted: [], powerupsRemoved: [], powerupUses: [] },
      },
    });
    expect(amounts(p.process('play'))[0]).toEqual(['gold', 5]);
  });
});

describe('reversal of an action a powerup multiplied', () => {
  test('takes back the multiplied amounts and returns the use', () => {
    const { p, uids } = activated('boost-gold', 'boost-all');
    p.process('play', { ref: 'boosted' });
    expect(p.state.balances.get('gold')).toBe(30);
    expect(usesOf(p)).toEqual([
      ['boost-gold', 1],
      ['boost-all', 1],
    ]);

    const reversed = p.reverse('boosted');
    expect(reversed.effects.balances).toEqual(
      expect.arrayContaining([
        { deliverableUid: 'gold', amount: -30 },
        { deliverableUid: 'gems', amount: -3 },
        { deliverableUid: 'banner', amount: -1 },
      ]),
    );
    expect(reversed.effects.powerupUses).toEqual(uids.map((uid) => ({ uid, uses: -1 })));
    expect(p.state.balances.get('gold')).toBe(0);
    expect(usesOf(p)).toEqual([
      ['boost-gold', 0],
      ['boost-all', 0],
    ]);
  });

  test('a returned use makes a used-up powerup valid again', () => {
    const { p, uids } = activated('boost-gold');
    p.process('play');
    p.process('play', { ref: 'last' });
    expect(amounts(p.process('play'))[0]).toEqual(['gold', 5]); // used up
    p.reverse('last');
    expect(amounts(p.process('play'))[0]).toEqual(['gold', 10]);
    expect(p.state.powerups.get(uids[0])?.usesConsumed).toBe(2);
  });

  test('a powerup the reversal took back can no longer be activated', () => {
    const { p, uids } = owning('boost-gold');
    p.reverse('ref-1');
    expect(failureOf(activate(p, uids[0])).code).toBe(9021);
  });
});
