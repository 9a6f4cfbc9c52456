/**
 * Experiments over HTTP (docs/catalog.md, "Experiments"): the variant each player joins, the
 * action decided under it, the profile, a join recorded once under concurrent actions, a
 * reversal, a simulation, and the catalog's validation of a patch.
 */
import { createHash, randomUUID } from 'node:crypto';
import { parse } from 'yaml';
import { server, startTestService, type TestService } from '../support/service';

const CATALOG = `
version: 1
actions:
  - { uid: act-share, identifier: share, points: 10 }
  - { uid: act-order, identifier: order, points: 1 }
streaks:
  - { uid: s-daily-order, label: Daily orders, period: Day, conditions: [{ action: order }] }
segments:
  - { uid: seg-de, label: Germany, conditions: [{ attribute: country, in: [DE] }] }
experiments:
  - uid: exp-share-points
    label: Do double share points bring players back?
    segment: null
    startDate: null
    endDate: null
    variants:
      - { uid: control, weight: 50 }
      - uid: double
        weight: 50
        patch:
          actions: { act-share: { points: 20 } }
          streaks: { s-daily-order: { freezes: { max: 2, earnEvery: 7 } } }
  - uid: exp-de-orders
    label: Do German players order more for more points?
    segment: seg-de
    variants:
      - { uid: control, weight: 1 }
      - { uid: treble, weight: 1, patch: { actions: { act-order: { points: 3 } } } }
`;

/** The variant rule, computed here from its words. */
function variantOf(experimentUid: string, playerId: string, variants: [string, number][]): string {
  const h = createHash('sha256').update(`${experimentUid}:${playerId}`, 'utf8').digest().readUInt32BE(0);
  const x = (h / 2 ** 32) * variants.reduce((s, [, w]) => s + w, 0);
  let running = 0;
  return variants.find(([, w]) => (running += w) > x)![0];
}
const SHARE: [string, number][] = [
  ['control', 50],
  ['double', 50],
];
/** A new playerId the rule puts in the variant of exp-share-points. */
function newPlayerIn(variant: string): string {
  for (;;) {
    const playerId = randomUUID();
    if (variantOf('exp-share-points', playerId, SHARE) === variant) return playerId;
  }
}

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ catalogYaml: CATALOG });
});
afterAll(() => t.close());

type Result = { earnedPoints: number; experiments?: { uid: string; variant: string }[] };
const act = async (playerId: string, name = 'share', referenceId: string = randomUUID()) => {
  const res = await t.http.post('/v1/action/process').set(server).send({ name, playerId, referenceId });
  expect(res.body.code).toBe(200);
  return res.body.data as Result;
};
const eventsOf = async (playerId: string) => {
  const res = await t.http.get(`/v1/audit/players/${playerId}/events`).set(server);
  expect(res.body.code).toBe(200);
  return res.body.data as { type: string; data: Record<string, unknown> }[];
};

