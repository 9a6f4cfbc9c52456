/**
 * Leagues over HTTP (docs/catalog.md, "Leagues"): a { minutes: 1 } league, its standings while the
 * period runs, the job that settles it at the period's end without a request, the history, the
 * profile's tier, the admin view, and LeagueFinished in the log and the feed. The service's clock is
 * real time set a few seconds before a period's end, so the settlement comes within seconds.
 */
import { randomUUID } from 'node:crypto';
import { auditor, client, server, startTestService, type TestService } from '../support/service';
import { eventually } from '../support/process';

const CATALOG = `
version: 1
settings: { timezone: UTC }
deliverables: [{ uid: beans, label: Beans, type: Prize, kind: Currency }]
actions: [{ identifier: order, points: 10 }]
leagues:
  - uid: lg-sprint
    label: Sprint league
    period: { minutes: 1 }
    cohortSize: 2
    tiers:
      - uid: bronze
        label: Bronze
        promote: 1
        prizes: [{ ranks: [1, 1], points: 5, deliverables: [{ deliverable: beans, amount: 3 }] }]
      - { uid: silver, label: Silver, demote: 1 }
`;

const MINUTE = 60_000;
/** Real time the service's clock is before the end of the period the actions are in: time enough to send them. */
const LEAD_MS = 10_000;

let t: TestService;
/** The end of the period the test acts in, on the service's clock. */
let periodEnd: number;
let offset = 0;
beforeAll(async () => {
  const real = Date.now();
  // The service's clock, behind real time, stands LEAD_MS before a minute's end.
  periodEnd = Math.floor((real + LEAD_MS) / MINUTE) * MINUTE;
  offset = periodEnd - LEAD_MS - real;
  t = await startTestService({ catalogYaml: CATALOG, now: () => Date.now() + offset });
});
afterAll(() => t.close());

const periodStart = () => periodEnd - MINUTE;
const register = (playerId: string, username: string) =>
  t.http.post('/v1/player/create').set(server).send({ playerId, username });
const order = async (playerId: string, timestamp: number) =>
  (
    await t.http
      .post('/v1/action/process')
      .set(server)
      .send({ name: 'order', playerId, referenceId: randomUUID(), timestamp })
  ).body;
const league = async (playerId: string, uid = 'lg-sprint') =>
  (await t.http.get(`/v1/leagues/${uid}`).query({ playerId }).set(server)).body;
const history = async (playerId: string) =>
  (await t.http.get('/v1/leagues/lg-sprint/history').query({ playerId }).set(server)).body;

