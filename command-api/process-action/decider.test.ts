import type { ActionProcessed } from '../../domain/events/player-events';
import { initialPlayerState } from '../../domain/player/state';
import { playerStream, provisionStream, referenceStream, stockStream, TRIGGER_ACTIVATIONS } from '../../domain/streams';
import {
  activated,
  catalogOf,
  DAY,
  failureOf,
  OTHER_PLAYER,
  PLAYER,
  playerEvents,
  playerSpec,
  SECOND,
  streamsOf,
  T0,
  testEnv,
  written,
  type PlayerSpec,
} from '../../test/support/player-spec';
import { registrationOf } from '../register-player/decider';

/** Deliverables every catalog of this file shares. */
const BASE = `
  version: 1
  deliverables:
    - { uid: gold, label: Gold, type: Prize, kind: Currency, imageName: "https://img.example.com/gold.png", details: [{ label: note, value: shiny }] }
    - { uid: gems, label: Gems, type: Prize, kind: Currency }
    - { uid: sword, label: Sword, type: Prize }
    - { uid: banner, label: Banner, type: Content }
    - { uid: ping, label: Ping, type: Notification }
    - { uid: boost-gold, label: Double gold, type: Prize, kind: Powerup, powerup: { multiplier: 2, maxUseCount: 2, timeoutSeconds: 3600, targetPrizes: [gold] } }
    - { uid: boost-all, label: Triple prizes, type: Prize, kind: Powerup, powerup: { multiplier: 3, neverExpires: true } }
`;
const game = (sections: string) => catalogOf(BASE, sections);

const badgeUids = (p: ActionProcessed) =>
  (p.result.badges ?? []).map((b) => (b.rank ? `${b.uid}#${b.rank.rank}` : b.uid));
const triggerUids = (p: ActionProcessed) => (p.result.triggers ?? []).map((t) => t.uid);
const amounts = (p: ActionProcessed) => (p.result.deliverables ?? []).map((d) => [d.uid, d.amount]);

describe('the action result', () => {
  const catalog = game(`
    actions:
      - { identifier: topup, deliverables: [{ deliverable: gems, amount: 10 }] }
      - { identifier: purchase, points: 10, cost: 5, costDeliverable: gems, deliverables: [{ deliverable: gold, amount: 3 }] }
    badges:
      - { uid: b-first, label: First purchase, type: OneTimeOnly, points: 20, imageName: "https://img/b.png", conditions: [{ action: purchase }], deliverables: [{ deliverable: sword, amount: 1 }] }
      - { uid: b-shopper, label: Shopper, type: Ranked, rankSet: rs, conditions: [{ action: purchase }] }
    rankSets:
      - { uid: rs, label: Ranks, ranks: [{ rank: 1, label: Bronze, times: 1, points: 5 }] }
    triggers:
      - { uid: t-hello, label: Hello, type: OneTimeOnly, points: 1, conditions: [{ action: purchase }], deliverables: [{ deliverable: ping, amount: 1 }] }
    levels:
      - { uid: l1, label: Rookie, level: 1, target: 0 }
      - { uid: l2, label: Regular, level: 2, target: 30, imageName: "https://img/l2.png", deliverables: [{ deliverable: banner, amount: 1 }] }
  `);

  test('has the documented shape (docs/api.md, "Actions"), everything granted listed', () => {
    const p = playerSpec(catalog);
    p.process('topup');
    const purchase = p.process('purchase');

    expect(purchase.result).toEqual({
      playerId: PLAYER,
      referenceId: 'ref-2',
      badges: [
        {
          uid: 'b-first',
          label: 'First purchase',
          type: 'OneTimeOnly',
          points: 20,
          imageName: 'https://img/b.png',
          rank: null,
        },
        {
          uid: 'b-shopper',
          label: 'Shopper',
          type: 'Ranked',
          points: 5,
          imageName: null,
          rank: { rank: 1, label: 'Bronze' },
        },
      ],
      triggers: [{ uid: 't-hello', label: 'Hello', points: 1 }],
      achievedLevel: { uid: 'l2', label: 'Regular', level: 2, target: 30, imageName: 'https://img/l2.png' },
      earnedPoints: 36,
      deliverables: [
        {
          uid: 'gold',
          amount: 3,
          label: 'Gold',
          type: 1,
          imageName: 'https://img.example.com/gold.png',
          details: [{ label: 'note', value: 'shiny' }],
        },
        { uid: 'sword', amount: 1, label: 'Sword', type: 1, imageName: null, details: null },
        { uid: 'ping', amount: 1, label: 'Ping', type: 3, imageName: null, details: null },
        { uid: 'banner', amount: 1, label: 'Banner', type: 2, imageName: null, details: null },
      ],
      provisionUid: purchase.cost!.provisionUid,
      streaks: null,
      missions: null,
      capped: null,
    });
    expect(purchase.cost!.provisionUid).toMatch(/^[0-9a-f]{32}$/);
  });

  test('has nulls for empty lists and no provisionUid without a cost', () => {
    const p = playerSpec(catalog);
    expect(p.process('topup').result).toEqual({
      playerId: PLAYER,
      referenceId: 'ref-1',
      badges: null,
      triggers: null,
      achievedLevel: null,
      earnedPoints: 0,
      deliverables: [{ uid: 'gems', amount: 10, label: 'Gems', type: 1, imageName: null, details: null }],
      streaks: null,
      missions: null,
      capped: null,
    });
  });
});

