import { parseCatalog } from './load';
import { generatedUid } from './schema';
import { problemsAfter, validCatalog } from './test-fixture';
import type { Catalog } from './types';

const expectProblems = (change: Parameters<typeof problemsAfter>[0], ...expected: string[]) =>
  expect(problemsAfter(change)).toEqual(expected);

function parsed(change: Parameters<typeof problemsAfter>[0] = () => undefined): Catalog {
  const raw = validCatalog();
  change(raw);
  const result = parseCatalog(JSON.stringify(raw), 'catalog.json');
  if (!result.ok) throw new Error(result.problems.join('\n'));
  return result.catalog;
}

describe('defaults', () => {
  it('an empty catalog gets the default settings and empty lists', () => {
    const result = parseCatalog('version: 1\n', 'c.yaml');
    expect(result.ok && result.catalog).toEqual({
      version: 1,
      settings: {
        timezone: 'UTC',
        autoRegisterPlayers: true,
        pendingTimeoutSeconds: 900,
        rateLimit: { perSecond: 100, burst: 200 },
      },
      deliverables: [],
      actions: [],
      badges: [],
      rankSets: [],
      triggers: [],
      levels: [],
      leaderboards: [],
      stores: [],
      streaks: [],
      missions: [],
      segments: [],
      experiments: [],
      leagues: [],
    });
  });

  it('empty YAML sections (null) are empty lists and default settings', () => {
    const result = parseCatalog('version: 1\nsettings:\nbadges:\nstores:\n', 'c.yaml');
    expect(result.ok && result.catalog.badges).toEqual([]);
    expect(result.ok && result.catalog.settings.timezone).toBe('UTC');
  });

  it('partial settings keep the other defaults', () => {
    const result = parseCatalog('version: 1\nsettings: { rateLimit: { burst: 5 } }\n', 'c.yaml');
    expect(result.ok && result.catalog.settings).toEqual({
      timezone: 'UTC',
      autoRegisterPlayers: true,
      pendingTimeoutSeconds: 900,
      rateLimit: { perSecond: 100, burst: 5 },
    });
  });

  it('entry defaults', () => {
    const c = parsed((raw) => raw.deliverables.push({ uid: 'gem', label: 'Gem', type: 'Prize' }));
    expect(c.deliverables[4]).toEqual({
      uid: 'gem',
      label: 'Gem',
      description: null,
      imageName: null,
      isActive: true,
      type: 'Prize',
      kind: 'Item',
      isPercentage: false,
      details: [],
      chest: null,
      powerup: null,
      earnCaps: [],
      expiry: null,
    });
    expect(c.deliverables[1].kind).toBeNull();
    expect(c.deliverables[2].chest!.pool[0]).toEqual({
      reward: 'gold',
      amount: { min: 1, max: 5 },
      weight: 3,
      stock: null,
    });
    expect(c.deliverables[2].chest).toMatchObject({
      scalingMode: 'None',
      startDate: null,
      endDate: null,
      tiers: [],
      scaling: [],
    });
    expect(c.deliverables[3].powerup).toEqual({
      multiplier: 2,
      maxUseCount: 0,
      timeoutSeconds: 60,
      neverExpires: false,
      targetPrizes: ['gold'],
    });
    expect(c.actions[1]).toEqual({
      uid: 'act-spin',
      identifier: 'spin',
      imageName: null,
      isActive: true,
      points: 0,
      pointGap: 0,
      cost: 5,
      costDeliverable: 'gold',
      isUserAttribute: false,
      createDate: null,
      actionObjects: [],
      deliverables: [],
      caps: [],
    });
    expect(c.badges[0]).toMatchObject({
      points: 0,
      startDate: null,
      endDate: null,
      requiredBadge: null,
      rankSet: null,
      deliverables: [],
      description: null,
    });
    expect(c.badges[0].conditions[0]).toEqual({
      action: 'buy',
      filters: [],
      challenge: { times: null, sum: null, withinDays: null, between: null },
    });
    expect(c.rankSets[0].ranks[0]).toEqual({
      rank: 1,
      label: 'Bronze',
      times: 1,
      sum: null,
      points: 0,
      deliverables: [],
    });
    expect(c.leaderboards[0]).toMatchObject({
      metric: 'points',
      startDate: null,
      endDate: null,
      randomizedPrize: false,
      limited: false,
      isActive: true,
    });
    expect(c.stores[0].bundles[0]).toMatchObject({
      initialStock: 0,
      requiresFulfillment: false,
      description: null,
      imageName: null,
    });
    expect(c.levels[0].deliverables).toEqual([]);
  });

  it("a chest drawCount defaults to exactly one draw; a tier without one uses the chest's", () => {
    const c = parsed((raw) => {
      delete raw.deliverables[2].chest.drawCount;
      raw.deliverables[2].chest = {
        scalingMode: 'PlayerLevel',
        tiers: [{ minLevel: 1, maxLevel: 9, pool: raw.deliverables[2].chest.pool }],
      };
    });
    expect(c.deliverables[2].chest!.drawCount).toEqual({ min: 1, max: 1 });
    expect(c.deliverables[2].chest!.tiers[0].drawCount).toBeNull();
  });

  it('a trigger deliverable weight defaults to null', () => {
    const c = parsed((raw) => {
      raw.triggers[0].randomizedPrize = false;
      delete raw.triggers[0].deliverables[0].weight;
    });
    expect(c.triggers[0].deliverables[0].weight).toBeNull();
  });

  it('filter and detail values are kept as strings', () => {
    const c = parsed((raw) => {
      raw.badges[1].conditions[0].filters = [
        { name: 'amount', op: 'gte', value: 10.5 },
        { name: 'category', op: 'in', value: ['books', 3, true] },
        { name: 'category', op: 'contains', value: 'oo' },
      ];
      raw.deliverables[0].details = [{ label: 'rate', value: 2 }];
    });
    expect(c.badges[1].conditions[0].filters).toEqual([
      { name: 'amount', op: 'gte', value: '10.5' },
      { name: 'category', op: 'in', value: ['books', '3', 'true'] },
      { name: 'category', op: 'contains', value: 'oo' },
    ]);
    expect(c.deliverables[0].details).toEqual([{ label: 'rate', value: '2' }]);
  });
});

