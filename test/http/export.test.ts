import { randomUUID } from 'node:crypto';
import { playerExport } from '../../read-api/player-export/route';
import { auditor, client, mobile, server, startTestService, type TestService } from '../support/service';

const CATALOG = `
version: 1
settings: { timezone: Europe/Berlin }
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
  - { uid: sword, label: Sword, type: Prize, kind: Item }
  - { uid: box, label: Box, type: Prize, kind: Chest, chest: { pool: [{ reward: gold, amount: { min: 5, max: 5 }, weight: 1 }] } }
actions:
  - { uid: act-earn, identifier: earn, points: 10, deliverables: [{ deliverable: gold, amount: 100 }, { deliverable: box, amount: 1 }] }
  - { uid: act-fight, identifier: fight, points: 5, cost: 10, costDeliverable: gold }
badges:
  - { uid: b-earner, label: Earner, type: OneTimeOnly, points: 20, conditions: [{ action: earn }] }
streaks:
  - { uid: s-daily, label: Daily earning, period: Day, conditions: [{ action: earn }] }
stores:
  - uid: main
    label: Main
    bundles:
      - { uid: rare, label: Rare sword, cost: 50, costDeliverable: gold, initialStock: 5, contents: [{ deliverable: sword, amount: 1 }] }
`;

const HOUR = 3_600_000;
/** Wednesday 2026-11-25 12:00 UTC: the service's clock. */
const NOW = Date.UTC(2026, 10, 25, 12);
let t: TestService;
beforeAll(async () => {
  t = await startTestService({ catalogYaml: CATALOG, now: () => NOW });
});
afterAll(() => t.close());

const ok = async (path: string, body: object) => {
  const res = await t.http.post(path).set(server).send(body);
  expect(res.body).toMatchObject({ code: 200 });
  return res.body.data;
};
const exportOf = (playerId: string, headers: Record<string, string> = server) =>
  t.http.get(`/v1/admin/players/${playerId}/export`).set(headers);

