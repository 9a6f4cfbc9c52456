/**
 * GET /v1/admin/experiments and GET /v1/admin/experiments/{uid}/results (docs/audit.md,
 * "Experiments: results"): every figure against the test's own count of the actions it sent, the
 * comparisons with the control by the statistics module (itself checked against known values).
 */
import { createHash, randomUUID } from 'node:crypto';
import { sampleOf, twoProportions, welch } from '../../domain/statistics';
import { eventually } from '../support/process';
import { auditor, mobile, server, startTestService, type TestService } from '../support/service';

const CATALOG = `
version: 1
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
actions:
  - { uid: act-share, identifier: share, points: 10 }
  - { uid: act-coin, identifier: coin, deliverables: [{ deliverable: gold, amount: 10 }] }
  - { uid: act-spend, identifier: spend, cost: 2, costDeliverable: gold }
experiments:
  - uid: exp-share-points
    label: Do double share points bring players back?
    variants:
      - { uid: control, weight: 50 }
      - { uid: double, weight: 50, patch: { actions: { act-share: { points: 20 } } } }
  - uid: exp-past
    label: Over
    startDate: '2020-01-01T00:00:00'
    endDate: '2020-02-01T00:00:00'
    variants: [{ uid: control, weight: 1 }]
  - uid: exp-future
    label: To come
    startDate: '2099-01-01T00:00:00'
    variants: [{ uid: control, weight: 1 }, { uid: other, weight: 3 }]
`;

const DAY = 86_400_000;
/** Midnight UTC 40 days ago: day 0 of the plans below (the catalog's zone and the players' is UTC). */
const DAY0 = Math.floor(Date.now() / DAY) * DAY - 40 * DAY;
const TODAY = 40;

function variantOf(playerId: string): string {
  const h = createHash('sha256').update(`exp-share-points:${playerId}`, 'utf8').digest().readUInt32BE(0);
  return h / 2 ** 32 < 0.5 ? 'control' : 'double';
}
function newPlayerIn(variant: string): string {
  for (;;) {
    const playerId = randomUUID();
    if (variantOf(playerId) === variant) return playerId;
  }
}

/** Each player's actions: [name, day]; the first joins them. */
type Plan = [name: 'share' | 'coin' | 'spend', day: number][];
const PLANS: Record<'control' | 'double', Plan[]> = {
  control: [
    [
      ['share', 0],
      ['share', 1],
      ['coin', 7],
      ['spend', 7],
    ],
    [
      ['coin', 2],
      ['share', 3],
      ['share', 32],
    ],
    [['share', 5]],
  ],
  double: [
    [
      ['coin', 0],
      ['spend', 0],
      ['spend', 1],
      ['share', 30],
    ],
    [
      ['share', 3],
      ['share', 4],
      ['share', 10],
      ['share', 33],
    ],
    // Joined 3 days ago: counted for the retention of day 1 only.
    [
      ['share', TODAY - 3],
      ['share', TODAY - 2],
    ],
  ],
};
const POINTS = { control: { share: 10, coin: 0, spend: 0 }, double: { share: 20, coin: 0, spend: 0 } };

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ catalogYaml: CATALOG });
});
afterAll(() => t.close());

const act = async (playerId: string, name: string, day: number, referenceId = randomUUID()) => {
  const timestamp = DAY0 + day * DAY + 12 * 3_600_000;
  const res = await t.http.post('/v1/action/process').set(server).send({ name, playerId, referenceId, timestamp });
  expect(res.body.code).toBe(200);
  return referenceId;
};

/** A player's own figures, from the plan the test sent. */
function expected(plan: Plan, variant: 'control' | 'double') {
  const first = plan[0][1];
  const days = new Set(plan.map(([, d]) => d));
  const retained = (n: number) => (TODAY - first >= n ? [days.has(first + n) ? 1 : 0] : []);
  return {
    actions: plan.length,
    days: days.size,
    points: plan.reduce((s, [name]) => s + POINTS[variant][name], 0),
    spent: plan.filter(([name]) => name === 'spend').length * 2,
    d1: retained(1),
    d7: retained(7),
    d30: retained(30),
  };
}

