import type { ChestOpened } from '../../domain/events/inventory-events';
import { noEffects, type Effects } from '../../domain/events/common';
import { chestStockUid, findChest, limitedSlots, stockUnitsOf } from '../../domain/rules/chests';
import { CHEST_STOCK, playerStream, stockStream } from '../../domain/streams';
import {
  catalogOf,
  given,
  OTHER_PLAYER,
  PLAYER,
  playerSpec,
  T0,
  testEnv,
  type PlayerSpec,
} from '../../test/support/player-spec';
import { deciderSpec, type GivenStreams, type Then } from '../../test/support/decider-spec';
import { openChestDecider } from './decider';

const catalog = catalogOf(`
  version: 1
  deliverables:
    - { uid: gold, label: Gold, type: Prize, kind: Currency, imageName: "https://img.example.com/gold.png" }
    - { uid: gems, label: Gems, type: Prize, kind: Currency }
    - { uid: sword, label: Sword, type: Prize }
    - { uid: boost, label: Boost, type: Prize, kind: Powerup, powerup: { multiplier: 2, neverExpires: true } }
    - uid: chest-freq
      label: Frequency chest
      type: Prize
      kind: Chest
      chest:
        drawCount: { min: 1, max: 3 }
        pool:
          - { reward: gold, amount: { min: 1, max: 3 }, weight: 70 }
          - { reward: gems, amount: { min: 0.5, max: 1.5 }, weight: 25 }
          - { reward: sword, amount: { min: 1, max: 1 }, weight: 5, stock: 1000 }
    - uid: chest-limited
      label: Limited chest
      type: Prize
      kind: Chest
      chest:
        drawCount: { min: 3, max: 3 }
        pool:
          - { reward: sword, amount: { min: 1, max: 1 }, weight: 1, stock: 5 }
          - { reward: gems, amount: { min: 1, max: 1 }, weight: 0 }
    - uid: chest-points
      label: Points chest
      type: Prize
      kind: Chest
      imageName: "https://img.example.com/chest.png"
      chest: { pool: [{ reward: points, amount: { min: 150, max: 150 }, weight: 1 }] }
    - uid: chest-boost
      label: Boost chest
      type: Prize
      kind: Chest
      chest: { pool: [{ reward: boost, amount: { min: 2, max: 2 }, weight: 1 }] }
    - uid: chest-tiered
      label: Tiered chest
      type: Prize
      kind: Chest
      chest:
        scalingMode: PlayerLevel
        tiers:
          - { minLevel: 1, maxLevel: 1, pool: [{ reward: gold, amount: { min: 5, max: 5 }, weight: 1 }] }
          - { minLevel: 3, maxLevel: 9, drawCount: { min: 2, max: 2 }, pool: [{ reward: gems, amount: { min: 7, max: 7 }, weight: 1, stock: 10 }] }
    - uid: chest-custom
      label: Custom chest
      type: Prize
      kind: Chest
      chest:
        scalingMode: Custom
        pool: [{ reward: gold, amount: { min: 10, max: 10 }, weight: 1 }]
        scaling: [{ minLevel: 2, factor: 2 }, { minLevel: 3, factor: 2.5 }]
    - uid: chest-later
      label: Later chest
      type: Prize
      kind: Chest
      chest: { startDate: 2026-07-01T00:00:00, endDate: 2026-08-01T00:00:00, pool: [{ reward: gold, amount: { min: 1, max: 1 }, weight: 1 }] }
    - uid: chest-off
      label: Retired chest
      type: Prize
      kind: Chest
      isActive: false
      chest: { pool: [{ reward: gold, amount: { min: 1, max: 1 }, weight: 1 }] }
  actions:
    - uid: act-chests
      identifier: get-chests
      deliverables:
        - { deliverable: chest-freq, amount: 1 }
        - { deliverable: chest-limited, amount: 2 }
        - { deliverable: chest-points, amount: 2 }
        - { deliverable: chest-boost, amount: 1 }
        - { deliverable: chest-tiered, amount: 3 }
        - { deliverable: chest-custom, amount: 3 }
        - { deliverable: chest-later, amount: 1 }
        - { deliverable: chest-off, amount: 1 }
    - { identifier: climb, points: 100 }
  levels:
    - { uid: l1, label: L1, level: 1, target: 0 }
    - { uid: l2, label: L2, level: 2, target: 100 }
    - { uid: l3, label: L3, level: 3, target: 200, deliverables: [{ deliverable: sword, amount: 1 }, { deliverable: boost, amount: 1 }] }
`);

