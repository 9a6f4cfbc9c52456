import fc from 'fast-check';
import { addAmounts } from '../../domain/amount';
import type { Effects } from '../../domain/events/common';
import type { PlayerState } from '../../domain/player/state';
import { playerStream, provisionStream, referenceStream, stockStream, TRIGGER_ACTIVATIONS } from '../../domain/streams';
import {
  activated,
  catalogOf,
  failureOf,
  given,
  OTHER_PLAYER,
  PLAYER,
  playerSpec,
  streamsOf,
  T0,
  written,
  type PlayerSpec,
} from '../../test/support/player-spec';

const catalog = catalogOf(`
  version: 1
  deliverables:
    - { uid: gold, label: Gold, type: Prize, kind: Currency }
    - { uid: gems, label: Gems, type: Prize, kind: Currency }
    - { uid: sword, label: Sword, type: Prize }
    - { uid: banner, label: Banner, type: Content }
    - { uid: ping, label: Ping, type: Notification }
    - { uid: boost, label: Double gold, type: Prize, kind: Powerup, powerup: { multiplier: 2, maxUseCount: 5, neverExpires: true, targetPrizes: [gold] } }
  actions:
    - { identifier: earn, deliverables: [{ deliverable: gold, amount: 50 }] }
    - { identifier: play, points: 10, cost: 5, costDeliverable: gold, deliverables: [{ deliverable: gems, amount: 3 }] }
    - { identifier: shop, cost: 3, costDeliverable: gems }
    - { identifier: grind, points: 1 }
    - { identifier: score, points: 15 }
    - { identifier: unlock }
    - { identifier: get-boost, deliverables: [{ deliverable: boost, amount: 1 }] }
  badges:
    - { uid: b-first, label: First play, type: OneTimeOnly, points: 20, conditions: [{ action: play }], deliverables: [{ deliverable: sword, amount: 1 }] }
    - { uid: b-follow, label: Follow-up, type: OneTimeOnly, requiredBadge: b-first, conditions: [{ action: grind }] }
    - { uid: b-third, label: Every third, type: Repeatable, points: 7, conditions: [{ action: grind, challenge: { times: 3 } }], deliverables: [{ deliverable: gems, amount: 1 }] }
    - { uid: b-grinder, label: Grinder, type: Ranked, rankSet: rs, conditions: [{ action: grind }] }
    - { uid: b-key, label: Key, type: OneTimeOnly, conditions: [{ action: unlock }] }
    - { uid: b-gated, label: Gated, type: OneTimeOnly, requiredBadge: b-key, conditions: [{ action: grind, challenge: { times: 2 } }] }
  rankSets:
    - { uid: rs, label: Ranks, ranks: [{ rank: 1, label: Bronze, times: 2, points: 1 }, { rank: 2, label: Silver, times: 4, points: 2, deliverables: [{ deliverable: ping, amount: 1 }] }] }
  triggers:
    - { uid: t-play, label: Played, type: OneTimeOnly, points: 2, limited: true, limit: 10, conditions: [{ action: play }], deliverables: [{ deliverable: ping, amount: 1 }] }
    - { uid: t-follow, label: Follow-up trigger, type: OneTimeOnly, requiredBadge: b-follow, conditions: [{ action: grind }] }
  levels:
    - { uid: l1, label: L1, level: 1, target: 0 }
    - { uid: l2, label: L2, level: 2, target: 30, deliverables: [{ deliverable: banner, amount: 1 }, { deliverable: boost, amount: 1 }] }
`);

