import fc from 'fast-check';
import { addAmounts } from '../../domain/amount';
import { noEffects, type Effects } from '../../domain/events/common';
import type { ActionReversed } from '../../domain/events/player-events';
import type { PlayerState } from '../../domain/player/state';
import { playerStream, provisionStream, referenceStream, stockStream, TRIGGER_ACTIVATIONS } from '../../domain/streams';
import type { ExpectedEvent } from '../../test/support/decider-spec';
import {
  activated,
  catalogOf,
  given,
  OTHER_PLAYER,
  PLAYER,
  playerSpec,
  T0,
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

/** The n-th uid of a spec's env. */
const uid = (n: number) => n.toString(16).padStart(32, '0');
const grant = (uid: string, label: string, type: number, amount = 1) => ({
  uid,
  label,
  type,
  imageName: null,
  amount,
  details: null,
});
const GEMS = (amount: number) => grant('gems', 'Gems', 1, amount);
const SWORD = grant('sword', 'Sword', 1);
const PING = grant('ping', 'Ping', 3);
const BANNER = grant('banner', 'Banner', 2);
const BOOST = grant('boost', 'Double gold', 1);
/** Level 2 revoked: its banner and boost taken back. */
const L2 = { uid: 'l2', level: 2, grants: [BANNER, BOOST] };
type Award = ActionReversed['revokedAwards'][number];
const award = (kind: Award['kind'], uid: string, awardedBy: string, points: number, grants: unknown[], more = {}) => ({
  kind,
  uid,
  rank: null,
  awardedBy,
  awardedAt: T0,
  points,
  grants,
  limited: false,
  ...more,
});

/**
 * What a reversal writes: its ActionReversed on the player's stream (nothing taken back unless
 * told), the reversal on the referenceId's record, and the `more` streams (activations given back,
 * the cost's provision).
 */
const reversed = (
  referenceId: string,
  actionName: string,
  fields: Record<string, unknown>,
  effects: Partial<Effects> = {},
  more: Record<string, ExpectedEvent[]> = {},
) => ({
  [playerStream(PLAYER)]: [
    {
      type: 'ActionReversed',
      data: {
        playerId: PLAYER,
        referenceId,
        actionName,
        timestamp: T0,
        reversedAt: T0,
        actionPoints: 0,
        actionGrants: [],
        revokedAwards: [],
        revokedLevels: [],
        refund: null,
        ...fields,
        effects: { ...noEffects(), ...effects },
      },
    },
  ],
  [referenceStream(referenceId)]: [
    { type: 'ReferenceReversed', data: { referenceId, playerId: PLAYER, reversedAt: T0 } },
  ],
  ...more,
});

/**
 * A first play reversed (after an earn): its points, gems, first badge, limited trigger, level 2
 * and cost; `provision` and `boost` are the uids of its cost's provision and of level 2's boost,
 * `alsoRevoked` the awards of later actions that fall with them.
 */
const playReversed = (ref: string, o: { provision: number; boost: number; alsoRevoked?: unknown[] }) =>
  reversed(
    ref,
    'play',
    {
      actionPoints: 10,
      actionGrants: [GEMS(3)],
      revokedAwards: [
        award('badge', 'b-first', ref, 20, [SWORD]),
        award('trigger', 't-play', ref, 2, [PING], { limited: true }), // its activation goes back to the trigger's stock
        ...(o.alsoRevoked ?? []),
      ],
      revokedLevels: [L2],
      refund: { deliverableUid: 'gold', label: 'Gold', amount: 5, provisionUid: uid(o.provision) },
    },
    {
      points: -32,
      balances: [
        { deliverableUid: 'gems', amount: -3 },
        { deliverableUid: 'sword', amount: -1 },
        { deliverableUid: 'ping', amount: -1 },
        { deliverableUid: 'banner', amount: -1 },
        { deliverableUid: 'gold', amount: 5 },
      ],
      powerupsRemoved: [uid(o.boost)],
    },
    {
      [stockStream(TRIGGER_ACTIVATIONS, 't-play')]: [
        { type: 'TriggerActivationReturned', data: { resourceUid: 't-play', holder: ref, playerId: PLAYER, units: 1 } },
      ],
      [provisionStream(uid(o.provision))]: [
        {
          type: 'ProvisionStatusChanged',
          data: {
            provisionUid: uid(o.provision),
            playerId: PLAYER,
            status: 'Refunded',
            failureReason: null,
            updateDate: T0,
          },
        },
      ],
    },
  );
/** The play after one earn: its cost's provision is the spec's first uid, level 2's boost the second. */
const firstPlayReversed = playReversed('ref-2', { provision: 1, boost: 2 });

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

    const failure = p.reversal(ref, options).thenFails(101);
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

    const { answer } = p.reversal('ref-2').thenWrites(firstPlayReversed);
    expect(answer.refund).toEqual(play.cost);
    expect(holdingsOf(p.state)).toEqual(before);
  });

  test("writes, in one append, the player's reversal, the reference's mark, the limited activation given back and the cost refunded", () => {
    const p = playerSpec(catalog);
    p.process('earn');
    const play = p.process('play');
    const decision = p.reversal('ref-2').thenWrites(firstPlayReversed);
    expect(play.cost!.provisionUid).toBe(uid(1));
    // Given back units and a provision's status need no revision: nothing concurrent can make them wrong.
    expect(decision.writes.map((w) => [w.stream, w.expectedRevision])).toEqual([
      [playerStream(PLAYER), undefined],
      [referenceStream('ref-2'), undefined],
      [stockStream(TRIGGER_ACTIVATIONS, 't-play'), 'any'],
      [provisionStream(uid(1)), 'any'],
    ]);
  });

  test('an action that earned nothing reverses to no change', () => {
    const p = playerSpec(catalog);
    p.process('unlock');
    p.process('unlock');
    p.reversal('ref-2').thenWrites(reversed('ref-2', 'unlock', {}));
  });

  test('takes back a rank earned by a later action whose threshold no longer holds, and keeps the others', () => {
    const p = playerSpec(catalog);
    p.repeat(4, 'grind'); // Bronze by ref-2, Silver by ref-4
    expect(heldUids(p).filter((h) => h.startsWith('b-grinder'))).toEqual([
      'b-grinder#1 by ref-2',
      'b-grinder#2 by ref-4',
    ]);

    // Without ref-1, ref-3 no longer makes three grinds for b-third, nor ref-4 four for Silver.
    p.reversal('ref-1').thenWrites(
      reversed(
        'ref-1',
        'grind',
        {
          actionPoints: 1,
          revokedAwards: [
            award('badge', 'b-third', 'ref-3', 7, [GEMS(1)]),
            award('badge', 'b-grinder', 'ref-4', 2, [PING], { rank: 2 }),
          ],
        },
        {
          points: -10,
          balances: [
            { deliverableUid: 'gems', amount: -1 },
            { deliverableUid: 'ping', amount: -1 },
          ],
        },
      ),
    );
    expect(heldUids(p).filter((h) => h.startsWith('b-grinder'))).toEqual(['b-grinder#1 by ref-2']);
    expect(p.state.balances.get('ping')).toBe(0);

    expect(p.process('grind').result.badges?.find((b) => b.uid === 'b-grinder')?.rank?.label).toBe('Silver'); // 4 again
  });

  test('Repeatable times 3: reversing the 2nd revokes the award; a further action re-earns it', () => {
    const p = playerSpec(catalog);
    p.repeat(3, 'grind');
    expect(heldUids(p)).toContain('b-third by ref-3');

    // Reversing ref-2 takes its own Bronze, and ref-3's b-third, short of a grind, falls.
    p.reversal('ref-2').thenWrites(
      reversed(
        'ref-2',
        'grind',
        {
          actionPoints: 1,
          revokedAwards: [
            award('badge', 'b-grinder', 'ref-2', 1, [], { rank: 1 }),
            award('badge', 'b-third', 'ref-3', 7, [GEMS(1)]),
          ],
        },
        { points: -9, balances: [{ deliverableUid: 'gems', amount: -1 }] },
      ),
    );
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

    p.reversal('ref-2').thenWrites(
      playReversed('ref-2', {
        provision: 1,
        boost: 2,
        alsoRevoked: [award('badge', 'b-follow', 'ref-3', 0, []), award('trigger', 't-follow', 'ref-3', 0, [])],
      }),
    );
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
    p.reversal('ref-3').thenWrites(
      reversed(
        'ref-3',
        'grind',
        { actionPoints: 1, revokedAwards: [award('badge', 'b-gated', 'ref-5', 0, [])] },
        { points: -1 },
      ),
    );
    expect(heldUids(p)).not.toContain('b-gated by ref-5');
    expect(p.state.progress.get('b-gated')).toEqual([[expect.objectContaining({ ref: 'ref-5' })]]); // as if 1, 2, 3 never happened
  });

  test('a level reached by a later action is lost with its deliverables when the points no longer reach it', () => {
    const p = playerSpec(catalog);
    p.process('score'); // 15
    p.process('score'); // 30: level 2, with a boost
    expect([...p.state.powerups.keys()]).toEqual([uid(1)]);

    p.reversal('ref-1').thenWrites(
      reversed(
        'ref-1',
        'score',
        { actionPoints: 15, revokedLevels: [L2] },
        { points: -15, balances: [{ deliverableUid: 'banner', amount: -1 }], powerupsRemoved: [uid(1)] },
      ),
    );
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

    expect(owned.instance.uid).toBe(uid(1));
    p.reversal('ref-2').thenWrites(
      reversed(
        'ref-2',
        'earn',
        { actionGrants: [grant('gold', 'Gold', 1, 100)] },
        { balances: [{ deliverableUid: 'gold', amount: -100 }], powerupUses: [{ uid: uid(1), uses: -1 }] },
      ),
    );
    expect(p.state.powerups.get(owned.instance.uid)?.usesConsumed).toBe(0);
  });

  test('removes the powerups it granted, and only those', () => {
    const p = playerSpec(catalog);
    p.process('get-boost'); // ref-1: one boost
    p.process('earn');
    p.process('play'); // ref-3: level 2, another boost
    const [kept, granted] = [uid(1), uid(3)];
    expect([...p.state.powerups.keys()]).toEqual([kept, granted]);

    // The play's cost is the second uid's provision.
    p.reversal('ref-3').thenWrites(playReversed('ref-3', { provision: 2, boost: 3 }));
    expect([...p.state.powerups.keys()]).toEqual([kept]);
    p.reversal('ref-1').thenWrites(
      reversed('ref-1', 'get-boost', { actionGrants: [BOOST] }, { powerupsRemoved: [kept] }),
    );
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