describe('points and multiplier', () => {
  const catalog = game(`
    actions:
      - { identifier: play, points: 10, deliverables: [{ deliverable: gold, amount: 5 }] }
      - { identifier: tiny, points: 3, deliverables: [{ deliverable: gold, amount: 0.7 }] }
      - { identifier: a, points: 0.1, deliverables: [{ deliverable: gems, amount: 0.1 }] }
      - { identifier: b, points: 0.2, deliverables: [{ deliverable: gems, amount: 0.2 }] }
    badges:
      - { uid: b, label: Badge, type: OneTimeOnly, points: 20, conditions: [{ action: play }], deliverables: [{ deliverable: gems, amount: 2 }] }
    triggers:
      - { uid: t, label: Trigger, type: OneTimeOnly, points: 3, conditions: [{ action: play }], deliverables: [{ deliverable: gems, amount: 1 }] }
    levels:
      - { uid: l1, label: L1, level: 1, target: 0 }
      - { uid: l2, label: L2, level: 2, target: 40, deliverables: [{ deliverable: sword, amount: 1 }] }
  `);

  test('the action earns its points and deliverables', () => {
    const p = playerSpec(catalog);
    const play = p.process('play');
    expect(play.actionPoints).toBe(10);
    expect(play.result.earnedPoints).toBe(33); // 10 + badge 20 + trigger 3
    expect(p.state.points).toBe(33);
    expect(p.state.balances.get('gold')).toBe(5);
  });

  test('the multiplier applies to the action points and deliverables, not to badge, trigger or level rewards', () => {
    const p = playerSpec(catalog);
    const play = p.process('play', { multiplier: 2.5 });
    expect(play.actionPoints).toBe(25);
    expect(play.result.earnedPoints).toBe(48); // 25 + 20 + 3
    expect(play.result.achievedLevel?.uid).toBe('l2'); // reached only thanks to the multiplied points
    expect(amounts(play)).toEqual([
      ['gold', 12.5],
      ['gems', 2],
      ['gems', 1],
      ['sword', 1],
    ]);
    expect(Object.fromEntries(p.state.balances)).toEqual({ gold: 12.5, gems: 3, sword: 1 });
  });

  test('multiplied amounts are exact to 6 decimals', () => {
    const p = playerSpec(catalog);
    const tiny = p.process('tiny', { multiplier: 0.1 });
    expect(tiny.actionPoints).toBe(0.3); // not 0.30000000000000004
    expect(amounts(tiny)).toEqual([['gold', 0.07]]);
    expect(p.process('tiny', { multiplier: 0.1234567 }).actionPoints).toBe(0.37037);
  });

  test('0.1 + 0.2 totals 0.3 in points and balances', () => {
    const p = playerSpec(catalog);
    p.process('a');
    p.process('b');
    expect(p.state.points).toBe(0.3);
    expect(p.state.balances.get('gems')).toBe(0.3);
  });
});

describe('pointGap (seconds)', () => {
  const catalog = game(`
    actions:
      - { identifier: login, points: 5, pointGap: 60 }
      - { identifier: other, points: 1 }
    badges:
      - { uid: b-twice, label: Twice, type: OneTimeOnly, points: 100, conditions: [{ action: login, challenge: { times: 2 } }] }
  `);

  test('within the gap the action earns 0 points but still counts for conditions', () => {
    const p = playerSpec(catalog);
    p.process('login', { at: T0 });
    const second = p.process('login', { at: T0 + 30 * SECOND });
    expect(second.actionPoints).toBe(0);
    expect(second.pointsAwarded).toBe(false);
    expect(badgeUids(second)).toEqual(['b-twice']);
    expect(second.result.earnedPoints).toBe(100);
  });

  test('exactly at the gap edge earns points; the gap runs from the last point award', () => {
    const p = playerSpec(catalog);
    p.process('login', { at: T0 });
    expect(p.process('login', { at: T0 + 60 * SECOND - 1 }).actionPoints).toBe(0);
    expect(p.process('login', { at: T0 + 60 * SECOND }).actionPoints).toBe(5);
    expect(p.process('login', { at: T0 + 119 * SECOND }).actionPoints).toBe(0);
    expect(p.process('other', { at: T0 + 119 * SECOND }).actionPoints).toBe(1); // per action
  });

  test('a backdated action does not move the gap back', () => {
    const p = playerSpec(catalog);
    p.process('login', { at: T0 + 100 * SECOND });
    expect(p.process('login', { at: T0 }).actionPoints).toBe(5); // 100 s before the last award
    expect(p.process('login', { at: T0 + 101 * SECOND }).actionPoints).toBe(0); // 1 s after it
  });
});

