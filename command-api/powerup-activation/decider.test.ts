import type { ActionProcessed } from '../../domain/events/player-events';
import { noEffects } from '../../domain/events/common';
import { catalogOf, PLAYER, playerSpec, SECOND, T0, testEnv, type PlayerSpec } from '../../test/support/player-spec';
import { playerStream, referenceStream } from '../../domain/streams';
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

/** Activates a powerup on the spec's streams, for then-events; the PowerupActivated is recorded when it succeeds. */
const activate = (p: PlayerSpec, powerupUid: string) => p.deciding(activating, { playerId: PLAYER, powerupUid });
const deactivate = (p: PlayerSpec, powerupUid: string) => p.deciding(deactivating, { playerId: PLAYER, powerupUid });

/** The one event a powerup's decision writes to the player's stream; `at` in Unix seconds. */
const powerupEvent = (type: string, powerupUid: string, field: string, at: number) => ({
  [playerStream(PLAYER)]: [{ type, data: { playerId: PLAYER, powerupUid, [field]: at, effects: noEffects() } }],
});
const activatedAt = (powerupUid: string, at = T0 / 1000) =>
  powerupEvent('PowerupActivated', powerupUid, 'activatedAt', at);
const deactivatedAt = (powerupUid: string, at = T0 / 1000) =>
  powerupEvent('PowerupDeactivated', powerupUid, 'deactivatedAt', at);

/** A player owning the given boosts (one instance each, in order), none activated; returns their uids too. */
const owning = (...boosts: ('boost-gold' | 'boost-all')[]) => {
  const p = playerSpec(catalog);
  for (const b of boosts) p.process(`get-${b}`);
  return { p, uids: [...p.state.powerups.keys()] };
};
/** Owning and activated, through PowerupActivated events. */
const activated = (...boosts: ('boost-gold' | 'boost-all')[]) => {
  const owned = owning(...boosts);
  for (const uid of owned.uids) activate(owned.p, uid).thenWrites(activatedAt(uid));
  return owned;
};

const amounts = (e: ActionProcessed) => (e.result.deliverables ?? []).map((d) => [d.uid, d.amount]);
const usesOf = (p: PlayerSpec) =>
  [...p.state.powerups.values()].map((o) => [o.instance.deliverableUid, o.usesConsumed]);

describe('activate', () => {
  test('records PowerupActivated (Unix seconds), the instance is activated, and its expiry is scheduled with it', () => {
    const { p, uids } = owning('boost-gold');
    p.env.now = T0 + 1500;
    const decision = activate(p, uids[0]).thenWrites(activatedAt(uids[0], T0 / 1000 + 1));
    expect(decision.answer).toEqual(activatedAt(uids[0], T0 / 1000 + 1)[playerStream(PLAYER)][0].data);
    // Granted at T0 with a lifetime of 3600 s.
    expect(decision.jobs).toEqual([
      {
        type: 'expire-powerup',
        id: `expire-powerup-${uids[0]}`,
        runAt: T0 + 3600 * SECOND,
        payload: { playerId: PLAYER, powerupUid: uids[0] },
      },
    ]);
    expect(p.state.powerups.get(uids[0])).toMatchObject({ activated: true, activatedAt: T0 / 1000 + 1 });
  });

  test('a powerup that never expires needs no expiry job', () => {
    const { p, uids } = owning('boost-all');
    expect(activate(p, uids[0]).thenWrites(activatedAt(uids[0])).jobs).toEqual([]);
  });

  test('9020 for an unknown player; 9021 when missing, not owned or already active', () => {
    activating
      .given()
      .when({ playerId: PLAYER, powerupUid: 'x' }, { ...testEnv(), catalog })
      .thenFails(9020, 'Player not found');
    const { p, uids } = owning('boost-gold');
    activate(p, 'f'.repeat(32)).thenFails(9021, 'Powerup not found or not owned');
    // Uids count up per spec: the other player's second instance has a uid this player does not own.
    const other = owning('boost-all', 'boost-all');
    expect(p.state.powerups.has(other.uids[1])).toBe(false);
    activate(p, other.uids[1]).thenFails(9021, 'Powerup not found or not owned');
    activate(p, uids[0]).thenWrites(activatedAt(uids[0]));
    activate(p, uids[0]).thenFails(9021, 'Powerup is already active');
  });

  test('9021 once expired (at expiresAt exactly) or used up', () => {
    const { p, uids } = owning('boost-gold');
    p.env.now = T0 + 3600 * SECOND;
    activate(p, uids[0]).thenFails(9021, 'Powerup is expired or used up');

    const used = activated('boost-gold');
    used.p.repeat(2, 'play');
    deactivate(used.p, used.uids[0]).thenWrites(deactivatedAt(used.uids[0]));
    activate(used.p, used.uids[0]).thenFails(9021, 'Powerup is expired or used up');
  });

  test('a deactivated powerup may be activated again', () => {
    const { p, uids } = activated('boost-all');
    deactivate(p, uids[0]).thenWrites(deactivatedAt(uids[0]));
    activate(p, uids[0]).thenWrites(activatedAt(uids[0]));
  });
});

