/**
 * Season prizes over HTTP (docs/catalog.md, "Season prizes"): a daily board (the shortest season
 * a board has) whose season ends while the test runs: the service's clock is real time set a few
 * seconds before a UTC midnight, so the job settles the season within seconds, without a request:
 * one LeaderboardSeasonFinished per rewarded player with the prize, in the log, the feed and the
 * audit stream, the prize's points on the board's next season, and the read models verified.
 */
import { randomUUID } from 'node:crypto';
import { auditor, server, startTestService, type TestService } from '../support/service';
import { eventually } from '../support/process';

const CATALOG = `
version: 1
settings: { timezone: UTC }
deliverables: [{ uid: beans, label: Beans, type: Prize, kind: Currency }]
actions: [{ identifier: order, points: 10 }]
leaderboards:
  - uid: lb-daily
    label: Today's best
    period: Day
    prizes:
      - { ranks: [1, 1], points: 5, deliverables: [{ deliverable: beans, amount: 3 }] }
      - { ranks: [2, 2], points: 1 }
`;

const DAY = 86_400_000;
/** Real time the service's clock is before the end of the day the actions are in: time enough to send them. */
const LEAD_MS = 10_000;

let t: TestService;
let dayEnd: number;
beforeAll(async () => {
  const real = Date.now();
  // The service's clock, behind real time (as the scheduler's, so a job runs no later than due), stands LEAD_MS before the last UTC midnight.
  dayEnd = Math.floor(real / DAY) * DAY;
  const offset = dayEnd - LEAD_MS - real;
  t = await startTestService({ catalogYaml: CATALOG, now: () => Date.now() + offset });
});
afterAll(() => t.close());

const dayKey = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const register = (playerId: string, username: string) =>
  t.http.post('/v1/player/create').set(server).send({ playerId, username });
const order = async (playerId: string, timestamp: number) =>
  (
    await t.http
      .post('/v1/action/process')
      .set(server)
      .send({ name: 'order', playerId, referenceId: randomUUID(), timestamp })
  ).body;
const finished = async (playerId: string) =>
  (await t.service.events.readStream(`player-${playerId}`)).filter((e) => e.type === 'LeaderboardSeasonFinished');

describe('season prizes over HTTP', () => {
  const [ann, ben, cy] = [randomUUID(), randomUUID(), randomUUID()];

  it("settles the season at its end with each rewarded rank's prize, once", async () => {
    for (const [id, name] of [
      [ann, 'Ann'],
      [ben, 'Ben'],
      [cy, 'Cy'],
    ])
      expect((await register(id, name)).body.code).toBe(200);
    const at = dayEnd - DAY + 1000;
    for (const id of [ann, ben, ann, cy, ann, ben]) expect((await order(id, at)).code).toBe(200);
    const season = dayKey(at);

    // Settled by the job at the season's end, without a request.
    await eventually(async () => (await finished(ben)).length > 0, 40_000, 200);
    expect((await finished(ann)).map((e) => e.data)).toEqual([
      expect.objectContaining({
        leaderboardUid: 'lb-daily',
        season,
        bounds: { start: dayEnd - DAY, end: dayEnd },
        rank: 1,
        score: 30,
        prize: { points: 5, deliverables: [{ deliverable: 'beans', amount: 3 }] },
      }),
    ]);
    expect((await finished(ben)).map((e) => e.data)).toEqual([
      expect.objectContaining({ rank: 2, score: 20, prize: { points: 1, deliverables: [] } }),
    ]);
    expect(await finished(cy)).toEqual([]);
    const settled = await t.service.events.readStream(`leaderboard-season-lb-daily/${season}`);
    expect(settled.map((e) => [e.type, (e.data as { standings: unknown }).standings])).toEqual([
      [
        'LeaderboardSeasonSettled',
        [
          { playerId: ann, score: 30 },
          { playerId: ben, score: 20 },
        ],
      ],
    ]);

    const profile = (await t.http.post('/v1/player/profile').set(server).send({ playerId: ann })).body.data;
    expect(profile).toMatchObject({ points: 35, balances: [{ deliverableUid: 'beans', amount: 3 }] });
    // The prize's points count on the board's season then running.
    const next = await eventually(
      async () => {
        const body = (await t.http.get('/v1/admin/leaderboards/lb-daily').set(auditor)).body;
        return JSON.stringify(body.data).includes(ann) ? body : false;
      },
      10_000,
      200,
    );
    expect(JSON.stringify(next)).toContain('"points":5');

    const stream = await t.http.get(`/v1/audit/players/${ann}/events`).set(auditor);
    expect(stream.body.data.filter((e: { type: string }) => e.type === 'LeaderboardSeasonFinished')).toHaveLength(1);
    const feed = await t.http
      .get('/v1/feed/events')
      .query({ types: 'LeaderboardSeasonFinished', limit: 1000 })
      .set(auditor);
    expect(feed.body.data.events.map((e: { data: { playerId: string } }) => e.data.playerId).sort()).toEqual(
      [ann, ben].sort(),
    );
    const verified = await t.http.post('/v1/audit/verify').set(server);
    expect(verified.body.data.differences).toEqual([]);
  }, 90_000);
});