describe('cost', () => {
  const catalog = game(`
    actions:
      - { identifier: earn, deliverables: [{ deliverable: gold, amount: 10 }] }
      - { identifier: spin, points: 1, cost: 10, costDeliverable: gold, deliverables: [{ deliverable: gold, amount: 2 }, { deliverable: gems, amount: 1 }] }
  `);

  test('is charged in the same event, not multiplied, with its provision in the result', () => {
    const p = playerSpec(catalog);
    p.process('earn');
    const spin = p.process('spin', { multiplier: 3 }); // balance exactly the cost
    expect(spin.cost).toEqual({
      deliverableUid: 'gold',
      label: 'Gold',
      amount: 10,
      provisionUid: spin.result.provisionUid,
    });
    expect(spin.effects.balances).toEqual([
      { deliverableUid: 'gold', amount: -4 }, // +6 granted, -10 charged
      { deliverableUid: 'gems', amount: 3 },
    ]);
    expect(p.state.balances.get('gold')).toBe(6);
  });

  test('when the balance is short: 9001 and nothing is emitted', () => {
    const p = playerSpec(catalog);
    p.process('earn');
    p.process('spin');
    const before = p.recorded.length;
    expect(failureOf(p.tryProcess('spin'))).toMatchObject({ code: 9001 }); // 2 < 10
    expect(p.recorded.length).toBe(before);
    expect(p.state.balances.get('gold')).toBe(2);
  });

  test('a new player can pay with what the registration grants', () => {
    const welcome = catalogOf(
      BASE,
      `
      actions: [{ identifier: spin, cost: 10, costDeliverable: gold }]
      levels: [{ uid: l1, label: L1, level: 1, target: 0, deliverables: [{ deliverable: gold, amount: 10 }] }]
    `,
    );
    const p = playerSpec(welcome);
    expect(p.process('spin').cost?.amount).toBe(10);
    expect(p.state.balances.get('gold')).toBe(0);
  });

  test('an unknown player who cannot pay is not registered either', () => {
    const p = playerSpec(catalog);
    expect(failureOf(p.tryProcess('spin')).code).toBe(9001);
    expect(p.recorded).toEqual([]);
  });
});

describe('actions and players', () => {
  const catalog = game(`
    actions:
      - { identifier: play, points: 1 }
      - { identifier: retired, points: 1, isActive: false }
    levels:
      - { uid: l1, label: L1, level: 1, target: 0, deliverables: [{ deliverable: gems, amount: 1 }] }
  `);

  test.each(['unknown', 'retired'])('5004 for the %s action', (name) => {
    const p = playerSpec(catalog);
    expect(failureOf(p.tryProcess(name))).toEqual({ code: 5004, message: 'Action does not exist or is inactive' });
    expect(p.recorded).toEqual([]);
  });

  test('auto-registration emits PlayerRegistered first, once, reaching level 1', () => {
    const p = playerSpec(catalog);
    const first = p.tryProcess('play');
    expect(first.ok && playerEvents(first.value).map((e) => e.type)).toEqual(['PlayerRegistered', 'ActionProcessed']);
    expect(p.state.registered).toBe(true);
    expect([...p.state.levelsReached]).toEqual([['l1', 1]]);
    expect(p.state.balances.get('gems')).toBe(1); // level 1's deliverable, with the registration
    const second = p.tryProcess('play');
    expect(second.ok && playerEvents(second.value).map((e) => e.type)).toEqual(['ActionProcessed']);
  });

  test('5003 for an unknown player when autoRegisterPlayers is false; a registered one plays', () => {
    const closed = catalogOf(
      BASE,
      'settings: { autoRegisterPlayers: false }',
      'actions: [{ identifier: play, points: 1 }]',
    );
    const p = playerSpec(closed);
    expect(failureOf(p.tryProcess('play'))).toEqual({ code: 5003, message: 'PlayerId does not exist' });
    expect(p.recorded).toEqual([]);

    const registered = registrationOf(closed, initialPlayerState(PLAYER), PLAYER, testEnv());
    if (!registered.ok) throw new Error(registered.failure.message);
    p.given({ type: 'PlayerRegistered', data: registered.value });
    expect(p.process('play').result.earnedPoints).toBe(1);
  });

  test('2601 for a referenceId already processed', () => {
    const p = playerSpec(catalog);
    p.process('play', { ref: 'r' });
    expect(failureOf(p.tryProcess('play', { ref: 'r' })).code).toBe(2601);
  });

  test("2601 for a referenceId another player's action recorded, and nothing written", () => {
    const p = playerSpec(catalog);
    p.streams.set(referenceStream('theirs'), [
      {
        type: 'ReferenceRecorded',
        data: { referenceId: 'theirs', playerId: OTHER_PLAYER, actionName: 'play', playerRevision: 0 },
      },
    ]);
    const decided = p.tryProcess('play', { ref: 'theirs' });
    expect(failureOf(decided)).toEqual({ code: 2601, message: 'Duplicate action' });
  });
});