describe('a league over HTTP', () => {
  const [ann, ben, cy] = [randomUUID(), randomUUID(), randomUUID()];

  it('ranks each cohort while the period runs, settles it at the end with the prize, and starts the next period in the new tier', async () => {
    for (const [id, name] of [
      [ann, 'Ann'],
      [ben, 'Ben'],
      [cy, 'Cy'],
    ])
      expect((await register(id, name)).body.code).toBe(200);
    const at = periodStart() + 1000;
    for (const id of [ann, ben, cy, ann]) expect((await order(id, at)).code).toBe(200);

    const period = { start: periodStart(), end: periodEnd };
    expect(await league(ann)).toEqual({
      code: 200,
      data: {
        league: { uid: 'lg-sprint', label: 'Sprint league' },
        period,
        tier: { uid: 'bronze', label: 'Bronze' },
        cohort: 1,
        rank: 1,
        metric: 20,
        zone: 'Promotion',
        standings: [
          { rank: 1, playerId: ann, username: 'Ann', metric: 20 },
          { rank: 2, playerId: ben, username: 'Ben', metric: 10 },
        ],
      },
    });
    expect((await league(ben)).data).toMatchObject({ cohort: 1, rank: 2, zone: 'Safe' });
    expect((await league(cy)).data).toMatchObject({
      cohort: 2,
      rank: 1,
      standings: [{ rank: 1, playerId: cy, username: 'Cy', metric: 10 }],
    });
    const admin = await t.http.get('/v1/admin/leagues').set(auditor);
    expect(admin.body.data).toEqual([
      {
        uid: 'lg-sprint',
        label: 'Sprint league',
        period,
        tiers: [
          { uid: 'bronze', label: 'Bronze', players: 3, cohorts: 2 },
          { uid: 'silver', label: 'Silver', players: 0, cohorts: 0 },
        ],
      },
    ]);

    // Settled by the job at the period's end, without a request.
    await eventually(async () => (await history(cy)).data.length > 0, 40_000, 200);
    await eventually(async () => (await history(ann)).data.length > 0, 10_000, 200);
    expect((await history(ann)).data).toEqual([
      {
        period,
        tier: 'bronze',
        cohort: 1,
        rank: 1,
        metric: 20,
        outcome: 'Promoted',
        nextTier: 'silver',
        prize: { points: 5, deliverables: [{ deliverable: 'beans', amount: 3 }] },
      },
    ]);
    expect((await history(ben)).data).toEqual([
      expect.objectContaining({ rank: 2, outcome: 'Stayed', nextTier: 'bronze', prize: null }),
    ]);
    expect((await history(cy)).data).toEqual([expect.objectContaining({ cohort: 2, rank: 1, outcome: 'Promoted' })]);

    const profile = (await t.http.post('/v1/player/profile').set(server).send({ playerId: ann })).body.data;
    expect(profile).toMatchObject({
      points: 25,
      balances: [{ deliverableUid: 'beans', amount: 3 }],
      leagues: [{ uid: 'lg-sprint', tier: 'silver' }],
    });
    // The next period: not in it yet, the tier Ann would enter.
    expect((await league(ann)).data).toMatchObject({
      period: { start: periodEnd, end: periodEnd + MINUTE },
      tier: { uid: 'silver', label: 'Silver' },
      cohort: null,
      rank: null,
      zone: null,
      metric: 0,
      standings: [],
    });
    expect((await order(ann, periodEnd + 1000)).code).toBe(200);
    expect((await league(ann)).data).toMatchObject({ tier: { uid: 'silver' }, cohort: 1, rank: 1, metric: 10 });

    // One LeagueFinished each, in the log, the player's audit stream and the feed.
    for (const id of [ann, ben, cy]) {
      const events = await t.service.events.readStream(`player-${id}`);
      expect(events.filter((e) => e.type === 'LeagueFinished')).toHaveLength(1);
    }
    const stream = await t.http.get(`/v1/audit/players/${ann}/events`).set(auditor);
    expect(stream.body.data.filter((e: { type: string }) => e.type === 'LeagueFinished')).toHaveLength(1);
    const feed = await t.http.get('/v1/feed/events').query({ types: 'LeagueFinished', limit: 1000 }).set(auditor);
    expect(feed.body.code).toBe(200);
    // The read models rebuilt from the log are the live ones: the same cohorts, ranks and outcomes.
    const verified = await t.http.post('/v1/audit/verify').set(server);
    expect(verified.body.data.differences).toEqual([]);
    expect(verified.body.data.collections).toEqual(expect.arrayContaining(['league_members', 'league_tiers']));
    for (const id of [ann, ben, cy]) expect(JSON.stringify(feed.body.data)).toContain(id);
  }, 90_000);

  it('answers 9043 for an unknown league, 9020 for an unknown player, 1002 for a playerId not a UUID; a Client key may read', async () => {
    expect(await league(ann, 'lg-none')).toMatchObject({ code: 9043 });
    expect(await league(randomUUID())).toMatchObject({ code: 9020 });
    expect((await t.http.get('/v1/leagues/lg-sprint/history').query({ playerId: 'nope' }).set(server)).body.code).toBe(
      1002,
    );
    expect(
      (await t.http.get('/v1/leagues/lg-sprint/history').query({ playerId: randomUUID() }).set(server)).body,
    ).toMatchObject({
      code: 9020,
    });
    expect((await t.http.get('/v1/leagues/lg-sprint').set(server)).body.code).toBe(1001);
    expect((await t.http.get('/v1/leagues/lg-sprint').query({ playerId: ann }).set(client)).body.code).toBe(200);
  });
});
