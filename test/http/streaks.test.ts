import { randomUUID } from 'node:crypto';
import { client, server, startTestService, type TestService } from '../support/service';

const CATALOG = `
version: 1
settings: { timezone: Europe/Berlin }
deliverables:
  - { uid: beans, label: Beans, type: Prize, kind: Currency }
actions:
  - { identifier: order }
streaks:
  - uid: s-daily-order
    label: Daily order
    description: An order every day
    period: Day
    conditions: [{ action: order, filters: [{ name: amount, op: gt, value: 0 }] }]
    freezes: { max: 2, earnEvery: 2 }
    milestones:
      - { length: 2, points: 10, deliverables: [{ deliverable: beans, amount: 20 }] }
  - { uid: s-weekly, label: Weekly order, period: Week, conditions: [{ action: order }] }
  - { uid: s-off, label: Retired, period: Day, isActive: false, conditions: [{ action: order }] }
`;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Wednesday 2026-11-25 12:00 UTC (13:00 in Berlin): the service's clock. */
const NOW = Date.UTC(2026, 10, 25, 12);
let t: TestService;
beforeAll(async () => {
  t = await startTestService({ catalogYaml: CATALOG, now: () => NOW });
});
afterAll(() => t.close());

const order = (playerId: string, at: number, amount = 5) =>
  t.http
    .post('/v1/action/process')
    .set(server)
    .send({
      name: 'order',
      playerId,
      referenceId: randomUUID(),
      timestamp: at,
      details: [{ name: 'amount', value: String(amount) }],
    });
const list = (playerId: unknown, headers: Record<string, string> = server) =>
  t.http.post('/v1/streaks/list').set(headers).send({ playerId });

describe('streaks over HTTP', () => {
  it("shows streaks in the action result and lists each active streak with its run, in the player's zone", async () => {
    const playerId = randomUUID();
    expect(
      (await t.http.post('/v1/player/create').set(server).send({ playerId, timeZone: 'Pacific/Kiritimati' })).body.code,
    ).toBe(200);
    // 2026-11-24 in Kiritimati, then 2026-11-25 (12:00 UTC is 02:00 on the 26th there: use 09:00 UTC, the 25th 23:00).
    await order(playerId, Date.UTC(2026, 10, 24, 9));
    const second = (await order(playerId, Date.UTC(2026, 10, 25, 9))).body.data;
    expect(second.streaks).toEqual([
      {
        uid: 's-daily-order',
        label: 'Daily order',
        length: 2,
        extended: true,
        freezesUsed: 0,
        freezesLeft: 1,
        milestones: [{ length: 2, points: 10, deliverables: [expect.objectContaining({ uid: 'beans', amount: 20 })] }],
      },
      {
        uid: 's-weekly',
        label: 'Weekly order',
        length: 1,
        extended: false,
        freezesUsed: 0,
        freezesLeft: 0,
        milestones: [],
      },
    ]);
    expect(second.earnedPoints).toBe(10);

    const res = await list(playerId, client);
    expect(res.body.code).toBe(200);
    // Last counted day 2026-11-25; the run ends at the end of the 27th (the 26th, plus one freeze), Kiritimati midnight = 10:00 UTC.
    expect(res.body.data).toEqual([
      {
        streakUid: 's-daily-order',
        label: 'Daily order',
        description: 'An order every day',
        imageName: null,
        period: 'Day',
        length: 2,
        longest: 2,
        lastPeriod: '2026-11-25',
        freezes: 1,
        breaksAt: Date.UTC(2026, 10, 27, 10),
      },
      {
        streakUid: 's-weekly',
        label: 'Weekly order',
        description: null,
        imageName: null,
        period: 'Week',
        length: 1,
        longest: 1,
        lastPeriod: '2026-W48',
        freezes: 0,
        breaksAt: Date.UTC(2026, 11, 6, 10),
      },
    ]);
  });

  it('reads length 0 once breaksAt has passed, and null for a player without a run', async () => {
    const playerId = randomUUID();
    await order(playerId, NOW - 5 * DAY);
    await order(playerId, NOW - 4 * DAY);
    const [daily] = (await list(playerId)).body.data;
    expect(daily).toMatchObject({
      length: 0,
      longest: 2,
      lastPeriod: '2026-11-21',
      freezes: 1,
      breaksAt: Date.UTC(2026, 10, 23, 23),
    }); // the end of the 23rd: the 22nd, plus one freeze

    const idle = randomUUID();
    await order(idle, NOW, 0);
    expect((await list(idle)).body.data[0]).toMatchObject({
      length: 0,
      longest: 0,
      lastPeriod: null,
      freezes: 0,
      breaksAt: null,
    });
  });

  it('counts breaksAt over the days the zone has: Pacific/Apia skipped 2011-12-30', async () => {
    const playerId = randomUUID();
    await t.http.post('/v1/player/create').set(server).send({ playerId, timeZone: 'Pacific/Apia' });
    await order(playerId, Date.parse('2011-12-28T12:00:00-10:00'));
    await order(playerId, Date.parse('2011-12-29T12:00:00-10:00'));
    // The day after the 29th is the 31st, then one freeze: the run ends at the end of 2012-01-01 (UTC+14).
    expect((await list(playerId)).body.data[0]).toMatchObject({
      lastPeriod: '2011-12-29',
      freezes: 1,
      breaksAt: Date.parse('2012-01-02T00:00:00+14:00'),
    });
  });

  it('recomputes the run when an action is reversed, and takes the milestone back', async () => {
    const playerId = randomUUID();
    const first = (await order(playerId, NOW - DAY)).body.data.referenceId;
    await order(playerId, NOW);
    expect(
      (await t.http.post('/v1/action/delete').set(server).send({ name: 'order', playerId, referenceId: first })).body
        .code,
    ).toBe(200);
    expect((await list(playerId)).body.data[0]).toMatchObject({
      length: 1,
      longest: 1,
      lastPeriod: '2026-11-25',
      freezes: 0,
    });
    const profile = (await t.http.post('/v1/player/profile').set(server).send({ playerId })).body.data;
    expect([profile.points, profile.balances]).toEqual([0, []]);
  });

  it('answers 9020 for an unknown player and 1002 for a missing or malformed playerId', async () => {
    expect((await list(randomUUID())).body).toEqual({ code: 9020, data: 'Player not found' });
    expect((await list('nope')).body.code).toBe(1002);
    expect((await t.http.post('/v1/streaks/list').set(server).send({})).body.code).toBe(1002);
  });
});