describe('what one action writes, in one append', () => {
  const catalog = game(`
    actions:
      - { identifier: earn, deliverables: [{ deliverable: gold, amount: 20 }] }
      - { identifier: spin, points: 1, cost: 5, costDeliverable: gold }
    triggers:
      - { uid: t-limited, label: Limited, type: OneTimeOnly, limited: true, limit: 3, conditions: [{ action: spin }] }
  `);

  test("the player's events, the referenceId's record naming their revision, an activation taken, the cost's provision", () => {
    const p = playerSpec(catalog);
    p.process('earn', { ref: 'first' }); // PlayerRegistered at 0, ActionProcessed at 1
    const spin = p.tryProcess('spin', { ref: 'second' });
    if (!spin.ok) throw new Error('spin failed');
    const provisionUid = spin.value.answer.provisionUid!;
    expect(streamsOf(spin.value)).toEqual([
      playerStream(PLAYER),
      referenceStream('second'),
      stockStream(TRIGGER_ACTIVATIONS, 't-limited'),
      provisionStream(provisionUid),
    ]);
    expect(written(spin.value, referenceStream('second'))).toEqual([
      {
        type: 'ReferenceRecorded',
        data: { referenceId: 'second', playerId: PLAYER, actionName: 'spin', playerRevision: 2 },
      },
    ]);
    expect(written(spin.value, stockStream(TRIGGER_ACTIVATIONS, 't-limited'))).toEqual([
      {
        type: 'TriggerActivationTaken',
        data: { resourceUid: 't-limited', holder: 'second', playerId: PLAYER, units: 1 },
      },
    ]);
    expect(written(spin.value, provisionStream(provisionUid))).toEqual([
      {
        type: 'ProvisionOpened',
        data: {
          provisionUid,
          playerId: PLAYER,
          referenceType: 'Action',
          bundleUid: null,
          referenceId: 'second',
          cost: { deliverableUid: 'gold', label: 'Gold', amount: 5 },
          status: 'Completed',
          createDate: T0,
        },
      },
    ]);
    const provisionWrite = spin.value.writes.find((w) => w.stream === provisionStream(provisionUid))!;
    expect(provisionWrite.expectedRevision).toBe('no_stream');
  });

  test("a new player's reference names the revision after its registration", () => {
    const p = playerSpec(catalog);
    const first = p.tryProcess('earn', { ref: 'r' });
    expect(first.ok && written(first.value, referenceStream('r'))).toEqual([
      {
        type: 'ReferenceRecorded',
        data: { referenceId: 'r', playerId: PLAYER, actionName: 'earn', playerRevision: 1 },
      },
    ]);
  });

  test('a limited trigger whose activations are all taken does not fire, and its stock is not written', () => {
    const p = playerSpec(catalog);
    p.process('earn');
    const takenByOthers = [0, 1, 2].map((i) => ({
      type: TRIGGER_ACTIVATIONS.taken,
      data: { resourceUid: 't-limited', holder: `theirs-${i}`, playerId: OTHER_PLAYER, units: 1 },
    }));
    p.streams.set(stockStream(TRIGGER_ACTIVATIONS, 't-limited'), takenByOthers);
    const late = p.tryProcess('spin', { ref: 'late', at: T0 });
    if (!late.ok) throw new Error('late failed');
    expect(late.value.answer.triggers).toBeNull();
    expect(streamsOf(late.value)).not.toContain(stockStream(TRIGGER_ACTIVATIONS, 't-limited'));
  });
});

describe('filters', () => {
  /** Whether an action with these details passes the filter (a Repeatable badge with no challenge is earned). */
  const passes = (filter: string, details: Record<string, string>) => {
    const catalog = game(`
      actions: [{ identifier: buy }]
      badges: [{ uid: b, label: B, type: Repeatable, conditions: [{ action: buy, filters: [${filter}] }] }]
    `);
    return playerSpec(catalog).process('buy', { details }).result.badges !== null;
  };

  test.each([
    ['eq', '10', '10.0', true], // numbers when both sides are numbers
    ['eq', 'abc', 'abc', true],
    ['eq', 'abc', 'ABC', false],
    ['ne', '5', '5.00', false],
    ['ne', '5', '6', true],
    ['gt', '9', '10', true], // as strings "10" < "9"
    ['gt', '9', '9', false],
    ['gt', 'apple', 'banana', true], // strings
    ['gt', 'banana', 'apple', false],
    ['gte', '9', '9', true],
    ['gte', '9', '8.999', false],
    ['lt', '10', '9', true],
    ['lt', '10', '10', false],
    ['lte', '10', '10', true],
    ['lte', '10', '10.5', false],
    ['lt', '5', 'abc', false], // one side not a number: strings, "abc" > "5"
  ])('%s %s with the detail %s: %s', (op, value, detail, expected) => {
    expect(passes(`{ name: x, op: ${op}, value: "${value}" }`, { x: detail })).toBe(expected);
  });

  test.each([
    ['books', true],
    ['food', false],
    ['5.0', true], // number against number
  ])('in [books, toys, 5] with %s: %s', (detail, expected) => {
    expect(passes('{ name: x, op: in, value: [books, toys, 5] }', { x: detail })).toBe(expected);
  });

  test.each([
    ['electronics', true],
    ['tron', true],
    ['food', false],
  ])('contains "tron" with %s: %s', (detail, expected) => {
    expect(passes('{ name: x, op: contains, value: tron }', { x: detail })).toBe(expected);
  });

  test.each(['eq', 'ne', 'gt', 'lt'])('%s on a detail the action did not send does not match', (op) => {
    expect(passes(`{ name: x, op: ${op}, value: "1" }`, { y: '1' })).toBe(false);
  });

  test('every filter must match', () => {
    const both = '{ name: x, op: gte, value: 1 }, { name: y, op: eq, value: a }';
    expect(passes(both, { x: '2', y: 'a' })).toBe(true);
    expect(passes(both, { x: '2', y: 'b' })).toBe(false);
  });
});

