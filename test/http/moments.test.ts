/**
 * Moments over HTTP (docs/catalog.md, "moments"): a streak at risk appended by its job at the
 * player's local time, once, also across a restart; sent to a webhook that takes only the moments;
 * listed by GET /v1/player/moments, whose pending ones move when the player changes zone.
 */
import { randomUUID } from 'node:crypto';
import { client, server, startTestService, tempDir, type TestService } from '../support/service';
import { eventually } from '../support/process';
import { newSecret, startReceiver, writeWebhooksFile, type Receiver } from '../support/webhook-receiver';

const DAY = 86_400_000;
// Due at 00:00: the run's deadline day has begun whenever the test runs, so the job runs at once.
const CATALOG = `
version: 1
settings: { timezone: UTC }
actions: [{ identifier: order }]
streaks:
  - { uid: s-daily, label: Daily order, period: Day, conditions: [{ action: order }] }
moments:
  streakAtRisk: { atLocalTime: "00:00", minLength: 2 }
  inactive: { afterDays: [3], atLocalTime: "09:00" }
`;
const MOMENT_TYPES = ['StreakAtRisk', 'MissionEnding', 'PlayerInactive'];

let t: TestService;
let receiver: Receiver;
beforeAll(async () => {
  const secret = newSecret();
  receiver = await startReceiver(secret);
  const dataDir = tempDir();
  const hooks = writeWebhooksFile(dataDir, { name: 'push', url: receiver.url, secret, events: MOMENT_TYPES });
  t = await startTestService({ catalogYaml: CATALOG, dataDir, env: { WEBHOOKS_FILE: hooks } });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const order = async (playerId: string, timestamp: number) => {
  const res = await t.http
    .post('/v1/action/process')
    .set(server)
    .send({ name: 'order', playerId, referenceId: randomUUID(), timestamp });
  expect(res.body.code).toBe(200);
};
const momentsOf = async (playerId: string) =>
  (await t.service.events.readStream(`player-${playerId}`)).filter((e) => MOMENT_TYPES.includes(e.type));
const listed = async (playerId: string, keys: Record<string, string> = server) =>
  (await t.http.get('/v1/player/moments').query({ playerId }).set(keys)).body;
/** Unix ms of a UTC day's start. */
const dayStart = (ms: number) => Math.floor(ms / DAY) * DAY;

describe('moments', () => {
  it('appends StreakAtRisk once when due, sends it to the webhook that takes moments only, and lists it', async () => {
    const playerId = randomUUID();
    const now = Date.now();
    await order(playerId, now - 2 * DAY);
    await order(playerId, now - DAY);

    await eventually(async () => (await momentsOf(playerId)).length > 0, 20_000);
    const [risk] = await momentsOf(playerId);
    expect(risk).toMatchObject({
      type: 'StreakAtRisk',
      data: { playerId, streakUid: 's-daily', length: 2, endsAt: dayStart(now) + DAY, dueAt: dayStart(now) },
      metadata: { keyName: 'scheduler', correlationId: `moment-StreakAtRisk-${playerId}-s-daily` },
    });

    // The webhook takes the moments and nothing else (the actions, the registration).
    await eventually(() => receiver.accepted.some((r) => r.body.data.playerId === playerId), 20_000);
    const sent = receiver.accepted.filter((r) => r.body.data.playerId === playerId);
    expect(sent.map((r) => r.type)).toEqual(['StreakAtRisk']);
    expect(sent[0].body.data.data).toMatchObject({ streakUid: 's-daily', length: 2 });

    const inactiveAt = dayStart(now - DAY) + 3 * DAY + 9 * 3_600_000;
    const answer = await listed(playerId, client);
    expect(answer).toEqual({
      code: 200,
      data: {
        pending: [{ type: 'PlayerInactive', dueAt: inactiveAt, data: { days: 3, lastActionAt: now - DAY } }],
        recent: [
          {
            type: 'StreakAtRisk',
            dueAt: dayStart(now),
            data: { streakUid: 's-daily', length: 2, endsAt: dayStart(now) + DAY, lastPeriod: expect.any(Number) },
          },
        ],
      },
    });

    // A restart (the job store kept, jobs started again) appends nothing more.
    t = await t.restart();
    await order(randomUUID(), Date.now());
    expect(await momentsOf(playerId)).toHaveLength(1);
  }, 60_000);

  it("moves the pending moments to the player's new zone", async () => {
    const playerId = randomUUID();
    const last = Date.now() - DAY;
    await order(playerId, last);
    const before = (await listed(playerId)).data.pending;
    expect(before).toEqual([expect.objectContaining({ type: 'PlayerInactive' })]);

    const update = await t.http.post('/v1/player/update').set(server).send({ playerId, timeZone: 'Asia/Tokyo' });
    expect(update.body.code).toBe(200);
    const tokyoDay = Math.floor((last + 9 * 3_600_000) / DAY) * DAY;
    // 09:00 in Tokyo is 00:00 UTC, three Tokyo days after the last action's.
    expect((await listed(playerId)).data.pending).toEqual([
      { type: 'PlayerInactive', dueAt: tokyoDay + 3 * DAY, data: { days: 3, lastActionAt: last } },
    ]);
  });

  it('answers 9020 for a player never registered and 1002 for a playerId that is not a UUID', async () => {
    expect((await listed(randomUUID())).code).toBe(9020);
    expect((await listed('not-a-uuid')).code).toBe(1002);
    expect((await t.http.get('/v1/player/moments').set(server)).body.code).toBe(1002);
  });
});