/** A registered player owning every chest of the catalog, at level 1. */
const owner = (options: { now?: number; seed?: number } = {}): PlayerSpec => {
  const p = playerSpec(catalog, options);
  p.process('get-chests');
  return p;
};

/** An opening, by its decider object: on the player and the stocks of the chest's limited entries. */
const opening = deciderSpec(openChestDecider);

/**
 * The spec's streams, with the stocks of a chest's limited entries as others left them: `left` units of
 * each entry named, none taken of the others.
 */
function givenLeft(p: PlayerSpec, chestUid: string, left: ReadonlyMap<string, number>): GivenStreams {
  const chest = findChest(catalog, chestUid, T0);
  const stocks = (chest.ok ? limitedSlots(chest.value) : []).map(({ stockUid, limit }) => [
    stockStream(CHEST_STOCK, stockUid),
    left.has(stockUid)
      ? [
          {
            type: CHEST_STOCK.taken,
            data: {
              resourceUid: stockUid,
              holder: 'elsewhere',
              playerId: OTHER_PLAYER,
              units: limit - left.get(stockUid)!,
            },
          },
        ]
      : [],
  ]);
  return { ...p.givenStreams(), ...Object.fromEntries(stocks) };
}

/** Decides an opening on the spec's streams, with `stockLeft` units left of limited entries. */
const decideOpening = (p: PlayerSpec, chestUid: string, stockLeft: ReadonlyMap<string, number> = new Map()) =>
  opening
    .given(givenLeft(p, chestUid, stockLeft))
    .when({ playerId: p.state.playerId, chestUid }, { ...p.env, catalog: p.catalog }).decided;

/** Opens a chest as `decideOpening` does, for then-events; what it writes is recorded when it succeeds. */
function open(p: PlayerSpec, chestUid: string, stockLeft: ReadonlyMap<string, number> = new Map()): Then<ChestOpened> {
  const then = opening
    .given(givenLeft(p, chestUid, stockLeft))
    .when({ playerId: p.state.playerId, chestUid }, { ...p.env, catalog: p.catalog });
  if (then.decided.ok) p.apply(then.decided.value);
  return then;
}

function opened(result: Then<ChestOpened>['decided']): ChestOpened {
  if (!result.ok) throw new Error(`expected an opening, got ${result.failure.code}: ${result.failure.message}`);
  return result.value.answer;
}

/** The n-th uid of a spec's env (an opening's is its first; a powerup's instances are minted before it). */
const uid = (n: number) => n.toString(16).padStart(32, '0');

type Prize = ChestOpened['prizes'][number];
const GOLD_IMAGE = 'https://img.example.com/gold.png';
const gold = (amount: number): Prize => ({
  reward: 'gold',
  label: 'Gold',
  type: 1,
  imageName: GOLD_IMAGE,
  amount,
  stockUid: null,
});
const gems = (amount: number, stockUid: string | null = null): Prize => ({
  reward: 'gems',
  label: 'Gems',
  type: 1,
  imageName: null,
  amount,
  stockUid,
});
const sword = (stockUid: string | null): Prize => ({
  reward: 'sword',
  label: 'Sword',
  type: 1,
  imageName: null,
  amount: 1,
  stockUid,
});
const points = (amount: number): Prize => ({
  reward: 'points',
  label: 'Points',
  type: 0,
  imageName: null,
  amount,
  stockUid: null,
});

const CHEST_LABELS: Record<string, string> = {
  'chest-limited': 'Limited chest',
  'chest-points': 'Points chest',
  'chest-boost': 'Boost chest',
  'chest-tiered': 'Tiered chest',
  'chest-custom': 'Custom chest',
  'chest-later': 'Later chest',
};

