import { randomUUID } from 'node:crypto';
import { client, server, startTestService, type TestService } from '../support/service';

const CATALOG = `
version: 1
settings: { timezone: Europe/Berlin }
deliverables:
  - { uid: beans, label: Beans, type: Prize, kind: Currency }
actions:
  - { identifier: check_in }
  - { identifier: order, actionObjects: [{ label: amount, type: Number }] }
  - { identifier: browse }
badges:
  - { uid: b-browser, label: Browser, type: OneTimeOnly, conditions: [{ action: browse }] }
missions:
  - uid: m-first-week
    label: First week
    ordered: true
    steps:
      - { uid: m1-s1, label: Check in, condition: { action: check_in } }
      - { uid: m1-s2, label: Order twice, condition: { action: order, challenge: { times: 2 } } }
    points: 100
    deliverables: [{ deliverable: beans, amount: 50 }]
  - uid: m-daily-spend
    label: Daily spend
    repeat: Daily
    requires: { badge: b-browser }
    steps:
      - { uid: m2-s1, label: Spend 30, condition: { action: order, challenge: { sum: { field: amount, atLeast: 30 } } } }
    points: 5
  - { uid: m-off, label: Retired, isActive: false, steps: [{ uid: s, label: S, condition: { action: order } }] }
  - { uid: m-later, label: Later, startDate: 2027-01-01T00:00:00, steps: [{ uid: s, label: S, condition: { action: order } }] }
leaderboards:
  - { uid: lb-points, label: Points, type: 0 }
`;

/** Wednesday 2026-11-25 12:00 UTC: the service's clock. */
const NOW = Date.UTC(2026, 10, 25, 12);
const HOUR = 3_600_000;
let t: TestService;
beforeAll(async () => {
  t = await startTestService({ catalogYaml: CATALOG, now: () => NOW });
});
afterAll(() => t.close());

const act = (playerId: string, name: string, at = NOW, amount = 10) =>
  t.http
    .post('/v1/action/process')
    .set(server)
    .send({
      name,
      playerId,
      referenceId: randomUUID(),
      timestamp: at,
      details: [{ name: 'amount', value: String(amount) }],
    });
const list = (playerId: unknown, headers: Record<string, string> = server) =>
  t.http.post('/v1/missions/list').set(headers).send({ playerId });
const step = (uid: string, label: string, completed: boolean, count: number, sum: number, target: number) => ({
  uid,
  label,
  completed,
  progress: { count, sum, target },
});

describe('missions over HTTP', () => {
  it('lists each active mission in its window, every key present: in progress, locked, then completed with completedAt', async () => {
    const playerId = randomUUID();
    expect((await t.http.post('/v1/player/create').set(server).send({ playerId })).body.code).toBe(200);
    const res = await list(playerId, client);
    expect(res.body).toEqual({
      code: 200,
      data: [
        {
          missionUid: 'm-first-week',
          label: 'First week',
          status: 'InProgress',
          steps: [step('m1-s1', 'Check in', false, 0, 0, 1), step('m1-s2', 'Order twice', false, 0, 0, 2)],
          completedAt: null,
          period: null,
        },
        {
          missionUid: 'm-daily-spend',
          label: 'Daily spend',
          status: 'Locked',
          steps: [step('m2-s1', 'Spend 30', false, 0, 0, 30)],
          completedAt: null,
          period: '2026-11-25',
        },
      ],
    });

    expect((await act(playerId, 'check_in', NOW - 3000)).body.data.missions).toEqual([
      { uid: 'm-first-week', label: 'First week', stepsCompleted: 1, stepsTotal: 2, completed: false },
    ]);
    await act(playerId, 'order', NOW - 2000);
    const completing = (await act(playerId, 'order', NOW - 1000)).body.data;
    expect([completing.missions, completing.earnedPoints]).toEqual([
      [{ uid: 'm-first-week', label: 'First week', stepsCompleted: 2, stepsTotal: 2, completed: true }],
      100,
    ]);
    const [first] = (await list(playerId)).body.data;
    expect(first).toEqual({
      missionUid: 'm-first-week',
      label: 'First week',
      status: 'Completed',
      steps: [step('m1-s1', 'Check in', true, 1, 0, 1), step('m1-s2', 'Order twice', true, 2, 0, 2)],
      completedAt: NOW - 1000,
      period: null,
    });
    const profile = (await t.http.post('/v1/player/profile').set(server).send({ playerId })).body.data;
    expect([profile.points, profile.balances]).toEqual([
      100,
      [{ deliverableUid: 'beans', label: 'Beans', type: 1, amount: 50 }],
    ]);
  });

  it("a repeated mission shows the player's current day: yesterday's completion is not today's", async () => {
    const playerId = randomUUID();
    await act(playerId, 'browse');
    // 2026-11-24 23:30 in Berlin, then today.
    expect((await act(playerId, 'order', Date.UTC(2026, 10, 24, 22, 30), 30)).body.data.missions).toEqual([
      { uid: 'm-daily-spend', label: 'Daily spend', stepsCompleted: 1, stepsTotal: 1, completed: true },
    ]);
    await act(playerId, 'order', NOW - HOUR, 12);
    const daily = (await list(playerId)).body.data[1];
    expect(daily).toEqual({
      missionUid: 'm-daily-spend',
      label: 'Daily spend',
      status: 'InProgress',
      steps: [step('m2-s1', 'Spend 30', false, 1, 12, 30)],
      completedAt: null,
      period: '2026-11-25',
    });
  });

  it('counts a completion on points leaderboards, and a reversal the completion rests on takes it back from the board, the balance and the list', async () => {
    const playerId = randomUUID();
    const checkIn = (await act(playerId, 'check_in', NOW - 3000)).body.data.referenceId;
    await act(playerId, 'order', NOW - 2000);
    await act(playerId, 'order', NOW - 1000);
    const pointsOnBoard = async () =>
      (await t.http.get('/v1/admin/leaderboards/lb-points').query({ playerId }).set(server)).body.data[0].player
        ?.points ?? 0;
    expect(await pointsOnBoard()).toBe(100);

    expect(
      (await t.http.post('/v1/action/delete').set(server).send({ name: 'check_in', playerId, referenceId: checkIn }))
        .body.code,
    ).toBe(200);
    expect(await pointsOnBoard()).toBe(0);
    const profile = (await t.http.post('/v1/player/profile').set(server).send({ playerId })).body.data;
    expect([profile.points, profile.balances]).toEqual([0, []]);
    // Ordered: without the check-in, the orders are no entries of the second step.
    expect((await list(playerId)).body.data[0]).toEqual({
      missionUid: 'm-first-week',
      label: 'First week',
      status: 'InProgress',
      steps: [step('m1-s1', 'Check in', false, 0, 0, 1), step('m1-s2', 'Order twice', false, 0, 0, 2)],
      completedAt: null,
      period: null,
    });
  });

  it('answers 9020 for an unknown player and 1002 for a missing or malformed playerId', async () => {
    expect((await list(randomUUID())).body).toEqual({ code: 9020, data: 'Player not found' });
    expect((await list('nope')).body.code).toBe(1002);
    expect((await t.http.post('/v1/missions/list').set(server).send({})).body.code).toBe(1002);
  });
});
