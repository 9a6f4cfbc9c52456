import { parseCatalog } from './load';
import { generatedUid } from './schema';
import { type RawCatalog, problemsAfter } from './test-fixture';

/** The fixture broken by `change` reports exactly `expected`. */
const expectProblems = (change: Parameters<typeof problemsAfter>[0], ...expected: string[]) =>
  expect(problemsAfter(change)).toEqual(expected);

it('the fixture is valid', () => {
  expect(problemsAfter(() => undefined)).toEqual([]);
});

describe('uids and identifiers', () => {
  it('uids are unique across the whole catalog', () => {
    expectProblems((c) => (c.badges[2].uid = 'gold'), 'badges[2].uid: duplicate uid "gold" (first at deliverables[0])');
  });

  it('bundle uids count too', () => {
    expectProblems(
      (c) => (c.stores[0].bundles[0].uid = 'st'),
      'stores[0].bundles[0].uid: duplicate uid "st" (first at stores[0])',
    );
  });

  it('uids generated from the same label collide', () => {
    expectProblems(
      (c) => c.deliverables.push({ label: 'Gem', type: 'Prize' }, { label: 'Gem', type: 'Prize', kind: 'Currency' }),
      `deliverables[5].uid: duplicate uid "${generatedUid('deliverable', 'Gem')}" (first at deliverables[4])`,
    );
  });

  it('a deliverable may not be called "points"', () => {
    expectProblems(
      (c) => c.deliverables.push({ uid: 'points', label: 'Points', type: 'Prize' }),
      'deliverables[4].uid: "points" is reserved for chest rewards of points',
    );
  });

  it('action identifiers are unique', () => {
    expectProblems(
      (c) => c.actions.push({ uid: 'act-buy2', identifier: 'buy' }),
      'actions[2].identifier: duplicate identifier "buy" (first at actions[0])',
    );
  });

  it('actionObject labels are unique within an action', () => {
    expectProblems(
      (c) => c.actions[0].actionObjects.push({ label: 'amount', type: 'String' }),
      'actions[0].actionObjects[2].label: duplicate label "amount" (first at actions[0].actionObjects[0])',
    );
  });
});

describe('references', () => {
  it('an unknown deliverable', () => {
    expectProblems(
      (c) => (c.actions[1].costDeliverable = 'silver'),
      'actions[1].costDeliverable: unknown deliverable "silver"',
    );
  });

  it('an entry of another kind', () => {
    expectProblems(
      (c) => (c.actions[1].costDeliverable = 'b-first'),
      'actions[1].costDeliverable: "b-first" is a badge (badges[0]), not a deliverable',
    );
  });

  it('an action costDeliverable is a Prize', () => {
    expectProblems(
      (c) => (c.actions[1].costDeliverable = 'banner'),
      'actions[1].costDeliverable: "banner" is a Content deliverable, not a Prize',
    );
  });

  it('an action cost > 0 needs a costDeliverable', () => {
    expectProblems((c) => delete c.actions[1].costDeliverable, 'actions[1].costDeliverable: required when cost > 0');
  });

  it('a free action needs no costDeliverable', () => {
    expectProblems((c) => {
      c.actions[1].cost = 0;
      delete c.actions[1].costDeliverable;
    });
  });

  it('a bundle costDeliverable is a Prize, and required when cost > 0', () => {
    expectProblems(
      (c) => {
        c.stores[0].bundles[0].costDeliverable = 'banner';
        c.stores[0].bundles.push({ uid: 'bd2', label: 'B2', cost: 1, contents: [] });
      },
      'stores[0].bundles[0].costDeliverable: "banner" is a Content deliverable, not a Prize',
      'stores[0].bundles[1].costDeliverable: required when cost > 0',
    );
  });

  it('deliverable grants resolve, wherever they are', () => {
    expectProblems(
      (c) => {
        c.actions[0].deliverables[0].deliverable = 'x1';
        c.badges[1].deliverables[0].deliverable = 'x2';
        c.rankSets[0].ranks[1].deliverables[0].deliverable = 'x3';
        c.triggers[0].deliverables[0].deliverable = 'x4';
        c.levels[1].deliverables[0].deliverable = 'x5';
        c.stores[0].bundles[0].contents[0].deliverable = 'rs';
      },
      'actions[0].deliverables[0].deliverable: unknown deliverable "x1"',
      'badges[1].deliverables[0].deliverable: unknown deliverable "x2"',
      'rankSets[0].ranks[1].deliverables[0].deliverable: unknown deliverable "x3"',
      'triggers[0].deliverables[0].deliverable: unknown deliverable "x4"',
      'levels[1].deliverables[0].deliverable: unknown deliverable "x5"',
      'stores[0].bundles[0].contents[0].deliverable: "rs" is a rank set (rankSets[0]), not a deliverable',
    );
  });

  it('requiredBadge names a badge', () => {
    expectProblems(
      (c) => {
        c.badges[1].requiredBadge = 't-lucky';
        c.triggers[0].requiredBadge = 'nope';
      },
      'badges[1].requiredBadge: "t-lucky" is a trigger (triggers[0]), not a badge',
      'triggers[0].requiredBadge: unknown badge "nope"',
    );
  });

  it('a requiredBadge chain has no cycle (reported once, at its first member)', () => {
    expectProblems(
      (c) => (c.badges[0].requiredBadge = 'b-big'),
      'badges[0].requiredBadge: requiredBadge cycle: b-first -> b-big -> b-first',
    );
  });

  it('a badge may not require itself', () => {
    expectProblems(
      (c) => (c.badges[2].requiredBadge = 'b-ranked'),
      'badges[2].requiredBadge: requiredBadge cycle: b-ranked -> b-ranked',
    );
  });

  it('a chain leading into a cycle is not itself reported', () => {
    expectProblems((c) => {
      c.badges[0].requiredBadge = 'b-ranked';
      c.badges[2].requiredBadge = 'b-big';
      c.badges.push({
        uid: 'b-tail',
        label: 'Tail',
        type: 'OneTimeOnly',
        requiredBadge: 'b-first',
        conditions: [{ action: 'buy' }],
      });
    }, 'badges[0].requiredBadge: requiredBadge cycle: b-first -> b-ranked -> b-big -> b-first');
  });
});