/** What a player holds, to compare before and after. */
const holdingsOf = (s: PlayerState) => ({
  points: s.points,
  balances: Object.fromEntries([...s.balances].filter(([, amount]) => amount !== 0)),
  holdings: s.holdings.map((h) => `${h.uid}${h.rank ? `#${h.rank.rank}` : ''} by ${h.awardedBy}`),
  levels: [...s.levelsReached.keys()],
  powerups: [...s.powerups.keys()],
});
const heldUids = (p: PlayerSpec) => holdingsOf(p.state).holdings;

/** Every owned powerup activated by its PowerupActivated event. */
const activateAll = (p: PlayerSpec) => {
  for (const uid of [...p.state.powerups.keys()]) p.given(activated(uid, p.env.now));
};

/** The sum of every recorded event's effects. */
const summed = (p: PlayerSpec) => {
  const balances = new Map<string, number>();
  let points = 0;
  for (const e of p.recorded) {
    const effects = (e.data as { effects: Effects }).effects;
    points = addAmounts(points, effects.points);
    for (const b of effects.balances)
      balances.set(b.deliverableUid, addAmounts(balances.get(b.deliverableUid) ?? 0, b.amount));
  }
  return { points, balances };
};

describe('101: action is not reversible', () => {
  const cases: [string, (p: PlayerSpec) => void, string, { name?: string; playerId?: string }][] = [
    ['the referenceId is unknown', () => {}, 'nope', { name: 'play' }],
    ['the name is not the original one', () => {}, 'ref-2', { name: 'grind' }],
    ['the action belongs to another player', () => {}, 'ref-2', { playerId: OTHER_PLAYER }],
    ['it was already reversed', (p) => p.reverse('ref-2'), 'ref-2', {}],
    ['a prize to take back was spent', (p) => p.process('shop'), 'ref-2', {}], // the 3 gems of ref-2
  ];

  test.each(cases)('when %s, and nothing changes', (_, setup, ref, options) => {
    const p = playerSpec(catalog);
    p.process('earn');
    p.process('play');
    setup(p);
    const events = p.recorded.length;
    const before = holdingsOf(p.state);

    const failure = failureOf(p.tryReverse(ref, options));
    expect(failure.code).toBe(101);
    expect(failure.message).toMatch(/^Action is not reversible/);
    expect(p.recorded.length).toBe(events);
    expect(holdingsOf(p.state)).toEqual(before);
  });
});

describe('reversal', () => {
  test('takes back points, deliverables, badges, triggers, levels with their deliverables, and refunds the cost', () => {
    const p = playerSpec(catalog);
    p.process('earn');
    const before = holdingsOf(p.state);
    const play = p.process('play'); // 10 + badge 20 + trigger 2: level 2
    expect(play.result.achievedLevel?.uid).toBe('l2');

    const reversed = p.reverse('ref-2');
    expect(reversed.revokedAwards.map((a) => [a.uid, a.awardedBy, a.limited])).toEqual([
      ['b-first', 'ref-2', false],
      ['t-play', 'ref-2', true], // its activation goes back to the trigger's stock
    ]);
    expect(reversed.revokedLevels.map((l) => l.uid)).toEqual(['l2']);
    expect(reversed.refund).toEqual(play.cost);
    expect(reversed.effects.points).toBe(-32);
    expect(reversed.effects.balances).toEqual([
      { deliverableUid: 'gems', amount: -3 },
      { deliverableUid: 'sword', amount: -1 },
      { deliverableUid: 'ping', amount: -1 },
      { deliverableUid: 'banner', amount: -1 },
      { deliverableUid: 'gold', amount: 5 },
    ]);
    expect(holdingsOf(p.state)).toEqual(before);
  });

  test("writes, in one append, the player's reversal, the reference's mark, the limited activation given back and the cost refunded", () => {
    const p = playerSpec(catalog);
    p.process('earn');
    const play = p.process('play');
    const reversal = p.tryReverse('ref-2');
    if (!reversal.ok) throw new Error('reversal failed');
    const provisionUid = play.cost!.provisionUid;
    expect(streamsOf(reversal.value)).toEqual([
      playerStream(PLAYER),
      referenceStream('ref-2'),
      stockStream(TRIGGER_ACTIVATIONS, 't-play'),
      provisionStream(provisionUid),
    ]);
    expect(written(reversal.value, referenceStream('ref-2'))).toEqual([
      { type: 'ReferenceReversed', data: { referenceId: 'ref-2', playerId: PLAYER, reversedAt: T0 } },
    ]);
    expect(written(reversal.value, stockStream(TRIGGER_ACTIVATIONS, 't-play'))).toEqual([
      {
        type: 'TriggerActivationReturned',
        data: { resourceUid: 't-play', holder: 'ref-2', playerId: PLAYER, units: 1 },
      },
    ]);
    expect(written(reversal.value, provisionStream(provisionUid))).toEqual([
      {
        type: 'ProvisionStatusChanged',
        data: { provisionUid, playerId: PLAYER, status: 'Refunded', failureReason: null, updateDate: T0 },
      },
    ]);
    // Given back units and a provision's status need no revision: nothing concurrent can make them wrong.
    expect(reversal.value.writes.map((w) => w.expectedRevision)).toEqual([undefined, undefined, 'any', 'any']);
  });

  test('an action that earned nothing reverses to no change', () => {
    const p = playerSpec(catalog);
    p.process('unlock');
    p.process('unlock');
    expect(p.reverse('ref-2').effects).toEqual({
      points: 0,
      balances: [],
      powerupsGranted: [],
      powerupsRemoved: [],
      powerupUses: [],
    });
  });

  test('takes back a rank earned by a later action whose threshold no longer holds, and keeps the others', () => {
    const p = playerSpec(catalog);
    p.repeat(4, 'grind'); // Bronze by ref-2, Silver by ref-4
    expect(heldUids(p).filter((h) => h.startsWith('b-grinder'))).toEqual([
      'b-grinder#1 by ref-2',
      'b-grinder#2 by ref-4',
    ]);

    const reversed = p.reverse('ref-1');
    expect(
      reversed.revokedAwards.filter((a) => a.uid === 'b-grinder').map((a) => [a.rank, a.awardedBy, a.points]),
    ).toEqual([[2, 'ref-4', 2]]);
    expect(heldUids(p).filter((h) => h.startsWith('b-grinder'))).toEqual(['b-grinder#1 by ref-2']);
    expect(p.state.balances.get('ping')).toBe(0);

    expect(p.process('grind').result.badges?.find((b) => b.uid === 'b-grinder')?.rank?.label).toBe('Silver'); // 4 again
  });

  test('Repeatable times 3: reversing the 2nd revokes the award; a further action re-earns it', () => {
    const p = playerSpec(catalog);
    p.repeat(3, 'grind');
    expect(heldUids(p)).toContain('b-third by ref-3');

    const reversed = p.reverse('ref-2');
    expect(reversed.revokedAwards.map((a) => a.uid)).toContain('b-third');
    expect(heldUids(p)).not.toContain('b-third by ref-3');
    expect(p.state.progress.get('b-third')).toEqual([
      [expect.objectContaining({ ref: 'ref-1' }), expect.objectContaining({ ref: 'ref-3' })],
    ]);
    expect(p.state.balances.get('gems')).toBe(0);

    expect(p.process('grind').result.badges?.map((b) => b.uid)).toContain('b-third');
  });

  test('a badge or trigger requiring a revoked badge is revoked too, transitively', () => {
    const p = playerSpec(catalog);
    p.process('earn');
    p.process('play'); // b-first
    p.process('grind'); // b-follow, then t-follow
    expect(heldUids(p)).toEqual(expect.arrayContaining(['b-follow by ref-3', 't-follow by ref-3']));

    const reversed = p.reverse('ref-2');
    expect(reversed.revokedAwards.map((a) => a.uid)).toEqual(['b-first', 't-play', 'b-follow', 't-follow']);
    expect(heldUids(p).filter((h) => /follow|first/.test(h))).toEqual([]);
  });

  test('a badge that consumed more entries than it needed falls once too few remain, over several reversals', () => {
    const p = playerSpec(catalog);
    p.repeat(3, 'grind'); // b-gated counts them, without its required badge
    p.process('unlock'); // ref-4: b-key
    p.process('grind'); // ref-5: b-gated, consuming ref-1, 2, 3 and 5
    expect(heldUids(p)).toContain('b-gated by ref-5');

    p.reverse('ref-1');
    p.reverse('ref-2');
    expect(heldUids(p)).toContain('b-gated by ref-5'); // ref-3 and ref-5 remain
    p.reverse('ref-3');
    expect(heldUids(p)).not.toContain('b-gated by ref-5');
    expect(p.state.progress.get('b-gated')).toEqual([[expect.objectContaining({ ref: 'ref-5' })]]); // as if 1, 2, 3 never happened
  });

  test('a level reached by a later action is lost with its deliverables when the points no longer reach it', () => {
    const p = playerSpec(catalog);
    p.process('score'); // 15
    p.process('score'); // 30: level 2, with a boost
    const [boost] = p.state.powerups.keys();

    const reversed = p.reverse('ref-1');
    expect(reversed.revokedLevels.map((l) => l.uid)).toEqual(['l2']);
    expect(reversed.effects.powerupsRemoved).toEqual([boost]);
    expect(holdingsOf(p.state)).toMatchObject({ points: 15, balances: {}, levels: ['l1'], powerups: [] });
  });
});

describe('reversal and powerups', () => {
  test('returns the powerup uses the action took', () => {
    const p = playerSpec(catalog);
    p.process('get-boost');
    activateAll(p);
    const earn = p.process('earn');
    expect(earn.result.deliverables?.[0].amount).toBe(100);
    const [owned] = p.state.powerups.values();
    expect(owned.usesConsumed).toBe(1);

    const reversed = p.reverse('ref-2');
    expect(reversed.effects.powerupUses).toEqual([{ uid: owned.instance.uid, uses: -1 }]);
    expect(reversed.effects.balances).toEqual([{ deliverableUid: 'gold', amount: -100 }]);
    expect(p.state.powerups.get(owned.instance.uid)?.usesConsumed).toBe(0);
  });

  test('removes the powerups it granted, and only those', () => {
    const p = playerSpec(catalog);
    p.process('get-boost'); // ref-1: one boost
    p.process('earn');
    p.process('play'); // ref-3: level 2, another boost
    const [kept, granted] = p.state.powerups.keys();

    expect(p.reverse('ref-3').effects.powerupsRemoved).toEqual([granted]);
    expect([...p.state.powerups.keys()]).toEqual([kept]);
    expect(p.reverse('ref-1').effects.powerupsRemoved).toEqual([kept]);
    expect(p.state.powerups.size).toBe(0);
  });
});

describe('evolve of ActionReversed', () => {
  test('leaves points and balances equal to the sum of the events effects', () => {
    const p = playerSpec(catalog);
    for (const name of ['get-boost', 'earn', 'play', 'grind', 'grind', 'grind', 'grind', 'unlock', 'grind', 'score'])
      p.process(name);
    activateAll(p);
    p.process('earn');
    for (const ref of ['ref-3', 'ref-5', 'ref-11', 'ref-1']) p.reverse(ref);

    const { points, balances } = summed(p);
    expect(p.state.points).toBe(points);
    expect(p.state.balances).toEqual(balances);
    expect([...p.state.balances.values()].every((amount) => amount >= 0)).toBe(true);

    // Replaying the stored (serialized) events gives the same state.
    const replayed = given(JSON.parse(JSON.stringify(p.recorded))).state;
    expect(holdingsOf(replayed)).toEqual(holdingsOf(p.state));
    expect(replayed.progress).toEqual(p.state.progress);
  });
});

describe('properties', () => {
  const names = ['earn', 'play', 'grind', 'score', 'unlock', 'get-boost', 'activate'] as const;
  /** Processes the actions in order ('activate' activates every owned powerup); returns their refs. */
  const playAll = (p: PlayerSpec, steps: readonly (typeof names)[number][]) => {
    const refs: string[] = [];
    for (const step of steps) {
      if (step === 'activate') activateAll(p);
      else if (p.tryProcess(step, { ref: `r${refs.length}` }).ok) refs.push(`r${refs.length}`);
    }
    return refs;
  };

  test('reversing every action, latest first, leaves the player as registered', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...names), { maxLength: 30 }), (steps) => {
        const p = playerSpec(catalog);
        const refs = playAll(p, steps);
        for (const ref of refs.reverse()) p.reverse(ref);
        expect(holdingsOf(p.state)).toEqual({
          points: 0,
          balances: {},
          holdings: [],
          levels: refs.length ? ['l1'] : [],
          powerups: [],
        });
        expect([...p.state.progress.values()].flat(2)).toEqual([]);
      }),
    );
  });

  test('whatever is reversed, in any order, balances are the sum of the effects and never negative', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...names), { maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (steps, picks) => {
          const p = playerSpec(catalog);
          const refs = playAll(p, steps);
          for (const pick of picks.slice(0, refs.length)) {
            const result = p.tryReverse(refs[pick % refs.length]);
            if (!result.ok) expect(result.failure.code).toBe(101);
          }
          const { points, balances } = summed(p);
          expect(p.state.points).toBe(points);
          expect(p.state.balances).toEqual(balances);
          expect([...p.state.balances.values()].every((amount) => amount >= 0)).toBe(true);
          expect(p.state.points).toBeGreaterThanOrEqual(0);
        },
      ),
    );
  });
});