describe('challenges', () => {
  const catalog = game(`
    actions:
      - { identifier: login }
      - { identifier: buy, actionObjects: [{ label: amount, type: Number }] }
    badges:
      - { uid: b-times, label: Three logins, type: OneTimeOnly, conditions: [{ action: login, challenge: { times: 3 } }] }
      - { uid: b-sum, label: Spent 100, type: OneTimeOnly, conditions: [{ action: buy, challenge: { sum: { field: amount, atLeast: 100 } } }] }
  `);

  test('times: earned at the given count, not before', () => {
    const p = playerSpec(catalog);
    expect(badgeUids(p.process('login'))).toEqual([]);
    expect(badgeUids(p.process('login'))).toEqual([]);
    expect(badgeUids(p.process('login'))).toEqual(['b-times']);
  });

  test('sum of a Number detail: earned when the total reaches atLeast; a non-numeric value adds 0', () => {
    const p = playerSpec(catalog);
    expect(badgeUids(p.process('buy', { details: { amount: 40 } }))).toEqual([]);
    expect(badgeUids(p.process('buy', { details: { amount: 'lots' } }))).toEqual([]);
    expect(badgeUids(p.process('buy', { details: { amount: 59.99 } }))).toEqual([]);
    expect(badgeUids(p.process('buy', { details: { amount: 0.01 } }))).toEqual(['b-sum']); // exactly 100
  });

  test('sum totals are exact: ten times 0.1 reaches 1', () => {
    const p = playerSpec(
      game(`
        actions: [{ identifier: buy, actionObjects: [{ label: amount, type: Number }] }]
        badges: [{ uid: b, label: One, type: OneTimeOnly, conditions: [{ action: buy, challenge: { sum: { field: amount, atLeast: 1 } } }] }]
      `),
    );
    expect(badgeUids(p.repeat(9, 'buy', { details: { amount: 0.1 } }))).toEqual([]);
    expect(badgeUids(p.process('buy', { details: { amount: 0.1 } }))).toEqual(['b']);
  });

  describe('withinDays: a sliding window of the last days', () => {
    const windowed = game(`
      actions: [{ identifier: login }]
      badges: [{ uid: b, label: Two a day, type: OneTimeOnly, conditions: [{ action: login, challenge: { times: 2, withinDays: 1 } }] }]
    `);

    test('an action just inside the window counts', () => {
      const p = playerSpec(windowed);
      p.process('login', { at: T0 });
      expect(badgeUids(p.process('login', { at: T0 + DAY - 1 }))).toEqual(['b']);
    });

    test('an action exactly withinDays old has left the window', () => {
      const p = playerSpec(windowed);
      p.process('login', { at: T0 });
      expect(badgeUids(p.process('login', { at: T0 + DAY }))).toEqual([]);
      expect(badgeUids(p.process('login', { at: T0 + DAY + 1 }))).toEqual(['b']); // the last two
    });
  });

  describe('between fixed dates (inclusive)', () => {
    const dated = game(`
      actions: [{ identifier: login }]
      badges:
        - uid: b
          label: June 2nd
          type: OneTimeOnly
          conditions: [{ action: login, challenge: { times: 2, between: { start: 2026-06-02T00:00:00, end: 2026-06-03T00:00:00 } } }]
    `);

    test('actions at the start and at the end count', () => {
      const p = playerSpec(dated);
      p.process('login', { at: T0 + DAY - 1 }); // before the start
      expect(badgeUids(p.process('login', { at: T0 + DAY }))).toEqual([]);
      expect(badgeUids(p.process('login', { at: T0 + 2 * DAY }))).toEqual(['b']);
    });

    test('an action after the end does not count', () => {
      const p = playerSpec(dated);
      p.process('login', { at: T0 + DAY });
      expect(badgeUids(p.process('login', { at: T0 + 2 * DAY + 1 }))).toEqual([]);
    });
  });

  test('combined: all given parts must hold over the same entries', () => {
    const p = playerSpec(
      game(`
        actions: [{ identifier: buy, actionObjects: [{ label: amount, type: Number }] }]
        badges:
          - { uid: b, label: Big week, type: OneTimeOnly, conditions: [{ action: buy, challenge: { times: 2, sum: { field: amount, atLeast: 100 }, withinDays: 7 } }] }
      `),
    );
    p.process('buy', { at: T0, details: { amount: 80 } });
    expect(badgeUids(p.process('buy', { at: T0 + 8 * DAY, details: { amount: 30 } }))).toEqual([]); // the 80 left the window
    expect(badgeUids(p.process('buy', { at: T0 + 9 * DAY, details: { amount: 69 } }))).toEqual([]); // 2 times, sum 99
    expect(badgeUids(p.process('buy', { at: T0 + 10 * DAY, details: { amount: 1 } }))).toEqual(['b']);
  });

  test('several conditions on different actions must all hold', () => {
    const p = playerSpec(
      game(`
        actions: [{ identifier: login }, { identifier: buy }]
        badges: [{ uid: b, label: Both, type: OneTimeOnly, conditions: [{ action: login, challenge: { times: 2 } }, { action: buy }] }]
      `),
    );
    expect(badgeUids(p.process('login'))).toEqual([]);
    expect(badgeUids(p.process('buy'))).toEqual([]);
    expect(badgeUids(p.process('login'))).toEqual(['b']);
  });
});