/**
 * What an opening writes: its ChestOpened on the player's stream (one chest consumed, the prizes'
 * balances granted), and the units drawn of each limited entry taken from its stock.
 */
function chestOpened(
  chest: string,
  prizes: Prize[],
  fields: Partial<Omit<ChestOpened, 'effects' | 'levels'>> & {
    balances?: Effects['balances'];
    effects?: Partial<Effects>;
    levels?: unknown[];
  } = {},
  taken: Record<string, number> = {},
) {
  const { balances = [], effects = {}, ...rest } = fields;
  const data = {
    playerId: PLAYER,
    openingUid: uid(1),
    chestDeliverableUid: chest,
    chestLabel: CHEST_LABELS[chest],
    scalingMode: 'None',
    playerLevel: 1,
    tier: null,
    factor: 1,
    prizes,
    levels: [],
    openedAt: T0,
    ...rest,
    effects: { ...noEffects(), balances: [...balances, { deliverableUid: chest, amount: -1 }], ...effects },
  };
  return {
    [playerStream(PLAYER)]: [{ type: 'ChestOpened', data }],
    ...Object.fromEntries(
      Object.entries(taken).map(([stockUid, units]) => [
        stockStream(CHEST_STOCK, stockUid),
        [
          {
            type: CHEST_STOCK.taken,
            data: { resourceUid: stockUid, holder: data.openingUid, playerId: PLAYER, units },
          },
        ],
      ]),
    ),
  };
}

/** A boost instance won (its uid the env's n-th). */
const boost = (n: number) => ({
  uid: uid(n),
  deliverableUid: 'boost',
  prizeLabel: 'Boost',
  prizeImageName: null,
  multiplier: 2,
  targetPrizes: [] as string[],
  initialUseCount: 0,
  timeoutSeconds: 0,
  neverExpires: true,
  expiresAt: 0,
  createdAt: T0 / 1000,
});
const level = (n: number, target: number, grants: unknown[] = []) => ({
  uid: `l${n}`,
  label: `L${n}`,
  level: n,
  target,
  imageName: null,
  grants,
});
const L2 = [level(2, 100)];
const L3 = [
  level(3, 200, [
    { uid: 'sword', label: 'Sword', type: 1, imageName: null, amount: 1, details: null },
    { uid: 'boost', label: 'Boost', type: 1, imageName: null, amount: 1, details: null },
  ]),
];
/** The boost chest opened: two instances won, minted before the opening's uid. */
const boostsOpened = chestOpened(
  'chest-boost',
  [{ reward: 'boost', label: 'Boost', type: 1, imageName: null, amount: 2, stockUid: null }],
  { openingUid: uid(3), effects: { powerupsGranted: [boost(1), boost(2)] } },
);

const SWORD_STOCK = chestStockUid('chest-limited', null, 0);

describe('opening a chest', () => {
  test('records the rolled prizes in ChestOpened, consumes one chest and grants the prizes', () => {
    const p = owner();
    open(p, 'chest-custom').thenWrites(
      chestOpened('chest-custom', [gold(10)], {
        scalingMode: 'Custom',
        balances: [{ deliverableUid: 'gold', amount: 10 }],
      }),
    );
    expect(p.state.balances.get('chest-custom')).toBe(2);
    expect(p.state.balances.get('gold')).toBe(10);
    expect([...p.state.chestOpenings.keys()]).toEqual([uid(1)]);
  });

  test('drawCount is in range; integer bounds give integers, decimal bounds decimals of at most 6 places', () => {
    const p = owner();
    const counts = new Set<number>();
    for (let i = 0; i < 300; i++) {
      const e = opened(decideOpening(p, 'chest-freq'));
      counts.add(e.prizes.length);
      for (const prize of e.prizes) {
        if (prize.reward === 'gold') expect([1, 2, 3]).toContain(prize.amount);
        if (prize.reward === 'gems') {
          expect(prize.amount).toBeGreaterThanOrEqual(0.5);
          expect(prize.amount).toBeLessThanOrEqual(1.5);
          expect(Math.round(prize.amount * 1e6) / 1e6).toBe(prize.amount);
        }
      }
    }
    expect([...counts].sort()).toEqual([1, 2, 3]);
  });

  test('replays never re-roll: the stored events fold to the same state', () => {
    const p = owner({ seed: 7 });
    for (let i = 0; i < 2; i++) open(p, 'chest-limited');
    open(p, 'chest-freq');
    const replayed = given(JSON.parse(JSON.stringify(p.recorded))).state;
    expect(replayed.balances).toEqual(p.state.balances);
    expect(replayed.chestOpenings).toEqual(p.state.chestOpenings);
  });
});