describe('experiment results', () => {
  beforeAll(async () => {
    for (const variant of ['control', 'double'] as const)
      for (const plan of PLANS[variant]) {
        const playerId = newPlayerIn(variant);
        for (const [name, day] of plan) await act(playerId, name, day);
      }
    // A reversed action counts no more: sent, then taken back (the player's plan leaves it out).
    const playerId = newPlayerIn('double');
    const plan = PLANS.double[1];
    const references = [];
    for (const [name, day] of plan) references.push(await act(playerId, name, day));
    const extra = await act(playerId, 'share', 11);
    const reversed = await t.http
      .post('/v1/action/delete')
      .set(server)
      .send({ name: 'share', playerId, referenceId: extra });
    expect(reversed.body.code).toBe(200);
  });

  const results = async () => {
    const res = await t.http.get('/v1/admin/experiments/exp-share-points/results').set(auditor);
    expect(res.body.code).toBe(200);
    return res.body.data as {
      experimentUid: string;
      variants: {
        uid: string;
        players: number;
        metrics: Record<
          string,
          { mean: number | null; difference: number | null; ci95: number[] | null; pValue: number | null }
        >;
      }[];
    };
  };

  it("counts each variant's players and metrics exactly as the actions sent, and compares them with the control", async () => {
    // The double variant's second plan twice: once for its own player, once for the player whose extra action was reversed.
    const players = { control: PLANS.control, double: [...PLANS.double, PLANS.double[1]] };
    const figures = {
      control: players.control.map((p) => expected(p, 'control')),
      double: players.double.map((p) => expected(p, 'double')),
    };
    await eventually(async () => (await results()).variants.reduce((s, v) => s + v.players, 0) === 7);
    const data = await results();
    expect(data.experimentUid).toBe('exp-share-points');
    expect(data.variants.map((v) => [v.uid, v.players])).toEqual([
      ['control', 3],
      ['double', 4],
    ]);
    const means = {
      actionsPerPlayer: 'actions',
      activeDaysPerPlayer: 'days',
      pointsPerPlayer: 'points',
      spentPerPlayer: 'spent',
    } as const;
    for (const [metric, field] of Object.entries(means)) {
      const control = sampleOf(figures.control.map((f) => f[field]));
      const double = sampleOf(figures.double.map((f) => f[field]));
      expect(data.variants[0].metrics[metric]).toEqual({
        mean: control.mean,
        difference: null,
        ci95: null,
        pValue: null,
      });
      const comparison = welch(double, control);
      expect(data.variants[1].metrics[metric]).toEqual({
        mean: expect.closeTo(double.mean, 9),
        difference: expect.closeTo(double.mean - control.mean, 9),
        ci95: comparison.ci95 && [expect.closeTo(comparison.ci95[0], 9), expect.closeTo(comparison.ci95[1], 9)],
        pValue: comparison.pValue === null ? null : expect.closeTo(comparison.pValue, 9),
      });
    }
    for (const n of ['d1', 'd7', 'd30'] as const) {
      const share = (fs: (typeof figures)['control']) => {
        const counted = fs.flatMap((f) => f[n]);
        return { x: counted.reduce((s: number, v) => s + v, 0), n: counted.length };
      };
      const c = share(figures.control);
      const d = share(figures.double);
      const comparison = twoProportions(d.x, d.n, c.x, c.n);
      expect(data.variants[0].metrics[`retention.${n}`].mean).toBeCloseTo(c.x / c.n, 12);
      expect(data.variants[1].metrics[`retention.${n}`]).toEqual({
        mean: expect.closeTo(d.x / d.n, 12),
        difference: expect.closeTo(d.x / d.n - c.x / c.n, 12),
        ci95: [expect.closeTo(comparison.ci95![0], 9), expect.closeTo(comparison.ci95![1], 9)],
        pValue: expect.closeTo(comparison.pValue!, 9),
      });
    }
    // The share of day 1 leaves out nobody; of day 30, the player who joined 3 days ago.
    expect([figures.double.flatMap((f) => f.d1).length, figures.double.flatMap((f) => f.d30).length]).toEqual([4, 3]);
  });

  it('counts the players of each variant active on each day, oldest day first', async () => {
    const plans = { control: PLANS.control, double: [...PLANS.double, PLANS.double[1]] };
    const byDay = new Map<number, { control: number; double: number }>();
    for (const variant of ['control', 'double'] as const)
      for (const plan of plans[variant])
        for (const day of new Set(plan.map(([, d]) => d))) {
          const counts = byDay.get(day) ?? { control: 0, double: 0 };
          counts[variant] += 1;
          byDay.set(day, counts);
        }
    const expectedDays = [...byDay.keys()]
      .sort((a, b) => a - b)
      .map((day) => ({ day: new Date(DAY0 + day * DAY).toISOString().slice(0, 10), players: byDay.get(day) }));
    const res = await t.http.get('/v1/admin/experiments/exp-share-points/results').set(server);
    expect(res.body.data.activePlayersByDay).toEqual(expectedDays);
  });

  it('lists every experiment with its status and the players of each variant', async () => {
    const res = await t.http.get('/v1/admin/experiments').set(server);
    expect(res.body.code).toBe(200);
    expect(res.body.data).toEqual([
      {
        uid: 'exp-share-points',
        label: 'Do double share points bring players back?',
        segment: null,
        startDate: null,
        endDate: null,
        status: 'Running',
        variants: [
          { uid: 'control', weight: 50, players: 3 },
          { uid: 'double', weight: 50, players: 4 },
        ],
      },
      {
        uid: 'exp-past',
        label: 'Over',
        segment: null,
        startDate: '2020-01-01T00:00:00',
        endDate: '2020-02-01T00:00:00',
        status: 'Ended',
        variants: [{ uid: 'control', weight: 1, players: 0 }],
      },
      {
        uid: 'exp-future',
        label: 'To come',
        segment: null,
        startDate: '2099-01-01T00:00:00',
        endDate: null,
        status: 'Scheduled',
        variants: [
          { uid: 'control', weight: 1, players: 0 },
          { uid: 'other', weight: 3, players: 0 },
        ],
      },
    ]);
  });

  it('answers an experiment nobody joined with its variants and no figures', async () => {
    const res = await t.http.get('/v1/admin/experiments/exp-future/results').set(server);
    expect(res.body.code).toBe(200);
    const other = res.body.data.variants[1];
    expect([other.uid, other.players, other.metrics.actionsPerPlayer]).toEqual([
      'other',
      0,
      { mean: null, difference: null, ci95: null, pValue: null },
    ]);
  });

  it('answers 9042 for an experiment the catalog in force does not have, and 4003 to other tiers', async () => {
    const res = await t.http.get('/v1/admin/experiments/exp-nothing/results').set(server);
    expect([res.status, res.body.code, res.body.data]).toEqual([
      400,
      9042,
      'Experiment does not exist in the catalog in force: exp-nothing',
    ]);
    const refused = await t.http.get('/v1/admin/experiments').set(mobile);
    expect([refused.status, refused.body.code]).toEqual([403, 4003]);
  });
});
