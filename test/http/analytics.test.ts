/**
 * GET /v1/admin/analytics/:series over a game played across two days of a non-UTC catalog zone:
 * every series, the days with nothing, the CSV form, and the requests refused.
 */
import { randomUUID } from 'node:crypto';
import { auditor, mobile, server, startTestService, type TestService } from '../support/service';

const CATALOG = `
version: 1
settings: { timezone: America/New_York }
deliverables:
  - { uid: coins, label: Coins, type: Prize, kind: Currency }
  - { uid: gems, label: Gems, type: Prize, kind: Currency }
  - uid: chest-small
    label: Small chest
    type: Prize
    kind: Chest
    chest:
      scalingMode: None
      drawCount: { min: 1, max: 1 }
      pool:
        - { reward: gems, amount: { min: 2, max: 2 }, weight: 1 }
actions:
  - { uid: act-play, identifier: play, points: 10, deliverables: [{ deliverable: coins, amount: 20 }] }
  - { uid: act-spin, identifier: spin, points: 1, cost: 5, costDeliverable: coins }
badges:
  - { uid: b-first, label: First play, type: OneTimeOnly, points: 5, conditions: [{ action: play, challenge: { times: 1 } }], deliverables: [{ deliverable: chest-small, amount: 1 }] }
levels:
  - { uid: lvl-1, label: One, level: 1, target: 0 }
  - { uid: lvl-2, label: Two, level: 2, target: 20 }
stores:
  - uid: shop
    label: Shop
    startDate: 2020-01-01T00:00:00
    endDate: 2100-01-01T00:00:00
    bundles:
      - { uid: bd-gems, label: Gems, cost: 10, costDeliverable: coins, contents: [{ deliverable: gems, amount: 5 }] }
`;

/** June 9, 22:00 in New York (EDT, UTC-4): registrations, the purchase, the opening and the reversal fall on June 9. */
const NOW = Date.UTC(2026, 5, 10, 2);
const A = randomUUID();
const B = randomUUID();
const RANGE = 'from=2026-06-07&to=2026-06-10';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ catalogYaml: CATALOG, now: () => NOW });
  const send = async (path: string, body: object) => {
    const res = await t.http.post(path).set(server).send(body);
    expect([path, res.body.code]).toEqual([path, 200]);
  };
  // June 8 in New York: A's first play (a badge and its chest), and a second one at 23:30 that reaches level 2.
  await send('/v1/action/process', {
    name: 'play',
    playerId: A,
    referenceId: 'a-1',
    timestamp: Date.UTC(2026, 5, 8, 14),
  });
  await send('/v1/action/process', {
    name: 'play',
    playerId: A,
    referenceId: 'a-2',
    timestamp: Date.UTC(2026, 5, 9, 3, 30),
  });
  // June 9: B's first play at 00:30, A's spin (a cost), A's purchase and chest, and the reversal of a-2.
  await send('/v1/action/process', {
    name: 'play',
    playerId: B,
    referenceId: 'b-1',
    timestamp: Date.UTC(2026, 5, 9, 4, 30),
  });
  await send('/v1/action/process', {
    name: 'spin',
    playerId: A,
    referenceId: 'a-3',
    timestamp: Date.UTC(2026, 5, 9, 12),
  });
  await send('/v1/store/buy', { playerId: A, referenceId: 'bd-gems' });
  await send('/v1/chest/open', { playerId: A, chestDeliverableUId: 'chest-small' });
  // The all-in-one service answers a write once its read models hold it.
  await send('/v1/action/delete', { name: 'play', playerId: A, referenceId: 'a-2' });
});
afterAll(() => t.close());

const series = async (name: string, query = RANGE, key: Record<string, string> = server) => {
  const res = await t.http.get(`/v1/admin/analytics/${name}?${query}`).set(key);
  expect([name, res.status, res.body.code]).toEqual([name, 200, 200]);
  return res.body.data as {
    series: string;
    from: string;
    to: string;
    points: { day: string; key?: string; value: number }[];
  };
};
const values = async (name: string) => (await series(name)).points.map((p) => p.value);
/** A split series as `day key` -> value, zeros included. */
const keyed = async (name: string) =>
  Object.fromEntries((await series(name)).points.map((p) => [`${p.day} ${p.key}`, p.value]));