describe('draw frequencies (20,000 openings, seeded)', () => {
  /** Observed share of each reward over all draws, and of each draw count and gold amount. */
  function observe(stockLeft: ReadonlyMap<string, number>) {
    const p = owner({ seed: 2026 });
    const rewards = new Map<string, number>();
    const drawCounts = new Map<number, number>();
    const goldAmounts = new Map<number, number>();
    let draws = 0;
    const env = { ...p.env, catalog };
    const given = givenLeft(p, 'chest-freq', stockLeft);
    for (let i = 0; i < 20_000; i++) {
      const e = opened(opening.given(given).when({ playerId: PLAYER, chestUid: 'chest-freq' }, env).decided);
      drawCounts.set(e.prizes.length, (drawCounts.get(e.prizes.length) ?? 0) + 1);
      for (const prize of e.prizes) {
        draws++;
        rewards.set(prize.reward, (rewards.get(prize.reward) ?? 0) + 1);
        if (prize.reward === 'gold') goldAmounts.set(prize.amount, (goldAmounts.get(prize.amount) ?? 0) + 1);
      }
    }
    const share = (m: Map<number | string, number>, total: number) =>
      Object.fromEntries([...m].map(([k, n]) => [k, n / total]));
    const gold = [...goldAmounts.values()].reduce((a, b) => a + b, 0);
    return {
      rewards: share(rewards, draws),
      drawCounts: share(drawCounts, 20_000),
      goldAmounts: share(goldAmounts, gold),
      draws,
    };
  }

  // About 40,000 draws: one standard deviation of a share is at most 0.25 percentage points,
  // of the draw-count shares (20,000 openings) 0.34; the tolerance is 1 percentage point.
  const TOLERANCE = 0.01;
  const close = (observed: Record<string, number>, expected: Record<string, number>) => {
    expect(Object.keys(observed).sort()).toEqual(Object.keys(expected).sort());
    for (const [k, share] of Object.entries(expected)) expect(Math.abs(observed[k] - share)).toBeLessThan(TOLERANCE);
  };

  test('rewards follow the weights 70/25/5; draw counts and integer amounts are uniform', () => {
    const { rewards, drawCounts, goldAmounts, draws } = observe(new Map());
    expect(draws).toBeGreaterThan(35_000);
    close(rewards, { gold: 0.7, gems: 0.25, sword: 0.05 });
    close(drawCounts, { 1: 1 / 3, 2: 1 / 3, 3: 1 / 3 });
    close(goldAmounts, { 1: 1 / 3, 2: 1 / 3, 3: 1 / 3 });
  });

  test('an exhausted entry is not drawn: the others share its weight (70/95, 25/95)', () => {
    const { rewards } = observe(new Map([[chestStockUid('chest-freq', null, 2), 0]]));
    close(rewards, { gold: 70 / 95, gems: 25 / 95 });
  });
});

