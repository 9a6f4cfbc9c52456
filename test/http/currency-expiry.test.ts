/** Currency that expires over HTTP: the profile's balances and `expiring`, and CurrencyExpired recorded by the job. */
import { randomUUID } from 'node:crypto';
import { auditor, server, startTestService, type TestService } from '../support/service';
import { eventually } from '../support/process';

const CATALOG = `
version: 1
settings: { timezone: UTC }
deliverables:
  - { uid: stars, label: Stars, type: Prize, kind: Currency, expiry: { afterDays: 30 } }
actions:
  - { identifier: earn, deliverables: [{ deliverable: stars, amount: 10 }] }
`;

const DAY = 86_400_000;
let t: TestService;
beforeAll(async () => {
  t = await startTestService({ catalogYaml: CATALOG });
});
afterAll(() => t.close());

const earn = async (playerId: string, timestamp: number) =>
  (
    await t.http
      .post('/v1/action/process')
      .set(server)
      .send({ name: 'earn', playerId, referenceId: randomUUID(), timestamp })
  ).body;
const profile = async (playerId: string) =>
  (await t.http.post('/v1/player/profile').set(server).send({ playerId })).body.data;

describe('currency that expires', () => {
  it("lists the player's next lots in the profile; a grant dated long ago counts for nothing and its CurrencyExpired is recorded by the job", async () => {
    const playerId = randomUUID();
    const now = Date.now();
    // 40 days ago: the lot expired 9 days ago (the midnight ending the 30th day after it).
    const old = now - 40 * DAY;
    const granted = await earn(playerId, old);
    expect(granted).toMatchObject({
      code: 200,
      data: { deliverables: [expect.objectContaining({ uid: 'stars', amount: 10 })] },
    });
    expect((await earn(playerId, now)).code).toBe(200);

    const expiresAt = (ts: number) => (Math.floor(ts / DAY) + 31) * DAY;
    const read = await profile(playerId);
    expect(read.balances).toEqual([{ deliverableUid: 'stars', label: 'Stars', type: 1, amount: 10 }]);
    expect(read.expiring).toEqual([{ deliverableUid: 'stars', amount: 10, expiresAt: expiresAt(now) }]);

    const expired = async () =>
      (await t.service.events.readStream(`player-${playerId}`)).filter((e) => e.type === 'CurrencyExpired');
    await eventually(async () => (await expired()).length > 0, 30_000, 200);
    const events = await expired();
    expect(events.map((e) => e.data)).toEqual([
      expect.objectContaining({
        playerId,
        lots: [{ deliverableUid: 'stars', expiresAt: expiresAt(old), amount: 10 }],
      }),
    ]);
    expect(events[0].metadata).toMatchObject({
      keyName: 'scheduler',
      correlationId: `expire-currency-${playerId}-${expiresAt(old)}`,
    });
    expect((await profile(playerId)).balances).toEqual([
      { deliverableUid: 'stars', label: 'Stars', type: 1, amount: 10 },
    ]);

    const stream = await t.http.get(`/v1/audit/players/${playerId}/events`).set(auditor);
    expect(stream.body.data.filter((e: { type: string }) => e.type === 'CurrencyExpired')).toHaveLength(1);

    const feed = await t.http.get('/v1/feed/events').query({ types: 'CurrencyExpired', limit: 1000 }).set(auditor);
    expect(feed.body.code).toBe(200);
    expect(JSON.stringify(feed.body.data)).toContain(playerId);
    // Past the wait for the job above, so a job that never runs fails on what it should have written.
  }, 60_000);
});
