/** GET /v1/admin/segments (docs/catalog.md, "Segments"): each segment with the number of players in it now. */
import { randomUUID } from 'node:crypto';
import { parse } from 'yaml';
import { eventually } from '../support/process';
import { auditor, mobile, server, startTestService, type TestService } from '../support/service';

const CATALOG = `
version: 1
actions:
  - { identifier: order, points: 60 }
  - { identifier: visit }
badges:
  - { uid: badge-regular, label: Regular, type: OneTimeOnly, conditions: [{ action: order, challenge: { times: 2 } }] }
  - { uid: b-dach, label: DACH order, type: Repeatable, conditions: [{ action: order }], segment: seg-dach }
triggers:
  - { uid: t-dach-visit, label: DACH visit, type: Repeatable, conditions: [{ action: visit }], segment: seg-dach }
streaks:
  - { uid: s-dach-visits, label: DACH visits, period: Day, conditions: [{ action: visit }], segment: seg-dach }
missions:
  - uid: m-dach-tour
    label: DACH tour
    segment: seg-dach
    steps: [{ uid: m-dach-tour-visit, label: Visit, condition: { action: visit } }]
levels:
  - { level: 1, target: 0, label: One }
  - { level: 2, target: 100, label: Two }
segments:
  - uid: seg-dach-regulars
    label: Regulars in Germany and Austria
    conditions:
      - { attribute: country, in: [DE, AT] }
      - { level: { min: 2 } }
      - { badge: badge-regular }
      - { points: { min: 100 } }
  - { uid: seg-dach, label: Germany and Austria, conditions: [{ attribute: country, in: [DE, AT] }] }
  - { uid: seg-newcomers, label: Newcomers, conditions: [{ points: { max: 59 } }] }
`;

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ catalogYaml: CATALOG });
});
afterAll(() => t.close());

const create = async (attributes: Record<string, string>) => {
  const playerId = randomUUID();
  const res = await t.http.post('/v1/player/create').set(server).send({ playerId, attributes });
  expect(res.body.code).toBe(200);
  return playerId;
};
const order = async (playerId: string) => {
  const res = await t.http
    .post('/v1/action/process')
    .set(server)
    .send({ name: 'order', playerId, referenceId: randomUUID() });
  expect(res.body.code).toBe(200);
  return res.body.data as { badges: { uid: string }[] | null };
};
const counts = async () => {
  const res = await t.http.get('/v1/admin/segments').set(auditor);
  expect(res.body.code).toBe(200);
  return res.body.data as { uid: string; label: string; conditions: unknown[]; players: number }[];
};

describe('GET /v1/admin/segments', () => {
  let french = '';
  it('counts the players in each segment now, in catalog order, with its conditions; an erased player is not counted', async () => {
    expect(await counts()).toEqual([
      {
        uid: 'seg-dach-regulars',
        label: 'Regulars in Germany and Austria',
        // As the catalog states them, the bounds not given null.
        conditions: [
          { attribute: 'country', in: ['DE', 'AT'] },
          { level: { min: 2, max: null } },
          { badge: 'badge-regular' },
          { points: { min: 100, max: null } },
        ],
        players: 0,
      },
      {
        uid: 'seg-dach',
        label: 'Germany and Austria',
        conditions: [{ attribute: 'country', in: ['DE', 'AT'] }],
        players: 0,
      },
      { uid: 'seg-newcomers', label: 'Newcomers', conditions: [{ points: { min: null, max: 59 } }], players: 0 },
    ]);
    const regular = await create({ country: 'AT' });
    expect((await order(regular)).badges?.map((b) => b.uid)).toEqual(['b-dach']);
    await order(regular); // 120 points, level 2, badge-regular
    french = await create({ country: 'FR' });
    expect((await order(french)).badges).toBeNull(); // out of seg-dach: no b-dach
    await order(french);
    const german = await create({ country: 'DE' });
    await create({}); // a newcomer

    const players = async () => (await counts()).map((s) => s.players);
    await eventually(async () => JSON.stringify(await players()) === JSON.stringify([1, 2, 2]));

    // Leaving a segment: moved to France, the regular is out of both.
    const moved = await t.http
      .post('/v1/player/update')
      .set(server)
      .send({ playerId: regular, attributes: { country: 'FR' } });
    expect(moved.body.code).toBe(200);
    await eventually(async () => JSON.stringify(await players()) === JSON.stringify([0, 1, 2]));

    const erased = await t.http.post('/v1/admin/players/erase').set(server).send({ playerId: german });
    expect(erased.body.code).toBe(200);
    await eventually(async () => JSON.stringify(await players()) === JSON.stringify([0, 0, 1]));
  });

  it('is decided again in a simulation on the state recorded before each action: a player who has since left keeps what they earned in it', async () => {
    // The history of the test above: the regular ordered twice in Austria (now in France), the French player twice.
    const draft = parse(
      CATALOG.replace(
        'conditions: [{ action: order, challenge: { times: 2 } }] }',
        'conditions: [{ action: order, challenge: { times: 2 } }], segment: seg-dach }',
      ),
      { version: '1.2' },
    ) as Record<string, unknown>;
    const res = await t.http.post('/v1/audit/simulate').set(server).send({ catalog: draft });
    expect(res.body.code).toBe(200);
    const players = res.body.data.players as { playerId: string; badgesLost: unknown[]; badgesGained: unknown[] }[];
    expect(players.map((p) => [p.playerId, p.badgesLost.length, p.badgesGained.length])).toEqual([[french, 1, 0]]);
  });

  it('is named by the segment of the badges, triggers, streaks and missions in their admin views (null: everyone)', async () => {
    const segmentOf = async (path: string) => {
      const res = await t.http.get(path).set(auditor);
      expect(res.body.code).toBe(200);
      return (res.body.data as { uid: string; segment: string | null }[]).map((e) => [e.uid, e.segment]);
    };
    expect(await segmentOf('/v1/admin/badges')).toEqual([
      ['badge-regular', null],
      ['b-dach', 'seg-dach'],
    ]);
    expect(await segmentOf('/v1/admin/triggers')).toEqual([['t-dach-visit', 'seg-dach']]);
    expect(await segmentOf('/v1/admin/streaks')).toEqual([['s-dach-visits', 'seg-dach']]);
    expect(await segmentOf('/v1/admin/missions')).toEqual([['m-dach-tour', 'seg-dach']]);
    for (const path of [
      '/v1/admin/badges/b-dach',
      '/v1/admin/triggers/t-dach-visit',
      '/v1/admin/streaks/s-dach-visits',
      '/v1/admin/missions/m-dach-tour',
    ])
      expect(await segmentOf(path)).toEqual([[path.split('/').pop(), 'seg-dach']]);
  });

  it('is read by Server and Auditor keys; the other tiers are refused with 4003', async () => {
    expect((await t.http.get('/v1/admin/segments').set(server)).body.code).toBe(200);
    const refused = await t.http.get('/v1/admin/segments').set(mobile);
    expect([refused.status, refused.body.code]).toEqual([403, 4003]);
  });
});