describe('limited entries', () => {
  test('each draw of a limited entry names its stock: one unit per draw', () => {
    const p = owner();
    const swords = [sword(SWORD_STOCK), sword(SWORD_STOCK), sword(SWORD_STOCK)];
    const { answer } = open(p, 'chest-limited').thenWrites(
      chestOpened(
        'chest-limited',
        swords,
        { balances: [{ deliverableUid: 'sword', amount: 3 }] },
        { [SWORD_STOCK]: 3 },
      ),
    );
    expect(stockUnitsOf(answer.prizes)).toEqual(new Map([[SWORD_STOCK, 3]]));
  });

  test("the units drawn are taken from the entry's stock in the same append, at the revision read", () => {
    const p = owner();
    const swords = [sword(SWORD_STOCK), sword(SWORD_STOCK), sword(SWORD_STOCK)];
    const decision = open(p, 'chest-limited').thenWrites(
      chestOpened(
        'chest-limited',
        swords,
        { balances: [{ deliverableUid: 'sword', amount: 3 }] },
        { [SWORD_STOCK]: 3 },
      ),
    );
    expect(decision.writes.map((w) => [w.stream, w.expectedRevision])).toEqual([
      [playerStream(PLAYER), undefined],
      [stockStream(CHEST_STOCK, SWORD_STOCK), undefined],
    ]);
  });

  test('a pool running out during the opening gives what is left (drawCount counts the prizes drawn)', () => {
    const p = owner();
    open(p, 'chest-limited', new Map([[SWORD_STOCK, 2]])).thenWrites(
      chestOpened(
        'chest-limited',
        [sword(SWORD_STOCK), sword(SWORD_STOCK)],
        { balances: [{ deliverableUid: 'sword', amount: 2 }] },
        { [SWORD_STOCK]: 2 },
      ),
    );
    expect(p.state.balances.get('chest-limited')).toBe(1);
  });

  test('9012 when nothing is left to draw (a zero weight does not count): nothing consumed', () => {
    const p = owner();
    open(p, 'chest-limited', new Map([[SWORD_STOCK, 0]])).thenFails(9012, 'Limited prize pool exhausted');
    expect(p.state.balances.get('chest-limited')).toBe(2);
  });
});

describe('rejections', () => {
  test('9010: unknown, not a chest, inactive, or outside its window', () => {
    const p = owner();
    open(p, 'nope').thenFails(9010);
    open(p, 'gold').thenFails(9010);
    open(p, 'chest-off').thenFails(9010);
    open(p, 'chest-later').thenFails(9010); // before 2026-07-01
    p.env.now = Date.UTC(2026, 6, 15);
    open(p, 'chest-later').thenWrites(
      chestOpened('chest-later', [gold(1)], {
        openedAt: Date.UTC(2026, 6, 15),
        balances: [{ deliverableUid: 'gold', amount: 1 }],
      }),
    );
    p.env.now = Date.UTC(2026, 7, 1) + 1000;
    open(p, 'chest-later').thenFails(9010);
  });

  test('9020: the player is not registered', () => {
    opening
      .given()
      .when({ playerId: PLAYER, chestUid: 'chest-custom' }, { ...testEnv(), catalog })
      .thenFails(9020, 'Player not found');
  });

  test('9011: no chest of that kind left', () => {
    const p = owner();
    open(p, 'chest-boost').thenWrites(boostsOpened);
    open(p, 'chest-boost').thenFails(9011);
    const fresh = playerSpec(catalog);
    fresh.process('climb');
    open(fresh, 'chest-custom').thenFails(9011);
  });
});

describe('scaling modes', () => {
  test('PlayerLevel: the tier holding the player level, with its own drawCount; 9013 when none does', () => {
    const p = owner();
    open(p, 'chest-tiered').thenWrites(
      chestOpened('chest-tiered', [gold(5)], {
        scalingMode: 'PlayerLevel',
        tier: 0,
        balances: [{ deliverableUid: 'gold', amount: 5 }],
      }),
    );
    p.process('climb'); // level 2: no tier
    open(p, 'chest-tiered').thenFails(9013, "No reward tier for the player's level (2)");
    expect(p.state.balances.get('chest-tiered')).toBe(2);
    p.process('climb'); // level 3
    const gemsStock = chestStockUid('chest-tiered', 1, 0);
    open(p, 'chest-tiered').thenWrites(
      chestOpened(
        'chest-tiered',
        [gems(7, gemsStock), gems(7, gemsStock)],
        {
          // Level 3's boost took uid(2).
          openingUid: uid(3),
          scalingMode: 'PlayerLevel',
          playerLevel: 3,
          tier: 1,
          balances: [{ deliverableUid: 'gems', amount: 14 }],
        },
        { [gemsStock]: 2 },
      ),
    );
  });

  test('Custom: amounts multiplied by the factor of the highest minLevel reached (none below the first)', () => {
    const p = owner();
    const custom = (n: number, playerLevel: number, factor: number, amount: number) =>
      chestOpened('chest-custom', [gold(amount)], {
        openingUid: uid(n),
        scalingMode: 'Custom',
        playerLevel,
        factor,
        balances: [{ deliverableUid: 'gold', amount }],
      });
    open(p, 'chest-custom').thenWrites(custom(1, 1, 1, 10));
    p.process('climb');
    open(p, 'chest-custom').thenWrites(custom(2, 2, 2, 20));
    p.process('climb');
    open(p, 'chest-custom').thenWrites(custom(4, 3, 2.5, 25)); // level 3's boost took uid(3)
  });

  test('None: one pool, no factor', () => {
    const swords = [sword(SWORD_STOCK), sword(SWORD_STOCK), sword(SWORD_STOCK)];
    open(owner(), 'chest-limited').thenWrites(
      chestOpened(
        'chest-limited',
        swords,
        { scalingMode: 'None', tier: null, factor: 1, balances: [{ deliverableUid: 'sword', amount: 3 }] },
        { [SWORD_STOCK]: 3 },
      ),
    );
  });
});