describe('GET /v1/admin/players/{playerId}/export', () => {
  it('lists exactly what the player did, oldest first, a reversed action marked, with the holdings after a purchase and a chest', async () => {
    const playerId = randomUUID();
    const earn = `earn-${randomUUID()}`;
    const fight = `fight-${randomUUID()}`;
    await ok('/v1/player/create', {
      playerId,
      username: 'Ada Lovelace',
      imageName: 'https://img.example.com/ada.png',
      timeZone: 'Europe/Paris',
    });
    await ok('/v1/action/process', {
      name: 'earn',
      playerId,
      referenceId: earn,
      timestamp: NOW - 2 * HOUR,
      details: [{ name: 'city', value: 'Lyon' }],
    });
    await ok('/v1/action/process', { name: 'fight', playerId, referenceId: fight, timestamp: NOW - HOUR });
    await ok('/v1/action/delete', { name: 'fight', playerId, referenceId: fight });
    const { provisionUid } = await ok('/v1/store/buy', { playerId, referenceId: 'rare' });
    await ok('/v1/chest/open', { playerId, chestDeliverableUId: 'box' });
    // Another player's action is not this player's data.
    const other = randomUUID();
    await ok('/v1/action/process', {
      name: 'earn',
      playerId: other,
      referenceId: `earn-${randomUUID()}`,
      timestamp: NOW,
    });

    const res = await exportOf(playerId.toUpperCase(), auditor);
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(Object.keys(data)).toEqual([
      'playerId',
      'profile',
      'points',
      'level',
      'badges',
      'balances',
      'transactions',
      'chests',
      'powerups',
      'streaks',
      'missions',
      'adjustments',
      'actions',
    ]);
    expect(data.playerId).toBe(playerId);
    expect(data.profile).toEqual({
      username: 'Ada Lovelace',
      imageName: 'https://img.example.com/ada.png',
      timeZone: 'Europe/Paris',
      registeredAt: NOW,
      attributes: {},
    });
    expect(data.adjustments).toEqual([]);
    expect(data.actions).toEqual([
      {
        referenceId: earn,
        name: 'earn',
        timestamp: NOW - 2 * HOUR,
        details: [{ name: 'city', value: 'Lyon' }],
        earnedPoints: 30,
        reversed: false,
      },
      { referenceId: fight, name: 'fight', timestamp: NOW - HOUR, details: [], earnedPoints: 5, reversed: true },
    ]);
    // 100 earned, 10 paid for the fight and refunded by its reversal, 50 for the sword, 5 from the box.
    expect(data.balances).toEqual([
      { deliverableUid: 'gold', label: 'Gold', type: 1, amount: 55 },
      { deliverableUid: 'sword', label: 'Sword', type: 1, amount: 1 },
    ]);
    expect(data.points).toBe(30);
    expect(data.badges).toEqual([{ uid: 'b-earner', label: 'Earner', type: 'OneTimeOnly', count: 1, rank: null }]);
    expect(data.transactions).toEqual([
      expect.objectContaining({
        playerId,
        referenceType: 'Action',
        referenceId: fight,
        cost: 10,
        costDeliverableUid: 'gold',
        status: 'Refunded',
      }),
      expect.objectContaining({
        playerId,
        provisionUid,
        referenceType: 'Store',
        bundleUid: 'rare',
        cost: 50,
        status: 'Completed',
        contents: [{ deliverableUid: 'sword', label: 'Sword', type: 1, amount: 1 }],
      }),
    ]);
    expect(data.chests).toEqual({
      owned: [],
      rewards: [
        {
          openedAt: expect.any(Number),
          chestLabel: 'Box',
          rewardLabel: 'Gold',
          rewardImageName: null,
          type: 1,
          amount: 5,
        },
      ],
    });
    expect(data.powerups).toEqual([]);
    expect(data.streaks).toEqual([
      expect.objectContaining({ streakUid: 's-daily', length: 1, longest: 1, lastPeriod: '2026-11-25' }),
    ]);

    // The holdings are those the player's own routes show.
    const profile = (await t.http.post('/v1/player/profile').set(server).send({ playerId })).body.data;
    expect({
      points: data.points,
      level: data.level,
      badges: data.badges,
      balances: data.balances,
      timeZone: data.profile.timeZone,
    }).toEqual({
      points: profile.points,
      level: profile.level,
      badges: profile.badges,
      balances: profile.balances,
      timeZone: profile.timeZone,
    });
    const history = (await t.http.post('/v1/store/transactions').set(server).send({ playerId })).body.data;
    expect(data.transactions).toEqual([...history].reverse());
    expect((await exportOf(playerId, server)).body.data).toEqual(data);
  });

  it('writes a long history in pieces, exactly the JSON of the whole document, every action in order', async () => {
    const playerId = randomUUID();
    const references = Array.from({ length: 1_200 }, (_, i) => `long-${i}-${randomUUID()}`);
    // 100 actions a request (one outer, 99 nested): more than one page of events, more than one piece of actions.
    for (let i = 0; i < references.length; i += 100) {
      const [outer, ...nested] = references.slice(i, i + 100).map((referenceId, j) => ({
        name: 'earn',
        playerId,
        referenceId,
        timestamp: NOW - HOUR + i + j,
        details: [{ name: 'round', value: String(i + j) }],
      }));
      await ok('/v1/action/process', { ...outer, actions: nested });
    }
    const res = await exportOf(playerId);
    expect(res.status).toBe(200);
    // In pieces: no length known before the last one is written.
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const whole = await playerExport(t.service.events, t.service.deps.catalog().catalog, playerId, NOW);
    expect(whole).toHaveProperty('exported');
    expect(res.text).toBe(JSON.stringify({ code: 200, data: (whole as { exported: unknown }).exported }));
    expect(res.body.data.actions.map((a: { referenceId: string }) => a.referenceId)).toEqual(references);
  }, 120_000);

  it('is for Server and Auditor keys only: 4003 for Mobile and Client keys', async () => {
    const playerId = randomUUID();
    await ok('/v1/player/create', { playerId });
    for (const headers of [mobile, client]) {
      const res = await exportOf(playerId, headers);
      expect([res.status, res.body.code]).toEqual([403, 4003]);
    }
    expect((await exportOf(playerId, auditor)).body.code).toBe(200);
  });

  it('answers 5003 for a player never registered and 1002 for an id that is not a UUID', async () => {
    const unknown = await exportOf(randomUUID());
    expect([unknown.status, unknown.body.code]).toEqual([400, 5003]);
    const malformed = await exportOf('not-a-uuid');
    expect([malformed.status, malformed.body.code]).toEqual([400, 1002]);
  });
});