describe('deliverable kinds', () => {
  it('kind is for Prize deliverables only', () => {
    expectProblems((c) => (c.deliverables[1].kind = 'Item'), 'deliverables[1].kind: only for Prize deliverables');
  });

  it('chest config only on kind Chest', () => {
    expectProblems(
      (c) => (c.deliverables[0].chest = c.deliverables[2].chest),
      'deliverables[0].chest: only for kind Chest',
    );
  });

  it('chest config required on kind Chest', () => {
    expectProblems((c) => delete c.deliverables[2].chest, 'deliverables[2].chest: required for kind Chest');
  });

  it('powerup config only on kind Powerup', () => {
    expectProblems(
      (c) => (c.deliverables[1].powerup = c.deliverables[3].powerup),
      'deliverables[1].powerup: only for kind Powerup',
    );
  });

  it('powerup config required on kind Powerup', () => {
    expectProblems((c) => delete c.deliverables[3].powerup, 'deliverables[3].powerup: required for kind Powerup');
  });

  it('powerup targetPrizes are Prize deliverables', () => {
    expectProblems(
      (c) => (c.deliverables[3].powerup.targetPrizes = ['banner', 'nope', 'chest']),
      'deliverables[3].powerup.targetPrizes[0]: "banner" is a Content deliverable, not a Prize',
      'deliverables[3].powerup.targetPrizes[1]: unknown deliverable "nope"',
    );
  });

  it('expiry only on kind Currency', () => {
    expectProblems(
      (c) => (c.deliverables[2].expiry = { afterDays: 7 }),
      'deliverables[2].expiry: only for kind Currency',
    );
    expectProblems((c) => (c.deliverables[0].expiry = { endOf: 'Week' }));
  });

  it('a powerup that expires needs a timeout', () => {
    expectProblems(
      (c) => delete c.deliverables[3].powerup.timeoutSeconds,
      'deliverables[3].powerup.timeoutSeconds: must be greater than 0 unless neverExpires is true',
    );
    expectProblems((c) => {
      delete c.deliverables[3].powerup.timeoutSeconds;
      c.deliverables[3].powerup.neverExpires = true;
    });
  });
});