describe('generated uids', () => {
  it('an entry without uid gets 32 hex characters derived from its natural key', () => {
    const c = parsed((raw) => {
      for (const section of ['actions', 'levels', 'leaderboards', 'stores'])
        for (const entry of raw[section]) delete entry.uid;
      delete raw.stores[0].bundles[0].uid;
    });
    expect(c.actions[0].uid).toBe(generatedUid('action', 'buy'));
    expect(c.levels[1].uid).toBe(generatedUid('level', '2'));
    expect(c.leaderboards[0].uid).toBe(generatedUid('leaderboard', 'Weekly'));
    const storeUid = generatedUid('store', 'Store');
    expect(c.stores[0].uid).toBe(storeUid);
    expect(c.stores[0].bundles[0].uid).toBe(generatedUid('bundle', `${storeUid}/Bundle`));
    expect(c.actions[0].uid).toMatch(/^[0-9a-f]{32}$/);
  });

  it('stays the same when other fields change', () => {
    const a = parsed((raw) => delete raw.badges[2].uid);
    const b = parsed((raw) => {
      delete raw.badges[2].uid;
      raw.badges[2].points = 99;
    });
    expect(a.badges[2].uid).toBe(b.badges[2].uid);
  });
});

describe('schema problems', () => {
  it('an unknown field, at its own path', () => {
    expectProblems(
      (c) => {
        c.badges[0].requiredBadgee = 'b-big';
        c.badge = [];
      },
      'badges[0].requiredBadgee: unknown field',
      'badge: unknown field',
    );
  });

  it('a missing required field', () => {
    expectProblems((c) => delete c.badges[0].label, 'badges[0].label: required');
  });

  it('a value of the wrong type', () => {
    expectProblems(
      (c) => {
        c.actions[0].points = '10';
        c.actions[0].actionObjects = { label: 'amount' };
        c.badges[0].isActive = 'yes';
      },
      'actions[0].points: expected number, got string "10"',
      'actions[0].actionObjects: expected a list, got an object',
      'badges[0].isActive: expected boolean, got string "yes"',
    );
  });

  it('a value not among the allowed ones', () => {
    expectProblems(
      (c) => {
        c.badges[0].type = 'Once';
        c.deliverables[0].type = 'Coin';
        c.actions[0].actionObjects[0].type = 'Integer';
        c.leaderboards[0].type = 2;
        c.leaderboards[0].season = 'yearly';
        c.deliverables[2].chest.scalingMode = 'Level';
      },
      'deliverables[0].type: must be one of Prize, Content, Notification, got "Coin"',
      'deliverables[2].chest.scalingMode: must be one of None, PlayerLevel, Custom, got "Level"',
      'actions[0].actionObjects[0].type: must be one of Number, String, Boolean, Date, Array, got "Integer"',
      'badges[0].type: must be one of OneTimeOnly, Repeatable, Ranked, got "Once"',
      'leaderboards[0].type: must be one of 0, 1, got 2',
      'leaderboards[0].season: must be one of daily, weekly, monthly, got "yearly"',
    );
  });

  it('version 1 only', () => {
    expectProblems((c) => (c.version = 2), 'version: must be 1, got 2');
    expectProblems((c) => delete c.version, 'version: required');
  });

  it('the root is an object', () => {
    const result = parseCatalog('[1, 2]', 'c.json');
    expect(result).toEqual({ ok: false, problems: ['(root): expected an object, got a list'] });
  });

  it('uid format: 1 to 64 of A-Z a-z 0-9 _ -', () => {
    expectProblems(
      (c) =>
        c.deliverables.push(
          { uid: 'has space', label: 'A', type: 'Content' },
          { uid: 'x'.repeat(65), label: 'B', type: 'Content' },
          { uid: '', label: 'C', type: 'Content' },
        ),
      'deliverables[4].uid: must be 1 to 64 characters of A-Z a-z 0-9 _ -',
      'deliverables[5].uid: must be 1 to 64 characters of A-Z a-z 0-9 _ -',
      'deliverables[6].uid: must be 1 to 64 characters of A-Z a-z 0-9 _ -',
    );
    expectProblems((c) => c.deliverables.push({ uid: `A-z_0${'9'.repeat(59)}`, label: 'A', type: 'Content' }));
  });

  it('dates are YYYY-MM-DDThh:mm:ss on a real day', () => {
    expectProblems(
      (c) => {
        c.badges[1].startDate = '2026-01-01';
        c.badges[1].endDate = '2026-02-30T00:00:00';
        c.actions[0].createDate = '2026-01-01T00:00:00Z';
        c.stores[0].startDate = 20260101;
      },
      'actions[0].createDate: must be a local date-time YYYY-MM-DDThh:mm:ss, got "2026-01-01T00:00:00Z"',
      'badges[1].startDate: must be a local date-time YYYY-MM-DDThh:mm:ss, got "2026-01-01"',
      'badges[1].endDate: not a real date: day 30 of month 2 (it has 28 days in 2026), got "2026-02-30T00:00:00"',
      'stores[0].startDate: expected string, got number 20260101',
    );
  });

  it('amounts, costs, weights, stock, points and pointGap are not negative', () => {
    expectProblems(
      (c) => {
        c.actions[0].points = -1;
        c.actions[0].pointGap = -1;
        c.actions[1].cost = -5;
        c.actions[0].deliverables[0].amount = -1;
        c.deliverables[2].chest.pool[0].weight = -1;
        c.deliverables[2].chest.pool[1].stock = -1;
        c.deliverables[2].chest.pool[1].amount.min = -1;
        c.stores[0].bundles[0].initialStock = -1;
        c.levels[1].target = -1;
      },
      'deliverables[2].chest.pool[0].weight: must not be negative',
      'deliverables[2].chest.pool[1].amount.min: must not be negative',
      'deliverables[2].chest.pool[1].stock: must not be negative',
      'actions[0].points: must not be negative',
      'actions[0].pointGap: must not be negative',
      'actions[0].deliverables[0].amount: must not be negative',
      'actions[1].cost: must not be negative',
      'levels[1].target: must not be negative',
      'stores[0].bundles[0].initialStock: must not be negative',
    );
  });

  it('amounts and points are exact to 6 decimal places', () => {
    expectProblems(
      (c) => {
        c.actions[0].points = 0.0000001;
        c.badges[0].points = 1.1234567;
      },
      'actions[0].points: must have at most 6 decimal places',
      'badges[0].points: must have at most 6 decimal places',
    );
    expectProblems((c) => (c.actions[0].points = 0.123456));
  });

  it('counts are integers', () => {
    expectProblems(
      (c) => {
        c.levels[1].level = 2.5;
        c.badges[1].conditions[0].challenge.times = 1.5;
      },
      'badges[1].conditions[0].challenge.times: must be an integer',
      'levels[1].level: must be an integer',
    );
  });

  it('drawCount at least 1; multiplier, factor and withinDays above 0', () => {
    expectProblems(
      (c) => {
        c.deliverables[2].chest.drawCount.min = 0;
        c.deliverables[3].powerup.multiplier = 0;
        c.badges[1].conditions[0].challenge.withinDays = 0;
      },
      'deliverables[2].chest.drawCount.min: must be at least 1',
      'deliverables[3].powerup.multiplier: must be greater than 0',
      'badges[1].conditions[0].challenge.withinDays: must be greater than 0',
    );
    expectProblems((c) => {
      c.deliverables[2].chest.scalingMode = 'Custom';
      c.deliverables[2].chest.scaling = [{ minLevel: 1, factor: 0 }];
    }, 'deliverables[2].chest.scaling[0].factor: must be greater than 0');
  });

  it('the time zone is an IANA zone', () => {
    expectProblems((c) => (c.settings.timezone = 'Mars/Base'), 'settings.timezone: unknown time zone "Mars/Base"');
    expectProblems((c) => (c.settings.timezone = '+02:00'), 'settings.timezone: unknown time zone "+02:00"');
  });

  it('settings values', () => {
    expectProblems(
      (c) => Object.assign(c.settings, { pendingTimeoutSeconds: 0, rateLimit: { perSecond: -1, burst: 0 } }),
      'settings.pendingTimeoutSeconds: must be at least 1',
      'settings.rateLimit.perSecond: must not be negative',
      'settings.rateLimit.burst: must be at least 1',
    );
  });

  it('a badge or trigger has at least one condition', () => {
    expectProblems(
      (c) => {
        c.badges[0].conditions = [];
        delete c.triggers[0].conditions;
      },
      'badges[0].conditions: at least one condition is required',
      'triggers[0].conditions: required',
    );
  });

  it('filter ops are eq ne gt gte lt lte in contains', () => {
    expectProblems(
      (c) => (c.badges[1].conditions[0].filters[0].op = 'like'),
      'badges[1].conditions[0].filters[0].op: must be one of eq, ne, gt, gte, lt, lte, in, contains, got "like"',
    );
  });

  it('"in" takes a non-empty list, the other ops one value', () => {
    expectProblems(
      (c) => {
        c.badges[1].conditions[0].filters = [
          { name: 'category', op: 'in', value: 'books' },
          { name: 'category', op: 'in', value: [] },
          { name: 'category', op: 'eq', value: ['books'] },
          { name: 'category', op: 'eq', value: { a: 1 } },
        ];
      },
      'badges[1].conditions[0].filters[0].value: must be a list for op "in"',
      'badges[1].conditions[0].filters[1].value: must not be empty',
      'badges[1].conditions[0].filters[2].value: must be a single value for op "eq"',
      'badges[1].conditions[0].filters[3].value: must be a string, number or boolean, or a list of them',
    );
  });

  it('a leaderboard metric is "points" or { action }', () => {
    expectProblems(
      (c) => (c.leaderboards[1].metric = 'clicks'),
      'leaderboards[1].metric: must be "points" or { action: <action identifier> }',
    );
  });

  it('a currency expiry is afterDays (whole days) or endOf Day, Week or Month', () => {
    expect(parsed((c) => (c.deliverables[0].expiry = { afterDays: 30 })).deliverables[0].expiry).toEqual({
      afterDays: 30,
      endOf: null,
    });
    expect(parsed((c) => (c.deliverables[0].expiry = { endOf: 'Month' })).deliverables[0].expiry).toEqual({
      afterDays: null,
      endOf: 'Month',
    });
    expectProblems(
      (c) => (c.deliverables[0].expiry = { afterDays: 30, endOf: 'Day' }),
      'deliverables[0].expiry: must give exactly one of afterDays and endOf',
    );
    expectProblems(
      (c) => (c.deliverables[0].expiry = {}),
      'deliverables[0].expiry: must give exactly one of afterDays and endOf',
    );
    expectProblems(
      (c) => (c.deliverables[0].expiry = { afterDays: 0 }),
      'deliverables[0].expiry.afterDays: must be at least 1',
    );
    expectProblems(
      (c) => (c.deliverables[0].expiry = { afterDays: 36_501 }),
      'deliverables[0].expiry.afterDays: must be at most 36,500 (days)',
    );
    expect(problemsAfter((c) => (c.deliverables[0].expiry = { endOf: 'Year' }))).toEqual([
      expect.stringMatching(/^deliverables\[0\]\.expiry\.endOf: /),
    ]);
  });

  it('an action identifier is non-empty text without surrounding space', () => {
    expectProblems(
      (c) => c.actions.push({ identifier: ' sell' }, { identifier: '' }),
      'actions[2].identifier: must not start or end with white space',
      'actions[3].identifier: must not be empty',
    );
  });
});