describe('deactivate', () => {
  test('records PowerupDeactivated; the instance is no longer activated', () => {
    const { p, uids } = activated('boost-gold');
    const decision = deactivate(p, uids[0]).thenWrites(deactivatedAt(uids[0]));
    expect([decision.answer, decision.jobs]).toEqual([deactivatedAt(uids[0])[playerStream(PLAYER)][0].data, []]);
    expect(p.state.powerups.get(uids[0])).toMatchObject({ activated: false, activatedAt: null });
  });

  test('9020 for an unknown player; 9023 when missing, not owned or not active', () => {
    deactivating
      .given()
      .when({ playerId: PLAYER, powerupUid: 'x' }, { ...testEnv(), catalog })
      .thenFails(9020);
    const { p, uids } = owning('boost-gold');
    deactivate(p, 'nope').thenFails(9023, 'Powerup not found or not owned');
    deactivate(p, uids[0]).thenFails(9023, 'Powerup is not active');
    activate(p, uids[0]).thenWrites(activatedAt(uids[0]));
    deactivate(p, uids[0]).thenWrites(deactivatedAt(uids[0]));
    deactivate(p, uids[0]).thenFails(9023, 'Powerup is not active');
  });
});

describe('expiry (the job decision)', () => {
  test('waits until expiresAt, then records PowerupExpired once; nothing for a powerup that never expires', () => {
    const { p, uids } = activated('boost-gold', 'boost-all');
    const [gold, all] = uids;
    const at = (now: number) => ({ ...testEnv(now), catalog });
    const given = { [playerStream(PLAYER)]: p.recorded };
    /** The job's decision writes nothing: its answer and jobs. */
    const nothingWritten = (powerupUid: string, now: number) => {
      const { answer, jobs } = expiring.given(given).when({ playerId: PLAYER, powerupUid }, at(now)).thenWrites({});
      return { answer, jobs };
    };
    expect(nothingWritten(gold, T0 + 3599 * SECOND)).toEqual({ answer: { dueAt: T0 + 3600 * SECOND }, jobs: [] });
    const decision = expiring
      .given(given)
      .when({ playerId: PLAYER, powerupUid: gold }, at(T0 + 3600 * SECOND))
      .thenWrites(powerupEvent('PowerupExpired', gold, 'expiredAt', T0 / 1000 + 3600));
    expect([decision.answer, decision.jobs]).toEqual([{ dueAt: null }, []]);
    p.apply(decision);
    expect(p.state.powerups.get(gold)?.expired).toBe(true);
    // A rerun of the job finds it done (`given` is the spec's stream, live).
    const nothing = { answer: { dueAt: null }, jobs: [] };
    expect(nothingWritten(gold, T0 + 3601 * SECOND)).toEqual(nothing);
    expect(nothingWritten(all, T0 + 1e9)).toEqual(nothing);
    expect(nothingWritten('gone', T0 + 1e9)).toEqual(nothing);
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
    deactivate(off.p, off.uids[0]).thenWrites(deactivatedAt(off.uids[0]));
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

    const grant = (uid: string, label: string, type: number, amount: number) => ({
      uid,
      label,
      type,
      imageName: null,
      amount,
      details: null,
    });
    p.reversal('boosted').thenWrites({
      [playerStream(PLAYER)]: [
        {
          type: 'ActionReversed',
          data: {
            playerId: PLAYER,
            referenceId: 'boosted',
            actionName: 'play',
            timestamp: T0,
            reversedAt: T0,
            actionPoints: 10,
            // The amounts granted, multiplied (gold 5 x 2 x 3, gems 1 x 3; Content not).
            actionGrants: [grant('gold', 'Gold', 1, 30), grant('gems', 'Gems', 1, 3), grant('banner', 'Banner', 2, 1)],
            revokedAwards: [],
            revokedLevels: [],
            refund: null,
            effects: {
              ...noEffects(),
              points: -10,
              balances: [
                { deliverableUid: 'gold', amount: -30 },
                { deliverableUid: 'gems', amount: -3 },
                { deliverableUid: 'banner', amount: -1 },
              ],
              powerupUses: uids.map((uid) => ({ uid, uses: -1 })),
            },
          },
        },
      ],
      [referenceStream('boosted')]: [
        { type: 'ReferenceReversed', data: { referenceId: 'boosted', playerId: PLAYER, reversedAt: T0 } },
      ],
    });
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
    activate(p, uids[0]).thenFails(9021, 'Powerup not found or not owned');
  });
});