describe('chests', () => {
  const chestOf = (c: RawCatalog) => c.deliverables[2].chest;

  it('a reward is a deliverable uid or "points"', () => {
    expectProblems(
      (c) => (chestOf(c).pool[0].reward = 'Points'),
      'deliverables[2].chest.pool[0].reward: unknown deliverable "Points"',
    );
  });

  it('drawCount.min <= max', () => {
    expectProblems(
      (c) => (chestOf(c).drawCount = { min: 3, max: 2 }),
      'deliverables[2].chest.drawCount: min (3) must not be greater than max (2)',
    );
  });

  it('amount.min <= max', () => {
    expectProblems(
      (c) => (chestOf(c).pool[0].amount = { min: 6, max: 5 }),
      'deliverables[2].chest.pool[0].amount: min (6) must not be greater than max (5)',
    );
  });

  it("a pool's total weight > 0", () => {
    expectProblems(
      (c) => chestOf(c).pool.forEach((e: { weight: number }) => (e.weight = 0)),
      'deliverables[2].chest.pool: total weight must be greater than 0',
    );
  });

  it('None and Custom need a pool', () => {
    expectProblems((c) => (chestOf(c).pool = []), 'deliverables[2].chest.pool: at least one entry is required');
  });

  it('PlayerLevel needs tiers and no pool', () => {
    expectProblems(
      (c) => (chestOf(c).scalingMode = 'PlayerLevel'),
      'deliverables[2].chest.pool: only for scalingMode None or Custom',
      'deliverables[2].chest.tiers: at least one tier is required for scalingMode PlayerLevel',
    );
  });

  it('tiers: minLevel <= maxLevel, drawCount ordered, each pool non-empty with weight', () => {
    expectProblems(
      (c) => {
        const chest = chestOf(c);
        chest.scalingMode = 'PlayerLevel';
        chest.tiers = [
          { minLevel: 1, maxLevel: 4, drawCount: { min: 2, max: 1 }, pool: chest.pool },
          { minLevel: 6, maxLevel: 5, pool: [] },
          { minLevel: 7, maxLevel: 99, pool: [{ reward: 'gold', amount: { min: 1, max: 1 }, weight: 0 }] },
        ];
        delete chest.pool;
      },
      'deliverables[2].chest.tiers[0].drawCount: min (2) must not be greater than max (1)',
      'deliverables[2].chest.tiers[1]: minLevel (6) must not be greater than maxLevel (5)',
      'deliverables[2].chest.tiers[1].pool: at least one entry is required',
      'deliverables[2].chest.tiers[2].pool: total weight must be greater than 0',
    );
  });

  it('tiers only for PlayerLevel', () => {
    expectProblems(
      (c) => (chestOf(c).tiers = [{ minLevel: 1, maxLevel: 2, pool: chestOf(c).pool }]),
      'deliverables[2].chest.tiers: only for scalingMode PlayerLevel',
    );
  });

  it('Custom needs a scaling table with ascending minLevel', () => {
    expectProblems(
      (c) => (chestOf(c).scalingMode = 'Custom'),
      'deliverables[2].chest.scaling: at least one entry is required for scalingMode Custom',
    );
    expectProblems((c) => {
      chestOf(c).scalingMode = 'Custom';
      chestOf(c).scaling = [
        { minLevel: 1, factor: 1 },
        { minLevel: 5, factor: 2 },
        { minLevel: 5, factor: 3 },
      ];
    }, 'deliverables[2].chest.scaling[2].minLevel: must be greater than the previous minLevel (5)');
  });

  it('scaling only for Custom', () => {
    expectProblems(
      (c) => (chestOf(c).scaling = [{ minLevel: 1, factor: 2 }]),
      'deliverables[2].chest.scaling: only for scalingMode Custom',
    );
  });

  it('chest dates in order', () => {
    expectProblems(
      (c) => Object.assign(chestOf(c), { startDate: '2026-05-01T00:00:00', endDate: '2026-04-01T00:00:00' }),
      'deliverables[2].chest.endDate: must be after startDate (2026-05-01T00:00:00)',
    );
  });
});

