/** Support adjustments through the real service: the route, its refusals, and where an adjustment shows. */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { auditor, client, mobile, server, startTestService, tempDir, type TestService } from '../support/service';
import { newSecret, startReceiver, writeWebhooksFile, type Receiver } from '../support/webhook-receiver';
import { eventually } from '../support/process';

const CATALOG = `
version: 1
settings: { timezone: UTC }
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
  - { uid: sword, label: Sword, type: Prize }
actions:
  - { uid: act-earn, identifier: earn, points: 10, deliverables: [{ deliverable: gold, amount: 100 }] }
leaderboards:
  - { uid: lb-all, label: All-time, type: 0, startDate: 2020-01-01T00:00:00, endDate: 2100-01-01T00:00:00 }
`;

let t: TestService;
let receiver: Receiver;
beforeAll(async () => {
  const secret = newSecret();
  receiver = await startReceiver(secret);
  const dataDir = tempDir();
  const file = writeWebhooksFile(dataDir, { name: 'support', url: receiver.url, secret, events: ['PlayerAdjusted'] });
  t = await startTestService({ catalogYaml: CATALOG, dataDir, env: { WEBHOOKS_FILE: file } });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

/** The files under `dir` whose bytes hold `value`, by name. */
function holding(dir: string, value: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return holding(full, value);
    return entry.isFile() && fs.readFileSync(full).includes(Buffer.from(value)) ? [entry.name] : [];
  });
}

const post = (p: string, body: object, headers: Record<string, string> = server) =>
  t.http.post(p).set(headers).send(body);
const adjust = (body: object, headers: Record<string, string> = server) =>
  post('/v1/admin/players/adjust', body, headers);
const earn = async (playerId: string) =>
  expect((await post('/v1/action/process', { name: 'earn', playerId, referenceId: randomUUID() })).body.code).toBe(200);
const profile = async (playerId: string) => (await post('/v1/player/profile', { playerId })).body.data;
const goldOf = (p: { balances: { deliverableUid: string; amount: number }[] }) =>
  p.balances.find((b) => b.deliverableUid === 'gold')?.amount ?? 0;
const standings = async () =>
  (
    (await t.http.get('/v1/admin/leaderboards/lb-all').set(server)).body.data[0].standings as {
      userId: string;
      points: number;
    }[]
  ).map((s) => [s.userId, s.points]);