describe('badge types', () => {
  const catalog = game(`
    actions:
      - { identifier: play }
      - { identifier: buy, actionObjects: [{ label: amount, type: Number }] }
    badges:
      - { uid: b-once, label: Once, type: OneTimeOnly, points: 5, conditions: [{ action: play }] }
      - { uid: b-again, label: Every third, type: Repeatable, points: 7, conditions: [{ action: play, challenge: { times: 3 } }] }
      - { uid: b-ranked, label: Player, type: Ranked, points: 100, rankSet: rs-times, conditions: [{ action: play }], deliverables: [{ deliverable: sword, amount: 1 }] }
      - { uid: b-spender, label: Spender, type: Ranked, points: 50, rankSet: rs-sum, conditions: [{ action: buy, challenge: { sum: { field: amount, atLeast: 0 } } }] }
    rankSets:
      - uid: rs-times
        label: By count
        ranks:
          - { rank: 1, label: Bronze, times: 2, points: 10, deliverables: [{ deliverable: gems, amount: 1 }] }
          - { rank: 2, label: Silver, times: 4, points: 20 }
          - { rank: 3, label: Gold, times: 6, points: 30 }
      - uid: rs-sum
        label: By amount
        ranks:
          - { rank: 1, label: Bronze, sum: 100, points: 1 }
          - { rank: 2, label: Silver, sum: 250, points: 2 }
  `);

  test('OneTimeOnly is awarded once', () => {
    const p = playerSpec(catalog);
    const awardsOf = (a: ActionProcessed) => badgeUids(a).filter((u) => u === 'b-once');
    expect(awardsOf(p.process('play'))).toEqual(['b-once']);
    expect(awardsOf(p.process('play'))).toEqual([]);
    expect(p.state.holdings.filter((h) => h.uid === 'b-once')).toHaveLength(1);
  });

  test('Repeatable is awarded again after its progress restarts: the 3rd and the 6th', () => {
    const p = playerSpec(catalog);
    const awarded = [1, 2, 3, 4, 5, 6, 7].map(() => badgeUids(p.process('play')).includes('b-again'));
    expect(awarded).toEqual([false, false, true, false, false, true, false]);
  });

  test('Ranked by times: each rank at its threshold; the badge points and deliverables come with the first', () => {
    const p = playerSpec(catalog);
    const plays = [1, 2, 3, 4, 5, 6, 7].map(() => p.process('play'));
    const ranked = plays.map((play) => play.result.badges?.find((b) => b.uid === 'b-ranked') ?? null);
    expect(ranked.map((b) => b?.rank?.label ?? null)).toEqual([null, 'Bronze', null, 'Silver', null, 'Gold', null]);
    expect(ranked.map((b) => b?.points ?? null)).toEqual([null, 110, null, 20, null, 30, null]);
    expect(plays[1].awards.find((a) => a.uid === 'b-ranked')!.grants.map((g) => [g.uid, g.amount])).toEqual([
      ['sword', 1],
      ['gems', 1],
    ]);
  });

  test('Ranked by sum of the condition field', () => {
    const p = playerSpec(catalog);
    expect(badgeUids(p.process('buy', { details: { amount: 60 } }))).toEqual([]);
    expect(badgeUids(p.process('buy', { details: { amount: 40 } }))).toEqual(['b-spender#1']); // exactly 100
    expect(badgeUids(p.process('buy', { details: { amount: 149 } }))).toEqual([]);
    expect(badgeUids(p.process('buy', { details: { amount: 1 } }))).toEqual(['b-spender#2']);
  });

  test('several ranks in one action, the badge points with the first only', () => {
    const p = playerSpec(catalog);
    const buy = p.process('buy', { details: { amount: 300 } });
    expect(buy.result.badges).toEqual([
      {
        uid: 'b-spender',
        label: 'Spender',
        type: 'Ranked',
        points: 51,
        imageName: null,
        rank: { rank: 1, label: 'Bronze' },
      },
      {
        uid: 'b-spender',
        label: 'Spender',
        type: 'Ranked',
        points: 2,
        imageName: null,
        rank: { rank: 2, label: 'Silver' },
      },
    ]);
    expect(buy.result.earnedPoints).toBe(53);
  });
});

describe('requiredBadge and badge dates', () => {
  const catalog = game(`
    actions: [{ identifier: buy }, { identifier: visit }]
    badges:
      - { uid: b-vip, label: VIP, type: OneTimeOnly, requiredBadge: b-first, conditions: [{ action: buy }] }
      - { uid: b-first, label: Regular, type: OneTimeOnly, conditions: [{ action: buy, challenge: { times: 2 } }] }
      - { uid: b-summer, label: Summer, type: Repeatable, startDate: 2026-06-02T00:00:00, endDate: 2026-06-03T00:00:00, conditions: [{ action: visit }] }
      - { uid: b-late, label: Late, type: OneTimeOnly, startDate: 2026-06-02T00:00:00, conditions: [{ action: visit, challenge: { times: 2 } }] }
    triggers:
      - { uid: t-vip, label: VIP follow-up, type: OneTimeOnly, requiredBadge: b-vip, conditions: [{ action: buy }] }
  `);

  test('a badge is not earned without its required badge, and is earned in the same action right after it', () => {
    const p = playerSpec(catalog);
    const first = p.process('buy');
    expect(badgeUids(first)).toEqual([]);
    expect(triggerUids(first)).toEqual([]);
    const second = p.process('buy');
    expect(badgeUids(second)).toEqual(['b-first', 'b-vip']);
    expect(triggerUids(second)).toEqual(['t-vip']); // a trigger may require a badge too
  });

  test('outside startDate..endDate (inclusive) a badge is not earned', () => {
    const p = playerSpec(catalog);
    const summer = (at: number) => badgeUids(p.process('visit', { at })).includes('b-summer');
    expect([T0 + DAY - 1, T0 + DAY, T0 + 2 * DAY, T0 + 2 * DAY + 1].map(summer)).toEqual([false, true, true, false]);
  });

  test('actions before startDate do not count towards the badge', () => {
    const p = playerSpec(catalog);
    p.process('visit', { at: T0 });
    expect(badgeUids(p.process('visit', { at: T0 + DAY }))).not.toContain('b-late');
    expect(badgeUids(p.process('visit', { at: T0 + DAY + 1 }))).toContain('b-late');
  });
});