describe('badges and triggers', () => {
  it('dates in order (equal is not before)', () => {
    expectProblems(
      (c) => {
        c.badges[1].endDate = c.badges[1].startDate;
        Object.assign(c.triggers[0], { startDate: '2026-02-01T00:00:00', endDate: '2026-01-31T23:59:59' });
      },
      'badges[1].endDate: must be after startDate (2026-01-01T00:00:00)',
      'triggers[0].endDate: must be after startDate (2026-02-01T00:00:00)',
    );
  });

  it('a condition names an existing action identifier', () => {
    expectProblems(
      (c) => {
        c.badges[0].conditions[0].action = 'sell';
        c.triggers[0].conditions[0].action = 'act-spin';
      },
      'badges[0].conditions[0].action: unknown action "sell"',
      'triggers[0].conditions[0].action: "act-spin" is an action uid; name the action identifier "spin"',
    );
  });

  it("a sum field is one of the action's Number actionObjects", () => {
    expectProblems(
      (c) => (c.badges[1].conditions[0].challenge.sum.field = 'category'),
      'badges[1].conditions[0].challenge.sum.field: "category" is not a Number actionObject of action "buy"',
    );
    expectProblems(
      (c) => (c.badges[1].conditions[0].challenge.sum.field = 'price'),
      'badges[1].conditions[0].challenge.sum.field: "price" is not a Number actionObject of action "buy"',
    );
  });

  it('between: start before end', () => {
    expectProblems(
      (c) => (c.badges[1].conditions[0].challenge.between.end = '2025-12-31T00:00:00'),
      'badges[1].conditions[0].challenge.between.end: must be after start (2026-01-01T00:00:00)',
    );
  });

  it('rankSet is required on Ranked badges and triggers', () => {
    expectProblems(
      (c) => {
        delete c.badges[2].rankSet;
        c.triggers[0].type = 'Ranked';
      },
      'badges[2].rankSet: required for Ranked badges',
      'triggers[0].rankSet: required for Ranked triggers',
    );
  });

  it('rankSet only on Ranked badges and triggers', () => {
    expectProblems(
      (c) => {
        c.badges[0].rankSet = 'rs';
        c.triggers[0].rankSet = 'rs';
      },
      'badges[0].rankSet: only for Ranked badges',
      'triggers[0].rankSet: only for Ranked triggers',
    );
  });

  it('rankSet names a rank set', () => {
    expectProblems((c) => (c.badges[2].rankSet = 'x'), 'badges[2].rankSet: unknown rank set "x"');
    expectProblems(
      (c) => (c.badges[2].rankSet = 'l1'),
      'badges[2].rankSet: "l1" is a level (levels[0]), not a rank set',
    );
  });

  it('a Ranked badge whose ranks use sum needs a condition with challenge.sum', () => {
    expectProblems(
      (c) => (c.rankSets[0].ranks[1] = { rank: 2, label: 'Silver', sum: 500 }),
      'badges[2].rankSet: rank set "rs" has sum thresholds, so a condition needs challenge.sum to name the summed field',
    );
    expectProblems((c) => {
      c.rankSets[0].ranks[1] = { rank: 2, label: 'Silver', sum: 500 };
      c.badges[2].conditions[0].challenge = { sum: { field: 'amount', atLeast: 0 } };
    });
  });

  it('a randomizedPrize trigger needs deliverables with weights > 0', () => {
    expectProblems(
      (c) => {
        delete c.triggers[0].deliverables[0].weight;
        c.triggers[0].deliverables[1].weight = 0;
      },
      'triggers[0].deliverables[0].weight: must be greater than 0 when randomizedPrize is true',
      'triggers[0].deliverables[1].weight: must be greater than 0 when randomizedPrize is true',
    );
    expectProblems(
      (c) => (c.triggers[0].deliverables = []),
      'triggers[0].deliverables: at least one deliverable is required when randomizedPrize is true',
    );
  });

  it('weights are not needed without randomizedPrize', () => {
    expectProblems((c) => {
      c.triggers[0].randomizedPrize = false;
      delete c.triggers[0].deliverables[0].weight;
    });
  });

  it('a limited trigger needs limit >= 1', () => {
    expectProblems((c) => delete c.triggers[0].limit, 'triggers[0].limit: must be at least 1 when limited is true');
  });
});

