import { randomUUID } from 'node:crypto';
import { server, startTestService, type TestService } from '../support/service';

const CATALOG = `
version: 1
settings: { timezone: Europe/Berlin }
deliverables:
  - { uid: beans, label: Beans, type: Prize, kind: Currency, earnCaps: [{ period: Day, amount: 3 }] }
actions:
  - identifier: watch_ad
    points: 10
    deliverables: [{ deliverable: beans, amount: 2 }]
    caps: [{ period: Day, times: 2 }, { period: Week, points: 15 }]
leaderboards:
  - { uid: lb-ads, label: Ads, type: 0, metric: { action: watch_ad } }
`;

/** 2026-06-01 (a Monday) 12:00 UTC: the service's clock. */
const NOW = Date.UTC(2026, 5, 1, 12);
let t: TestService;
beforeAll(async () => {
  t = await startTestService({ catalogYaml: CATALOG, now: () => NOW });
});
afterAll(() => t.close());

describe('caps over HTTP', () => {
  it('cuts points and deliverables, records an action past a times cap without counting it, and gives the allowance back on reversal', async () => {
    const playerId = randomUUID();
    // 10:00 UTC: noon in Berlin, one local day for all three.
    const at = Date.UTC(2026, 5, 1, 10);
    const send = (referenceId: string, minutes = 0) =>
      t.http
        .post('/v1/action/process')
        .set(server)
        .send({ name: 'watch_ad', playerId, referenceId, timestamp: at + minutes * 60_000 });
    const first = (await send(`${playerId}-1`)).body.data;
    expect([first.earnedPoints, first.deliverables[0].amount, first.capped]).toEqual([10, 2, null]);
    const second = (await send(`${playerId}-2`, 1)).body.data;
    expect([second.earnedPoints, second.deliverables[0].amount]).toEqual([5, 1]);
    expect(second.capped).toEqual([
      { period: 'Week', kind: 'points', limit: 15 },
      { period: 'Day', kind: 'earn', limit: 3, deliverable: 'beans' },
    ]);
    const third = await send(`${playerId}-3`, 2);
    expect(third.body).toMatchObject({
      code: 200,
      data: { earnedPoints: 0, deliverables: null, capped: [{ period: 'Day', kind: 'times', limit: 2 }] },
    });
    const answered = await t.http
      .get('/v1/action/get-response')
      .query({ referenceId: `${playerId}-3` })
      .set(server);
    expect(answered.body.data.capped).toEqual([{ period: 'Day', kind: 'times', limit: 2 }]);

    const standing = async () => {
      const board = await t.http.get('/v1/admin/leaderboards/lb-ads').query({ playerId }).set(server);
      return board.body.data[0].player?.points;
    };
    expect(await standing()).toBe(2);
    // Reversing a counted action gives back its use: the next action counts again (and the capped one stays out of the board).
    expect(
      (
        await t.http
          .post('/v1/action/delete')
          .set(server)
          .send({ name: 'watch_ad', playerId, referenceId: `${playerId}-1` })
      ).body.code,
    ).toBe(200);
    expect(
      (
        await t.http
          .post('/v1/action/delete')
          .set(server)
          .send({ name: 'watch_ad', playerId, referenceId: `${playerId}-3` })
      ).body.code,
    ).toBe(200);
    expect(await standing()).toBe(1);
    const fourth = (await send(`${playerId}-4`, 3)).body.data;
    expect([fourth.earnedPoints, fourth.deliverables[0].amount, fourth.capped]).toEqual([10, 2, null]);
    expect(await standing()).toBe(2);

    // The profile shows what is used of each cap this period of the player's calendar.
    const profile = (await t.http.post('/v1/player/profile').set(server).send({ playerId })).body.data;
    expect(profile.caps).toEqual([
      { kind: 'times', of: 'watch_ad', period: 'Day', periodName: '2026-06-01', used: 2, limit: 2 },
      { kind: 'points', of: 'watch_ad', period: 'Week', periodName: '2026-W23', used: 15, limit: 15 },
      { kind: 'earn', of: 'beans', period: 'Day', periodName: '2026-06-01', used: 3, limit: 3 },
    ]);
  });
});