describe('an experiment over HTTP', () => {
  it("decides each player's action under the variant the rule gives them, and names it in the result", async () => {
    for (let i = 0; i < 12; i++) {
      const playerId = randomUUID();
      const variant = variantOf('exp-share-points', playerId, SHARE);
      const result = await act(playerId);
      expect(result.experiments).toEqual([{ uid: 'exp-share-points', variant }]);
      expect(result.earnedPoints).toBe(variant === 'double' ? 20 : 10);
    }
  });

  it('lists every experiment the player joined in the profile, with the time of the action that joined them', async () => {
    const playerId = randomUUID();
    const created = await t.http
      .post('/v1/player/create')
      .set(server)
      .send({ playerId, attributes: { country: 'DE' } });
    expect(created.body.code).toBe(200);
    await act(playerId, 'order');
    const res = await t.http.post('/v1/player/profile').set(server).send({ playerId });
    expect(res.body.code).toBe(200);
    const joined = (await eventsOf(playerId)).filter((e) => e.type === 'ExperimentJoined');
    const at = (await eventsOf(playerId)).find((e) => e.type === 'ActionProcessed')!.data.timestamp;
    expect(res.body.data.experiments).toEqual([
      { uid: 'exp-share-points', variant: variantOf('exp-share-points', playerId, SHARE), joinedAt: at },
      {
        uid: 'exp-de-orders',
        variant: variantOf('exp-de-orders', playerId, [
          ['control', 1],
          ['treble', 1],
        ]),
        joinedAt: at,
      },
    ]);
    expect(joined.map((e) => e.data.experimentUid)).toEqual(['exp-share-points', 'exp-de-orders']);
  });

  it('records a join exactly once under concurrent actions of a new player, each decided under the same variant', async () => {
    const playerId = newPlayerIn('double');
    const results = await Promise.all(Array.from({ length: 8 }, () => act(playerId)));
    expect(results.map((r) => [r.earnedPoints, r.experiments])).toEqual(
      Array.from({ length: 8 }, () => [20, [{ uid: 'exp-share-points', variant: 'double' }]]),
    );
    const events = await eventsOf(playerId);
    expect(events.filter((e) => e.type === 'ExperimentJoined').map((e) => e.data.variantUid)).toEqual(['double']);
    // Recorded with the decision of the action that joined: right before its ActionProcessed.
    const joinedAt = events.findIndex((e) => e.type === 'ExperimentJoined');
    expect(events[joinedAt + 1]).toMatchObject({
      type: 'ActionProcessed',
      data: { referenceId: events[joinedAt].data.referenceId },
    });
  });

  it('is traced: the join in the chain of the action that joined, the experiment and variant in its rules', async () => {
    const playerId = newPlayerIn('double');
    const referenceId = randomUUID();
    await act(playerId, 'share', referenceId);
    const res = await t.http.get(`/v1/audit/trace?referenceId=${referenceId}`).set(server);
    expect(res.body.code).toBe(200);
    const [chain] = res.body.data.chains as { events: { type: string; summary: string }[]; rules: unknown }[];
    expect(chain.events.map((e) => e.type)).toEqual([
      'PlayerRegistered',
      'ExperimentJoined',
      'ActionProcessed',
      'ReferenceRecorded',
    ]);
    expect(chain.events[1].summary).toBe(`experiment exp-share-points variant double, joined by ${referenceId}`);
    expect(chain.rules).toMatchObject({ experiments: [{ uid: 'exp-share-points', variant: 'double' }] });
  });

  it("takes back on reversal what the player's variant gave", async () => {
    const playerId = newPlayerIn('double');
    const referenceId = randomUUID();
    await act(playerId, 'share', referenceId);
    const reversed = await t.http.post('/v1/action/delete').set(server).send({ name: 'share', playerId, referenceId });
    expect(reversed.body.code).toBe(200);
    const profile = await t.http.post('/v1/player/profile').set(server).send({ playerId });
    expect([
      profile.body.data.points,
      profile.body.data.experiments.map((e: { variant: string }) => e.variant),
    ]).toEqual([0, ['double']]);
  });

  it('is replayed by a simulation: without the experiment, its players would have earned the base game', async () => {
    const playerId = newPlayerIn('double');
    await act(playerId);
    const draft = parse(CATALOG, { version: '1.2' }) as Record<string, unknown>;
    delete draft.experiments;
    const res = await t.http.post('/v1/audit/simulate').set(server).send({ catalog: draft });
    expect(res.body.code).toBe(200);
    const players = res.body.data.players as { playerId: string; pointsBefore: number; pointsAfter: number }[];
    expect(players.find((p) => p.playerId === playerId)).toMatchObject({ pointsBefore: 20, pointsAfter: 10 });
    // A draft without experiments reports none.
    expect(res.body.data).not.toHaveProperty('experiments');
  });

  it('is replayed by a simulation of a draft that adds an experiment: its players decided under their variant', async () => {
    const playerId = newPlayerIn('control');
    await act(playerId);
    const draft = parse(CATALOG, { version: '1.2' }) as { experiments: unknown[] };
    draft.experiments.push({
      uid: 'exp-new',
      label: 'Triple share points for all',
      variants: [{ uid: 'all', weight: 1, patch: { actions: { 'act-share': { points: 30 } } } }],
    });
    const res = await t.http
      .post('/v1/audit/simulate')
      .set(server)
      .send({ catalog: draft, players: [playerId] });
    expect(res.body.code).toBe(200);
    expect(res.body.data.players).toEqual([expect.objectContaining({ playerId, pointsBefore: 10, pointsAfter: 30 })]);
    // Per variant of each experiment of the draft: the players who join it under the draft, and what they would get.
    const totals = { badgesGained: 0, badgesLost: 0, levelsChanged: 0 };
    const none = { players: 0, pointsBefore: 0, pointsAfter: 0, ...totals };
    const thePlayer = { players: 1, pointsBefore: 10, pointsAfter: 30, ...totals };
    expect(res.body.data.experiments).toEqual([
      {
        uid: 'exp-share-points',
        variants: [
          { uid: 'control', ...thePlayer },
          { uid: 'double', ...none },
        ],
      },
      {
        uid: 'exp-de-orders',
        variants: [
          { uid: 'control', ...none },
          { uid: 'treble', ...none },
        ],
      },
      { uid: 'exp-new', variants: [{ uid: 'all', ...thePlayer }] },
    ]);
  });

  it("names a patch's problems at their path in the catalog's validation", async () => {
    const draft = parse(CATALOG.replace('act-share: { points: 20 }', 'act-share: { points: -20, uid: x }'), {
      version: '1.2',
    }) as Record<string, unknown>;
    const res = await t.http.post('/v1/admin/catalog/validate').set(server).send({ catalog: draft });
    expect(res.body.code).toBe(200);
    expect(res.body.data).toEqual({
      valid: false,
      problems: [
        { path: 'experiments[0].variants[1].patch.actions.act-share.points', message: 'must not be negative' },
        {
          path: 'experiments[0].variants[1].patch.actions.act-share.uid',
          message: 'cannot be patched (it names the entry)',
        },
      ],
    });
  });
});