describe('rank sets', () => {
  it('ranks ascend by rank', () => {
    expectProblems(
      (c) => (c.rankSets[0].ranks[1].rank = 1),
      'rankSets[0].ranks[1].rank: must be greater than the previous rank (1)',
    );
  });

  it('each rank has exactly one of times and sum', () => {
    expectProblems(
      (c) => {
        c.rankSets[0].ranks[0].sum = 10;
        delete c.rankSets[0].ranks[1].times;
      },
      'badges[2].rankSet: rank set "rs" has sum thresholds, so a condition needs challenge.sum to name the summed field',
      'rankSets[0].ranks[0]: needs exactly one of times and sum',
      'rankSets[0].ranks[1]: needs exactly one of times and sum',
    );
  });

  it('thresholds of the same measure ascend', () => {
    expectProblems(
      (c) => c.rankSets[0].ranks.push({ rank: 3, label: 'Gold', times: 5 }),
      'rankSets[0].ranks[2].times: must be greater than the times of rank 2 (5)',
    );
  });
});

describe('levels', () => {
  it('level numbers are unique', () => {
    expectProblems(
      (c) => c.levels.push({ uid: 'l3', label: 'Three', level: 2, target: 500 }),
      'levels[2].level: duplicate level 2 (first at levels[1])',
    );
  });

  it('targets strictly increase with level', () => {
    expectProblems((c) => (c.levels[1].target = 0), 'levels[1].target: must be greater than the target of level 1 (0)');
  });

  it('targets are compared in level order, not file order', () => {
    expectProblems((c) => c.levels.reverse());
    expectProblems(
      (c) => c.levels.unshift({ uid: 'l5', label: 'Five', level: 5, target: 50 }),
      'levels[0].target: must be greater than the target of level 2 (100)',
    );
  });

  it('level 1 has target 0', () => {
    expectProblems((c) => (c.levels[0].target = 10), 'levels[0].target: level 1 must have target 0');
  });

  it('levels start at level 1', () => {
    expectProblems((c) => c.levels.shift(), 'levels: level 1 (with target 0) is required when levels are given');
  });

  it('no levels at all is fine', () => {
    expectProblems((c) => delete c.levels);
  });
});

describe('leaderboards', () => {
  it('Season boards need a season', () => {
    expectProblems(
      (c) => delete c.leaderboards[0].season,
      'leaderboards[0].season: required for Season leaderboards (type 1)',
    );
  });

  it('Standard boards have none', () => {
    expectProblems(
      (c) => (c.leaderboards[1].season = 'daily'),
      'leaderboards[1].season: only for Season leaderboards (type 1)',
    );
  });

  it('a scope names an attribute; aggregate: sum needs one', () => {
    expectProblems((c) => Object.assign(c.leaderboards[1], { scope: 'team', aggregate: 'sum' }));
    expectProblems((c) => (c.leaderboards[1].scope = 'country'));
    expectProblems(
      (c) => (c.leaderboards[1].aggregate = 'sum'),
      'leaderboards[1].aggregate: needs scope (the attribute whose values it ranks)',
    );
  });

  it('an action metric names an existing action identifier', () => {
    expectProblems(
      (c) => (c.leaderboards[1].metric = { action: 'sell' }),
      'leaderboards[1].metric.action: unknown action "sell"',
    );
  });

  it('dates in order', () => {
    expectProblems(
      (c) => (c.leaderboards[1].endDate = '2025-01-01T00:00:00'),
      'leaderboards[1].endDate: must be after startDate (2026-01-01T00:00:00)',
    );
  });
});

describe('stores', () => {
  it('dates in order', () => {
    expectProblems(
      (c) => Object.assign(c.stores[0], { startDate: '2026-01-02T00:00:00', endDate: '2026-01-01T00:00:00' }),
      'stores[0].endDate: must be after startDate (2026-01-02T00:00:00)',
    );
  });
});