describe('POST /v1/admin/players/adjust', () => {
  it('grants and takes back points and deliverables with a reason, once per Idempotency-Key, and moves the boards', async () => {
    const [ada, bob] = [randomUUID(), randomUUID()];
    await earn(ada);
    await earn(bob);
    await earn(bob);
    const key = `adjust-${randomUUID()}`;
    const grant = () =>
      adjust({
        playerId: ada,
        reason: 'Compensation for ticket 42',
        points: 15,
        deliverables: [
          { deliverable: 'gold', amount: '-30' },
          { deliverable: 'sword', amount: 1 },
        ],
      }).set('Idempotency-Key', key);
    const first = await grant();
    expect(first.body).toMatchObject({
      code: 200,
      data: {
        playerId: ada,
        adjustmentUid: expect.any(String),
        reason: 'Compensation for ticket 42',
        keyName: 'backend',
        points: 15,
        deliverables: [
          { uid: 'gold', label: 'Gold', amount: -30 },
          { uid: 'sword', label: 'Sword', amount: 1 },
        ],
        levels: [],
      },
    });
    expect((await grant()).body).toEqual(first.body);
    const after = await profile(ada);
    expect([after.points, goldOf(after)]).toEqual([25, 70]);
    expect(await standings()).toEqual([
      [ada, 25],
      [bob, 20],
    ]);

    // Taking back points takes them off the boards too.
    expect((await adjust({ playerId: ada, reason: 'Duplicate grant', points: -15 })).body.code).toBe(200);
    expect((await profile(ada)).points).toBe(10);
    expect(await standings()).toEqual([
      [bob, 20],
      [ada, 10],
    ]);
    // A score taken to 0 leaves the standings, as a player who never scored is not in them.
    expect((await adjust({ playerId: ada, reason: 'Closing the account', points: -10 })).body.code).toBe(200);
    expect(await standings()).toEqual([[bob, 20]]);
  });

  it('never takes a balance below zero (9011), and changes nothing when it refuses', async () => {
    const ada = randomUUID();
    await earn(ada);
    const refused = await adjust({
      playerId: ada,
      reason: 'too much',
      points: -5,
      deliverables: [{ deliverable: 'gold', amount: -101 }],
    });
    expect(refused.body).toEqual({
      code: 9011,
      data: "Adjustment would take the player's points or a balance below zero: the player has 100 Gold",
    });
    expect((await adjust({ playerId: ada, reason: 'too many points', points: -10.5 })).body.code).toBe(9011);
    const p = await profile(ada);
    expect([p.points, goldOf(p)]).toEqual([10, 100]);
  });

  it('answers unknown players 5003, unknown deliverables 1001, a malformed playerId 1002', async () => {
    const ada = randomUUID();
    await earn(ada);
    expect((await adjust({ playerId: randomUUID(), reason: 'r', points: 1 })).body.code).toBe(5003);
    expect((await adjust({ playerId: 'nope', reason: 'r', points: 1 })).body.code).toBe(1002);
    expect(
      (await adjust({ playerId: ada, reason: 'r', deliverables: [{ deliverable: 'diamonds', amount: 1 }] })).body,
    ).toEqual({ code: 1001, data: 'Deliverable does not exist: diamonds' });
  });

  it('refuses a body without a reason, or with nothing to adjust (1001)', async () => {
    const ada = randomUUID();
    await earn(ada);
    const refusals = await Promise.all(
      [
        { playerId: ada, points: 5 },
        { playerId: ada, reason: '   ', points: 5 },
        { playerId: ada, reason: 'x'.repeat(501), points: 5 },
        { playerId: ada, reason: 'nothing' },
        { playerId: ada, reason: 'zero', points: 0, deliverables: [{ deliverable: 'gold', amount: 0 }] },
        {
          playerId: ada,
          reason: 'twice',
          deliverables: [
            { deliverable: 'gold', amount: 1 },
            { deliverable: 'gold', amount: 2 },
          ],
        },
        { playerId: ada, reason: 'huge', points: 1e10 },
        { playerId: ada, reason: 'text', points: 'many' },
      ].map(async (body) => (await adjust(body)).body.code),
    );
    expect(refusals).toEqual(Array(8).fill(1001));
    expect((await profile(ada)).points).toBe(10);
  });

  it('is for Server keys only: 4003 for the other tiers', async () => {
    const ada = randomUUID();
    await earn(ada);
    for (const headers of [mobile, client, auditor])
      expect((await adjust({ playerId: ada, reason: 'r', points: 1 }, headers)).body.code).toBe(4003);
    expect((await profile(ada)).points).toBe(10);
  });

  it("shows in the trace, the export, the analytics, the feed and webhooks, with the reason and the key's name", async () => {
    const ada = randomUUID();
    await earn(ada);
    const reason = `Goodwill for ticket ${randomUUID()}`;
    const res = await adjust({
      playerId: ada,
      reason,
      points: 5,
      deliverables: [{ deliverable: 'gold', amount: -40 }],
    });
    const { adjustmentUid } = res.body.data as { adjustmentUid: string };

    const trace = (await t.http.get('/v1/audit/trace').query({ adjustmentUid, playerId: ada }).set(auditor)).body;
    expect(trace).toMatchObject({
      code: 200,
      data: {
        adjustmentUid,
        playerId: ada,
        reason,
        keyName: 'backend',
        chains: [
          {
            cause: 'PlayerAdjusted',
            keyName: 'backend',
            balanceChanges: [
              { type: 'PlayerAdjusted', balance: 'points', before: 10, change: 5, after: 15 },
              { type: 'PlayerAdjusted', balance: 'gold', before: 100, change: -40, after: 60 },
            ],
          },
        ],
      },
    });
    expect(trace.data.chains[0].events[0].summary).toContain(`by backend: "${reason}"`);
    const unknown = await t.http
      .get('/v1/audit/trace')
      .query({ adjustmentUid: 'f'.repeat(32), playerId: ada })
      .set(auditor);
    expect(unknown.body).toEqual({ code: 9050, data: 'Adjustment not found for that player' });
    expect((await t.http.get('/v1/audit/trace').query({ adjustmentUid }).set(auditor)).body.code).toBe(1001);

    const exported = (await t.http.get(`/v1/admin/players/${ada}/export`).set(auditor)).body.data;
    expect(exported.adjustments).toEqual([
      {
        adjustmentUid,
        reason,
        keyName: 'backend',
        points: 5,
        deliverables: [{ uid: 'gold', label: 'Gold', amount: -40 }],
        adjustedAt: expect.any(Number),
      },
    ]);

    const day = new Date(exported.adjustments[0].adjustedAt).toISOString().slice(0, 10);
    const series = async (name: string) =>
      (await t.http.get(`/v1/admin/analytics/${name}?from=${day}&to=${day}`).set(server)).body.data.points;
    expect((await series('adjustments'))[0].value).toBeGreaterThanOrEqual(1);
    expect(await series('deliverables')).toContainEqual({ day, key: 'gold:granted', value: expect.any(Number) });

    const feed = (await t.http.get('/v1/feed/events').query({ types: 'PlayerAdjusted' }).set(server)).body.data;
    expect(JSON.stringify(feed)).toContain(reason);

    await eventually(() => receiver.accepted.some((r) => r.body.data.data.reason === reason), 30_000, 50);
    const delivered = receiver.accepted.find((r) => r.body.data.data.reason === reason)!;
    expect(delivered.body.data).toMatchObject({
      playerId: ada,
      data: { adjustmentUid, reason, keyName: 'backend', points: 5 },
    });
  });

  it('keeps the reason as personal data: never in plain text in the log, [erased] once the player is', async () => {
    const ada = randomUUID();
    await earn(ada);
    const reason = `Ada called from +49 30 ${randomUUID()}`;
    const res = await adjust({ playerId: ada, reason, points: 1 }).set('Idempotency-Key', randomUUID());
    expect(res.body.data.reason).toBe(reason);
    expect(holding(t.dataDir, reason).filter((file) => !file.startsWith('read-models'))).toEqual([]);
    const events = async () =>
      (await t.http.get(`/v1/audit/players/${ada}/events`).set(auditor)).body.data as {
        type: string;
        data: { reason?: string };
      }[];
    expect((await events()).find((e) => e.type === 'PlayerAdjusted')!.data.reason).toBe(reason);

    expect((await post('/v1/admin/players/erase', { playerId: ada })).body.code).toBe(200);
    expect((await events()).find((e) => e.type === 'PlayerAdjusted')!.data.reason).toBe('[erased]');
  });
});