describe('GET /v1/admin/analytics/:series', () => {
  it('answers each day of the range, both ends included, 0 where nothing happened', async () => {
    expect(await series('actions')).toEqual({
      series: 'actions',
      from: '2026-06-07',
      to: '2026-06-10',
      points: [
        { day: '2026-06-07', value: 0 },
        { day: '2026-06-08', value: 2 },
        { day: '2026-06-09', value: 2 },
        { day: '2026-06-10', value: 0 },
      ],
    });
  });

  it('counts actions as processed, and players active on a day once', async () => {
    expect(await keyed('actions-by-action')).toEqual({
      '2026-06-07 play': 0,
      '2026-06-07 spin': 0,
      '2026-06-08 play': 2,
      '2026-06-08 spin': 0,
      '2026-06-09 play': 1,
      '2026-06-09 spin': 1,
      '2026-06-10 play': 0,
      '2026-06-10 spin': 0,
    });
    expect(await values('active-players')).toEqual([0, 1, 2, 0]);
    expect(await values('new-players')).toEqual([0, 0, 2, 0]);
  });

  it('takes back what a reversal took from the day of the reversed action, and counts the reversal on its own day', async () => {
    // June 8: 10 + 5 (badge) + 10, less the reversed 10. June 9: B's 10 + 5, A's spin 1.
    expect(await values('points')).toEqual([0, 15, 16, 0]);
    expect(await values('reversals')).toEqual([0, 0, 1, 0]);
    const deliverables = await keyed('deliverables');
    expect(
      Object.fromEntries(
        Object.entries(deliverables).filter(([k]) => k.startsWith('2026-06-08') || k.startsWith('2026-06-09')),
      ),
    ).toEqual({
      '2026-06-08 chest-small:granted': 1,
      '2026-06-08 chest-small:spent': 0,
      '2026-06-08 coins:granted': 20,
      '2026-06-08 coins:spent': 0,
      '2026-06-08 gems:granted': 0,
      '2026-06-09 chest-small:granted': 1,
      '2026-06-09 chest-small:spent': 1,
      '2026-06-09 coins:granted': 20,
      '2026-06-09 coins:spent': 15,
      '2026-06-09 gems:granted': 7,
    });
    expect(Object.values(deliverables).length).toBe(4 * 5);
  });

  it('counts badges and levels awarded, purchases and chest openings', async () => {
    expect(await keyed('badges')).toEqual({
      '2026-06-07 b-first': 0,
      '2026-06-08 b-first': 1,
      '2026-06-09 b-first': 1,
      '2026-06-10 b-first': 0,
    });
    // Level 2 was reached on June 8 and lost with the reversal: it stays counted as reached.
    expect(await keyed('levels')).toMatchObject({
      '2026-06-08 lvl-1': 0,
      '2026-06-08 lvl-2': 1,
      '2026-06-09 lvl-1': 2,
      '2026-06-09 lvl-2': 0,
    });
    expect(await keyed('purchases')).toEqual({
      '2026-06-07 bd-gems': 0,
      '2026-06-08 bd-gems': 0,
      '2026-06-09 bd-gems': 1,
      '2026-06-10 bd-gems': 0,
    });
    expect(await values('chest-openings')).toEqual([0, 0, 1, 0]);
  });

  it('answers a split series without keys as no points, and a single day', async () => {
    expect((await series('purchases', 'from=2026-06-08&to=2026-06-08')).points).toEqual([]);
    expect((await series('active-players', 'from=2026-06-09&to=2026-06-09', auditor)).points).toEqual([
      { day: '2026-06-09', value: 2 },
    ]);
  });

  it('answers text/csv with a header row for format=csv', async () => {
    const total = await t.http.get(`/v1/admin/analytics/points?${RANGE}&format=csv`).set(server);
    expect([total.status, total.headers['content-type'], total.headers['content-disposition']]).toEqual([
      200,
      'text/csv; charset=utf-8',
      'attachment; filename="points_2026-06-07_2026-06-10.csv"',
    ]);
    expect(total.text).toBe('day,value\r\n2026-06-07,0\r\n2026-06-08,15\r\n2026-06-09,16\r\n2026-06-10,0\r\n');
    const split = await t.http
      .get('/v1/admin/analytics/actions-by-action?from=2026-06-09&to=2026-06-09&format=csv')
      .set(auditor);
    expect(split.text).toBe('day,key,value\r\n2026-06-09,play,1\r\n2026-06-09,spin,1\r\n');
    // An explicit json is the envelope.
    expect(
      (await t.http.get(`/v1/admin/analytics/reversals?${RANGE}&format=json`).set(server)).body.data.points,
    ).toHaveLength(4);
  });

  it('allows 366 days and refuses more, and refuses an unknown series, a malformed or unreal day, to before from, and an unknown format with 1001', async () => {
    expect((await series('actions', 'from=2024-01-01&to=2024-12-31')).points).toHaveLength(366);
    const refused = async (name: string, query: string) => {
      const res = await t.http.get(`/v1/admin/analytics/${name}?${query}`).set(server);
      expect([name, query, res.status, res.body.code]).toEqual([name, query, 400, 1001]);
      return res.body.data as string;
    };
    expect(await refused('actions', 'from=2024-01-01&to=2025-01-01')).toBe(
      '367 days from 2024-01-01 to 2025-01-01: at most 366 a request',
    );
    expect(await refused('players', RANGE)).toMatch(/^Unknown series players: one of actions, /);
    expect(await refused('actions', 'from=2026-6-1&to=2026-06-10')).toBe('from: must be a day as YYYY-MM-DD');
    expect(await refused('actions', 'from=2026-02-30&to=2026-03-10')).toBe('from: not a real day');
    expect(await refused('actions', 'from=2026-06-01')).toBe('to: required, a day as YYYY-MM-DD');
    expect(await refused('actions', 'from=2026-06-10&to=2026-06-09')).toBe(
      'to (2026-06-09) is before from (2026-06-10)',
    );
    expect(await refused('actions', `${RANGE}&format=xml`)).toBe('format: must be json or csv');
  });

  it('is for operators: Server and Auditor keys', async () => {
    const res = await t.http.get(`/v1/admin/analytics/actions?${RANGE}`).set(mobile);
    expect([res.status, res.body.code]).toEqual([403, 4003]);
  });
});