describe('triggers', () => {
  const catalog = game(`
    actions: [{ identifier: spin }, { identifier: login }]
    triggers:
      - { uid: t-spin, label: Spinner, type: OneTimeOnly, points: 4, conditions: [{ action: spin }], deliverables: [{ deliverable: ping, amount: 1 }] }
      - uid: t-lucky
        label: Lucky
        type: Repeatable
        randomizedPrize: true
        conditions: [{ action: spin }]
        deliverables: [{ deliverable: gold, amount: 10, weight: 3 }, { deliverable: gems, amount: 1, weight: 1 }]
      - { uid: t-limited, label: First hundred, type: OneTimeOnly, limited: true, limit: 100, points: 1, conditions: [{ action: login }] }
      - { uid: t-open, label: Anyone, type: OneTimeOnly, conditions: [{ action: login }] }
  `);

  test('award their points and deliverables; the result lists them without deliverables', () => {
    const p = playerSpec(catalog);
    const spin = p.process('spin');
    expect(spin.result.triggers).toEqual([
      { uid: 't-spin', label: 'Spinner', points: 4 },
      { uid: 't-lucky', label: 'Lucky', points: 0 },
    ]);
    expect(spin.result.earnedPoints).toBe(4);
    expect(spin.result.badges).toBeNull();
    expect(amounts(spin)[0]).toEqual(['ping', 1]);
  });

  test('randomizedPrize grants ONE deliverable, picked by weight', () => {
    const p = playerSpec(catalog);
    p.env.random = () => 0.7499; // 0.7499 * 4 < 3: the first
    expect(
      p
        .process('spin')
        .awards.find((a) => a.uid === 't-lucky')!
        .grants.map((g) => g.uid),
    ).toEqual(['gold']);
    p.env.random = () => 0.75;
    expect(
      p
        .process('spin')
        .awards.find((a) => a.uid === 't-lucky')!
        .grants.map((g) => g.uid),
    ).toEqual(['gems']);
  });

  test('randomizedPrize picks follow the weights over many draws', () => {
    const p = playerSpec(catalog, { seed: 7 });
    const picks = { gold: 0, gems: 0 };
    for (let i = 0; i < 4000; i++) {
      const grants = p.process('spin').awards.find((a) => a.uid === 't-lucky')!.grants;
      expect(grants).toHaveLength(1);
      picks[grants[0].uid as 'gold' | 'gems']++;
    }
    expect(picks.gold / 4000).toBeGreaterThan(0.72);
    expect(picks.gold / 4000).toBeLessThan(0.78);
  });

  test('a limited trigger is marked limited, and skipped when it has no activation left', () => {
    const open = playerSpec(catalog);
    expect(open.process('login').awards.map((a) => [a.uid, a.limited])).toEqual([
      ['t-limited', true],
      ['t-open', false],
    ]);

    const exhausted = playerSpec(catalog);
    exhausted.exhaustedTriggers.add('t-limited');
    const login = exhausted.process('login');
    expect(triggerUids(login)).toEqual(['t-open']);
    expect(login.result.earnedPoints).toBe(0);
  });
});

describe('levels (cumulative points)', () => {
  const catalog = game(`
    actions: [{ identifier: big, points: 20 }, { identifier: small, points: 5 }, { identifier: quiet }]
    badges: [{ uid: b, label: Quiet, type: OneTimeOnly, points: 40, conditions: [{ action: quiet }] }]
    levels:
      - { uid: l1, label: L1, level: 1, target: 0, deliverables: [{ deliverable: banner, amount: 1 }] }
      - { uid: l2, label: L2, level: 2, target: 10, deliverables: [{ deliverable: gems, amount: 1 }] }
      - { uid: l3, label: L3, level: 3, target: 20, deliverables: [{ deliverable: sword, amount: 1 }] }
      - { uid: l4, label: L4, level: 4, target: 30 }
      - { uid: l5, label: L5, level: 5, target: 60 }
  `);

  test('several levels crossed in one action each grant their deliverables; achievedLevel is the highest', () => {
    const p = playerSpec(catalog);
    const big = p.process('big'); // exactly at level 3's target
    expect(big.levels.map((l) => l.uid)).toEqual(['l2', 'l3']);
    expect(big.result.achievedLevel).toEqual({ uid: 'l3', label: 'L3', level: 3, target: 20, imageName: null });
    expect(amounts(big)).toEqual([
      ['gems', 1],
      ['sword', 1],
    ]);
    expect(p.process('small').result.achievedLevel).toBeNull(); // 25
    expect(p.process('small').result.achievedLevel?.uid).toBe('l4'); // exactly 30
    expect(Object.fromEntries(p.state.levelsReached)).toEqual({ l1: 1, l2: 2, l3: 3, l4: 4 });
  });

  test('level 1 comes with the registration, not in the action result', () => {
    const p = playerSpec(catalog);
    const first = p.process('small');
    expect(first.result.achievedLevel).toBeNull();
    expect(first.result.deliverables).toBeNull();
    expect(p.state.balances.get('banner')).toBe(1);
  });

  test('badge points count towards levels', () => {
    const p = playerSpec(catalog);
    p.process('big');
    expect(p.process('quiet').result.achievedLevel?.uid).toBe('l5'); // 20 + 40
  });
});