describe('leaderboard scopes', () => {
  test('an opening records the attributes leaderboards are scoped by, as the player has them now', () => {
    const p = owner();
    const scoped = catalogOf(`
      version: 1
      leaderboards: [{ uid: lb-teams, label: Teams, type: 0, scope: team, aggregate: sum }]
    `).leaderboards;
    const env = { ...p.env, catalog: { ...p.catalog, leaderboards: scoped } };
    // The player's attributes as set by an update after they got their chests.
    const { username, imageName, timeZone } = p.state;
    const attributes = { team: 'red', country: 'DE' };
    const updated = {
      playerId: PLAYER,
      username,
      imageName,
      timeZone,
      attributes,
      updatedAt: T0,
      effects: noEffects(),
    };
    const given = { [playerStream(PLAYER)]: [...p.recorded, { type: 'PlayerUpdated', data: updated }] };
    const won = { balances: [], effects: { points: 150 }, levels: L2 };
    opening
      .given(given)
      .when({ playerId: PLAYER, chestUid: 'chest-points' }, env)
      .thenWrites(chestOpened('chest-points', [points(150)], { ...won, attributes: { team: 'red' } }));
    // Without a leaderboard scoped by them, none (the opening above, not recorded, took uid(1)).
    open(p, 'chest-points').thenWrites(chestOpened('chest-points', [points(150)], { ...won, openingUid: uid(2) }));
  });
});

describe('points and powerups won', () => {
  test('points count like action points: they add up and reach levels, with the levels grants', () => {
    const p = owner();
    open(p, 'chest-points').thenWrites(
      chestOpened('chest-points', [points(150)], { effects: { points: 150 }, levels: L2 }),
    );
    // Level 3 grants a sword and a boost (its instance minted before the opening's uid).
    open(p, 'chest-points').thenWrites(
      chestOpened('chest-points', [points(150)], {
        openingUid: uid(3),
        playerLevel: 2,
        levels: L3,
        balances: [{ deliverableUid: 'sword', amount: 1 }],
        effects: { points: 150, powerupsGranted: [boost(2)] },
      }),
    );
    expect(p.state.points).toBe(300);
    expect([...p.state.levelsReached.keys()]).toEqual(['l1', 'l2', 'l3']);
    expect(p.state.levelOrigins.get('l3')).toBe(uid(3));
    expect(p.state.balances.get('sword')).toBe(1);
    expect([...p.state.powerupOrigins.values()]).toEqual([uid(3)]);
  });

  test('a powerup won is an owned instance per unit, with the opening as origin', () => {
    const p = owner();
    open(p, 'chest-boost').thenWrites(boostsOpened);
    expect(p.state.balances.has('boost')).toBe(false);
    expect(
      [...p.state.powerups.values()].map((o) => [
        o.instance.deliverableUid,
        p.state.powerupOrigins.get(o.instance.uid),
      ]),
    ).toEqual([
      ['boost', uid(3)],
      ['boost', uid(3)],
    ]);
  });
});
