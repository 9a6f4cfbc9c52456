/**
 * The leagueEnding moment over HTTP (docs/catalog.md, "moments"): a { minutes: 1 } league, shorter
 * than `hoursBefore`, so each entry's moment is due at once; the job ranks the player in their
 * cohort when it runs and appends LeagueEnding only in the zones named, listed by
 * GET /v1/player/moments. The service's clock stands at a minute's start, so the actions share
 * one period.
 */
import { randomUUID } from 'node:crypto';
import { server, startTestService, type TestService } from '../support/service';
import { eventually } from '../support/process';

const CATALOG = `
version: 1
settings: { timezone: UTC }
actions: [{ identifier: order, points: 10 }]
leagues:
  - uid: lg-sprint
    label: Sprint league
    period: { minutes: 1 }
    cohortSize: 2
    tiers: [{ uid: bronze, label: Bronze, promote: 1 }, { uid: silver, label: Silver }]
moments:
  leagueEnding: { hoursBefore: 1, zones: [Promotion] }
`;

const MINUTE = 60_000;
let t: TestService;
let periodStart = 0;
let offset = 0;
beforeAll(async () => {
  const real = Date.now();
  // The service's clock, set apart from real time, stands a second into a minute.
  periodStart = Math.ceil(real / MINUTE) * MINUTE;
  offset = periodStart + 1000 - real;
  t = await startTestService({ catalogYaml: CATALOG, now: () => Date.now() + offset });
});
afterAll(() => t.close());

const order = async (playerId: string) => {
  const res = await t.http
    .post('/v1/action/process')
    .set(server)
    .send({ name: 'order', playerId, referenceId: randomUUID(), timestamp: Date.now() + offset });
  expect(res.body.code).toBe(200);
};
const endings = async (playerId: string) =>
  (await t.service.events.readStream(`player-${playerId}`)).filter((e) => e.type === 'LeagueEnding');
const listed = async (playerId: string) =>
  (await t.http.get('/v1/player/moments').query({ playerId }).set(server)).body;

describe('LeagueEnding', () => {
  it('is appended for the player in the promotion zone when their job runs, once, and listed; not for the one behind', async () => {
    const [ann, ben, cy] = [randomUUID(), randomUUID(), randomUUID()];
    await order(ann);
    await order(ann);
    await eventually(async () => (await endings(ann)).length > 0, 20_000);
    // Ben enters Ann's cohort behind her (Safe); Cy opens the next cohort, alone and first.
    await order(ben);
    await order(cy);
    await eventually(async () => (await endings(cy)).length > 0, 20_000);

    const end = periodStart + MINUTE;
    const expected = { leagueUid: 'lg-sprint', tier: 'bronze', zone: 'Promotion', rank: 1, endsAt: end };
    expect(await endings(ann)).toMatchObject([
      {
        data: { playerId: ann, ...expected, periodStart, dueAt: end - 3_600_000 },
        metadata: { keyName: 'scheduler', correlationId: `moment-LeagueEnding-${ann}-lg-sprint` },
      },
    ]);
    const body = await listed(ann);
    expect(body.data.recent).toEqual([
      { type: 'LeagueEnding', dueAt: end - 3_600_000, data: { ...expected, periodStart } },
    ]);
    expect(body.data.pending).toEqual([]);
    expect(await endings(ben)).toEqual([]);
  });
});