describe('powerups', () => {
  const catalog = game(`
    actions:
      - { identifier: get-boost-gold, deliverables: [{ deliverable: boost-gold, amount: 1 }] }
      - { identifier: get-boost-all, deliverables: [{ deliverable: boost-all, amount: 1 }] }
      - { identifier: play, points: 10, deliverables: [{ deliverable: gold, amount: 5 }, { deliverable: gems, amount: 1 }, { deliverable: banner, amount: 1 }] }
      - { identifier: gems-only, points: 1, deliverables: [{ deliverable: gems, amount: 1 }] }
      - { identifier: quest, points: 1000 }
    badges:
      - { uid: b-quest, label: Quest, type: OneTimeOnly, conditions: [{ action: quest }], deliverables: [{ deliverable: gold, amount: 7 }] }
    triggers:
      - { uid: t-quest, label: Quest trigger, type: OneTimeOnly, conditions: [{ action: quest }], deliverables: [{ deliverable: gold, amount: 1 }] }
    levels:
      - { uid: l1, label: L1, level: 1, target: 0 }
      - { uid: l2, label: L2, level: 2, target: 1000, deliverables: [{ deliverable: gold, amount: 100 }] }
  `);

  /** Given owned powerups, each activated by its PowerupActivated event. */
  const owning = (...boosts: ('boost-gold' | 'boost-all')[]): PlayerSpec => {
    const p = playerSpec(catalog);
    for (const b of boosts) p.process(`get-${b}`);
    for (const uid of [...p.state.powerups.keys()]) p.given(activated(uid, p.env.now));
    return p;
  };
  const usesOf = (p: PlayerSpec) =>
    [...p.state.powerups.values()].map((o) => [o.instance.deliverableUid, o.usesConsumed]);

  test('an activated powerup multiplies its target prizes, not points or other prizes, and uses one use', () => {
    const p = owning('boost-gold');
    const play = p.process('play');
    expect(amounts(play)).toEqual([
      ['gold', 10],
      ['gems', 1],
      ['banner', 1],
    ]);
    expect(play.result.earnedPoints).toBe(10);
    expect(play.effects.powerupUses).toEqual([{ uid: [...p.state.powerups.keys()][0], uses: 1 }]);
    expect(usesOf(p)).toEqual([['boost-gold', 1]]);
  });

  test('a powerup that is not activated does not apply', () => {
    const p = playerSpec(catalog);
    p.process('get-boost-gold');
    expect(amounts(p.process('play'))[0]).toEqual(['gold', 5]);
    expect(usesOf(p)).toEqual([['boost-gold', 0]]);
  });

  test('empty targetPrizes: every Prize, not Content', () => {
    const p = owning('boost-all');
    expect(amounts(p.process('play'))).toEqual([
      ['gold', 15],
      ['gems', 3],
      ['banner', 1],
    ]);
  });

  test('several powerups multiply together and with the request multiplier; each uses one use', () => {
    const p = owning('boost-gold', 'boost-all');
    const play = p.process('play', { multiplier: 2 });
    expect(amounts(play)).toEqual([
      ['gold', 60], // 5 x 2 x 2 x 3
      ['gems', 6], // 1 x 2 x 3
      ['banner', 2],
    ]);
    expect(play.actionPoints).toBe(20);
    expect(usesOf(p)).toEqual([
      ['boost-gold', 1],
      ['boost-all', 1],
    ]);
  });

  test('an action granting none of its target prizes uses none', () => {
    const p = owning('boost-gold');
    const gemsOnly = p.process('gems-only');
    expect(amounts(gemsOnly)).toEqual([['gems', 1]]);
    expect(gemsOnly.effects.powerupUses).toEqual([]);
    expect(usesOf(p)).toEqual([['boost-gold', 0]]);
  });

  test('badge, trigger and level prizes are multiplied too, with one use for the whole action', () => {
    const p = owning('boost-gold');
    const quest = p.process('quest'); // reaches level 2
    expect(amounts(quest)).toEqual([
      ['gold', 14],
      ['gold', 2],
      ['gold', 200],
    ]);
    expect(p.state.balances.get('gold')).toBe(216);
    expect(usesOf(p)).toEqual([['boost-gold', 1]]);
  });

  test('a used-up powerup stops applying (maxUseCount 2); 0 means unlimited', () => {
    const p = owning('boost-gold', 'boost-all');
    p.repeat(2, 'play');
    const third = p.process('play');
    expect(amounts(third)[0]).toEqual(['gold', 15]); // boost-all only
    expect(usesOf(p)).toEqual([
      ['boost-gold', 2],
      ['boost-all', 3],
    ]);
  });

  test('an expired powerup stops applying, at expiresAt exactly', () => {
    const p = owning('boost-gold');
    const [owned] = p.state.powerups.values();
    expect(owned.instance.expiresAt).toBe(T0 / 1000 + 3600);
    p.env.now = T0 + 3599 * SECOND;
    expect(amounts(p.process('play'))[0]).toEqual(['gold', 10]);
    p.env.now = T0 + 3600 * SECOND;
    expect(amounts(p.process('play'))[0]).toEqual(['gold', 5]);
    expect(p.state.powerups.get(owned.instance.uid)?.usesConsumed).toBe(1);
  });
});