describe('numbers stay within what the engine holds', () => {
  it('amounts, points, costs and targets at most 1,000,000,000', () => {
    expectProblems(
      (c) => {
        c.actions[0].points = 1e308;
        c.actions[1].cost = 1_000_000_000.5;
        c.levels[1].target = 2e9;
        c.stores[0].bundles[0].contents[0].amount = 1e10;
      },
      'actions[0].points: must be at most 1,000,000,000 (the largest amount the engine holds)',
      'actions[1].cost: must be at most 1,000,000,000 (the largest amount the engine holds)',
      'levels[1].target: must be at most 1,000,000,000 (the largest amount the engine holds)',
      'stores[0].bundles[0].contents[0].amount: must be at most 1,000,000,000 (the largest amount the engine holds)',
    );
    expect(problemsAfter((c) => (c.actions[0].points = 1_000_000_000))).toEqual([]);
  });

  it('weights at most 1,000,000 each and a total of at most 1,000,000,000; at most 100 draws per opening', () => {
    expectProblems(
      (c) => {
        c.deliverables[2].chest.pool[0].weight = 1e308;
        c.deliverables[2].chest.drawCount.max = 500_000;
        c.triggers[0].deliverables[0].weight = 1e7;
      },
      'deliverables[2].chest.drawCount.max: must be at most 100 (draws per opening)',
      'deliverables[2].chest.pool[0].weight: must be at most 1,000,000',
      'triggers[0].deliverables[0].weight: must be at most 1,000,000',
    );
    expectProblems(
      (c) =>
        (c.deliverables[2].chest.pool = Array.from({ length: 1001 }, () => ({
          reward: 'gold',
          amount: { min: 1, max: 1 },
          weight: 1_000_000,
        }))),
      'deliverables[2].chest.pool: total weight must be at most 1,000,000,000',
    );
  });

  it('counts, stocks and limits at most 1,000,000,000; factors at most 1000', () => {
    expectProblems(
      (c) => {
        c.deliverables[2].chest.pool[1].stock = 1e12;
        c.deliverables[3].powerup.multiplier = 1e6;
        c.triggers[0].limit = 1e10;
      },
      'deliverables[2].chest.pool[1].stock: must be at most 1,000,000,000',
      'deliverables[3].powerup.multiplier: must be at most 1,000',
      'triggers[0].limit: must be at most 1,000,000,000',
    );
  });

  it('a grant makes at most 1000 powerups; scaled chest amounts stay in range', () => {
    expectProblems(
      (c) => {
        c.actions[0].deliverables.push({ deliverable: 'boost', amount: 5000 });
        c.deliverables[2].chest.pool.push({ reward: 'boost', amount: { min: 1, max: 2 }, weight: 1 });
        c.deliverables[2].chest.pool[0].amount.max = 1_000_000_000;
        c.deliverables[2].chest.scalingMode = 'Custom';
        c.deliverables[2].chest.scaling = [{ minLevel: 1, factor: 1000 }];
      },
      'deliverables[2].chest.pool[0].amount.max: must be at most 1,000,000,000 once multiplied by the largest scaling factor (1000), the largest amount the engine holds',
      'deliverables[2].chest.pool[2].amount.max: must be at most 1,000 once multiplied by the largest scaling factor (1000) for a powerup (each one granted is an instance the player keeps)',
      'actions[0].deliverables[1].amount: must be at most 1,000 for a powerup (each one granted is an instance the player keeps)',
    );
  });
});

describe('periods: one spelling, the older ones still read', () => {
  const catalogOf = (leaderboards: string, repeat: string) => {
    const parsed = parseCatalog(
      `
version: 1
actions: [{ identifier: order, points: 1 }]
leaderboards:
${leaderboards}
missions:
  - { uid: m-order, label: Order, repeat: ${repeat}, steps: [{ uid: s1, label: Order, condition: { action: order } }] }
`,
      'catalog.yaml',
    );
    if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
    return parsed.catalog;
  };

  it('boards say period: Day, Week or Month (none: all-time), as type and season did; missions repeat Day or Week, as Daily and Weekly did', () => {
    const boards = (lines: string[]) => lines.map((line) => `  - ${line}`).join('\n');
    for (const [period, season, repeat, older] of [
      ['Day', 'daily', 'Day', 'Daily'],
      ['Week', 'weekly', 'Week', 'Weekly'],
      ['Month', 'monthly', 'Week', 'Weekly'],
    ])
      expect(
        catalogOf(
          boards([`{ uid: lb-all, label: All }`, `{ uid: lb-period, label: Period, period: ${period} }`]),
          repeat,
        ),
      ).toEqual(
        catalogOf(
          boards([
            `{ uid: lb-all, label: All, type: 0 }`,
            `{ uid: lb-period, label: Period, type: 1, season: ${season} }`,
          ]),
          older,
        ),
      );
  });

  it('a board gives period or the older type and season, not both', () => {
    const parsed = parseCatalog(
      `
version: 1
leaderboards: [{ uid: lb, label: Weekly, period: Week, type: 1, season: weekly }]
`,
      'catalog.yaml',
    );
    expect(parsed.ok ? [] : parsed.problems).toEqual([
      'leaderboards[0].period: gives the board its type and season: write period alone, or the older type and season',
    ]);
  });
});
