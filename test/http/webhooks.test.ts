/**
 * Webhooks, against a real local receiver that checks every signature with the standardwebhooks
 * package's own verifier: what is sent and how it is signed, log order per player, retries with
 * backoff while the receiver fails, giving up then redelivering, a redelivery ending a failing
 * receiver's pause, a wrong secret, the operators' view and its tiers.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { auditor, client, server, startTestService, tempDir, type TestService } from '../support/service';
import { eventually } from '../support/process';
import {
  firstReceiptsByPlayer,
  newSecret,
  startReceiver,
  writeWebhooksFile,
  type Receiver,
} from '../support/webhook-receiver';

const act = async (t: TestService, playerId: string, referenceId = randomUUID()) => {
  const res = await t.http.post('/v1/action/process').set(server).send({ name: 'purchase', referenceId, playerId });
  expect(res.body.code).toBe(200);
  return Number(res.headers['x-position']);
};

/**
 * Runs `body` against the service with one webhook, `crm`, sending to a receiver that verifies
 * with `receiverSecret` (default: the webhook's own); retries 100 ms apart, doubling.
 */
async function withWebhook(
  options: { events?: string[]; env?: Record<string, string>; receiverSecret?: string },
  body: (t: TestService, receiver: Receiver) => Promise<void>,
): Promise<void> {
  const secret = newSecret();
  const receiver = await startReceiver(options.receiverSecret ?? secret);
  const dir = tempDir();
  const file = writeWebhooksFile(dir, {
    name: 'crm',
    url: receiver.url,
    secret,
    events: options.events ?? ['PlayerRegistered', 'ActionProcessed'],
  });
  const t = await startTestService({
    dataDir: dir,
    env: { WEBHOOKS_FILE: file, WEBHOOK_RETRY_BASE_MS: '100', ...options.env },
  });
  try {
    await body(t, receiver);
  } finally {
    await t.close();
    await receiver.close();
  }
}

const view = async (t: TestService) => (await t.http.get('/v1/admin/webhooks').set(auditor)).body.data[0];

describe('webhooks', () => {
  it('sends the configured event types, signed, each player in log order, with id, type, player, position, time and data', () =>
    withWebhook({}, async (t, receiver) => {
      const players = [randomUUID(), randomUUID(), randomUUID()];
      const positions: number[] = [];
      // Interleaved: the order that matters is each player's.
      for (let round = 0; round < 4; round++)
        await Promise.all(players.map(async (p) => positions.push(await act(t, p))));
      // Each player: PlayerRegistered, then four ActionProcessed; nothing else (ReferenceRecorded, CatalogPublished are not configured).
      await eventually(async () => expect(receiver.accepted).toHaveLength(players.length * 5), 15_000);
      expect(receiver.forged).toBe(0);
      expect(new Set(receiver.accepted.map((r) => r.type))).toEqual(new Set(['PlayerRegistered', 'ActionProcessed']));
      const byPlayer = firstReceiptsByPlayer(receiver.accepted);
      for (const p of players) {
        const received = byPlayer.get(p)!;
        expect(received).toHaveLength(5);
        expect(received).toEqual([...received].sort((a, b) => a - b));
      }
      const first = receiver.accepted.find((r) => r.type === 'ActionProcessed')!;
      expect(first.body).toEqual({
        type: 'ActionProcessed',
        timestamp: new Date(first.body.data.time).toISOString(),
        data: {
          eventId: first.id,
          playerId: first.playerId,
          stream: `player-${first.playerId}`,
          position: first.position,
          time: expect.any(Number),
          data: expect.objectContaining({ actionName: 'purchase' }),
          metadata: expect.objectContaining({ keyName: 'backend' }),
        },
      });
      // The run records its outcomes once its sends are answered.
      await eventually(async () => expect(await view(t)).toMatchObject({ delivered: 15 }));
      const v = await view(t);
      expect(v).toMatchObject({
        name: 'crm',
        url: receiver.url,
        events: ['PlayerRegistered', 'ActionProcessed'],
        waiting: 0,
        failed: 0,
      });
      expect(v.cursor).toBeGreaterThanOrEqual(Math.max(...positions));
      expect(v.recent[0]).toMatchObject({ outcome: 'delivered', result: 'HTTP 204', attempts: 1 });
      const metrics = (await t.http.get('/metrics').set(server)).text;
      expect(metrics).toMatch(/webhook_deliveries_total\{hook="crm",outcome="delivered"\} 15/);
    }));

  it('retries a receiver that fails, with backoff, and keeps each player in order while it does', () =>
    withWebhook({ events: ['ActionProcessed'] }, async (t, receiver) => {
      let failing = true;
      receiver.answer = () => (failing ? 503 : 200);
      const player = randomUUID();
      for (let i = 0; i < 3; i++) await act(t, player);
      // Attempts at about 0.1, 0.2, 0.4 s apart: the first event's lane waits, the others behind it.
      await eventually(async () => expect(receiver.requests.length).toBeGreaterThanOrEqual(3), 10_000);
      // The attempt's outcome is recorded once its answer is back, a moment after the receiver counts it.
      await eventually(async () => {
        const waiting = await view(t);
        expect(waiting.waiting).toBe(3);
        expect(waiting.recent[0]).toMatchObject({ outcome: 'retrying', result: 'HTTP 503' });
      });
      // Only the lane's head is tried while it fails.
      expect(new Set(receiver.requests.map((r) => r.id)).size).toBe(1);
      failing = false;
      await eventually(async () => expect(receiver.accepted).toHaveLength(3), 15_000);
      expect(firstReceiptsByPlayer(receiver.accepted).get(player)).toEqual(
        [...firstReceiptsByPlayer(receiver.accepted).get(player)!].sort((a, b) => a - b),
      );
      await eventually(async () => expect(await view(t)).toMatchObject({ waiting: 0, failed: 0, delivered: 3 }));
    }));

  it('gives a delivery up after its attempts and moves its lane on; a redelivery sends it again', () =>
    withWebhook({ events: ['ActionProcessed'], env: { WEBHOOK_MAX_ATTEMPTS: '2' } }, async (t, receiver) => {
      const poisoned = randomUUID();
      let refusing = true;
      receiver.answer = (r) => (refusing && r.body.data.data.referenceId === poisoned ? 500 : 200);
      const player = randomUUID();
      await act(t, player, poisoned);
      await act(t, player);
      await eventually(
        async () => expect(await view(t)).toMatchObject({ failed: 1, waiting: 0, delivered: 1 }),
        10_000,
      );
      const v = await view(t);
      expect(v.failures).toEqual([
        {
          eventId: expect.any(String),
          type: 'ActionProcessed',
          position: expect.any(Number),
          attempts: 2,
          lastResult: 'HTTP 500',
        },
      ]);
      expect(receiver.accepted.map((r) => r.body.data.data.referenceId)).not.toContain(poisoned);

      refusing = false;
      const given = v.failures[0].position;
      const redeliver = await t.http
        .post('/v1/admin/webhooks/redeliver')
        .set(server)
        .send({ webhook: 'crm', after: given - 1 });
      expect(redeliver.body).toEqual({ code: 200, data: { webhook: 'crm', after: given - 1, cursorBefore: v.cursor } });
      // The given-up one, then the one after it again (at least once), in order.
      await eventually(async () => expect(receiver.accepted).toHaveLength(3), 10_000);
      expect(receiver.accepted.slice(1).map((r) => r.position)).toEqual([given, receiver.accepted[0].position]);
      await eventually(async () => expect(await view(t)).toMatchObject({ failed: 0, waiting: 0 }));
    }));

  it('a redelivery ends the pause of a webhook whose receiver failed every attempt: what waits is attempted at once', () =>
    withWebhook({ events: ['ActionProcessed'], env: { WEBHOOK_RETRY_BASE_MS: '600000' } }, async (t, receiver) => {
      let failing = true;
      receiver.answer = () => (failing ? 503 : 200);
      // One request for two players: both lanes are attempted in one run and refused, so the webhook pauses for 10 minutes.
      const nested = {
        name: 'purchase',
        referenceId: randomUUID(),
        playerId: randomUUID(),
        actions: [{ name: 'purchase', referenceId: randomUUID(), playerId: randomUUID() }],
      };
      expect((await t.http.post('/v1/action/process').set(server).send(nested)).body.code).toBe(200);
      await eventually(async () => expect(await view(t)).toMatchObject({ waiting: 2 }), 10_000);
      expect(receiver.requests).toHaveLength(2);
      // Appended during the pause: it waits in the log.
      await act(t, randomUUID());
      failing = false;
      const v = await view(t);
      expect(
        (await t.http.post('/v1/admin/webhooks/redeliver').set(server).send({ webhook: 'crm', after: v.cursor })).body
          .code,
      ).toBe(200);
      await eventually(async () => expect(receiver.accepted).toHaveLength(3), 10_000);
      await eventually(async () => expect(await view(t)).toMatchObject({ waiting: 0, failed: 0, delivered: 3 }));
    }));

  it("carries a Notification deliverable's award to the client system, in the event that awarded it", () =>
    withWebhook({ events: ['ActionProcessed'] }, async (t, receiver) => {
      const player = randomUUID();
      // The demo catalog's risk review: a Notification after ten failed deposits in a day.
      for (let i = 0; i < 10; i++)
        expect(
          (
            await t.http
              .post('/v1/action/process')
              .set(server)
              .send({ name: 'deposit_failed', referenceId: randomUUID(), playerId: player })
          ).body.code,
        ).toBe(200);
      await eventually(async () => expect(receiver.accepted).toHaveLength(10), 10_000);
      const notified = receiver.accepted.filter((r) => JSON.stringify(r.body.data.data).includes('"notify-risk"'));
      expect(notified).toHaveLength(1);
      expect(notified[0].position).toBe(Math.max(...receiver.accepted.map((r) => r.position)));
    }));

  it('a receiver with another secret detects every request as forged', () =>
    withWebhook({ events: ['ActionProcessed'], receiverSecret: newSecret() }, async (t, receiver) => {
      await act(t, randomUUID());
      await eventually(async () => expect(receiver.forged).toBeGreaterThanOrEqual(1), 10_000);
      expect(receiver.accepted).toHaveLength(0);
      await eventually(async () =>
        expect((await view(t)).recent[0]).toMatchObject({ outcome: 'retrying', result: 'HTTP 401' }),
      );
    }));

  it('redelivery: 1001 for an unknown webhook or a position past the cursor; Server keys only; the view is for Server and Auditor keys', () =>
    withWebhook({}, async (t) => {
      const v = await view(t);
      expect(
        (await t.http.post('/v1/admin/webhooks/redeliver').set(server).send({ webhook: 'nope', after: 0 })).body,
      ).toEqual({ code: 1001, data: 'webhook: no webhook is named "nope" (configured: crm)' });
      expect(
        (
          await t.http
            .post('/v1/admin/webhooks/redeliver')
            .set(server)
            .send({ webhook: 'crm', after: v.cursor + 10 })
        ).body,
      ).toEqual({ code: 1001, data: expect.stringMatching(/^after: must be at most \d+, the webhook's cursor/) });
      expect(
        (await t.http.post('/v1/admin/webhooks/redeliver').set(server).send({ webhook: 'crm', after: -1 })).body,
      ).toEqual({ code: 1001, data: 'after: must be a log position' });
      expect(
        (
          await t.http
            .post('/v1/admin/webhooks/redeliver')
            .set(server)
            .set('Content-Type', 'application/json')
            .send('null')
        ).body.code,
      ).toBe(1001);
      expect(
        (await t.http.post('/v1/admin/webhooks/redeliver').set(auditor).send({ webhook: 'crm', after: 0 })).body.code,
      ).toBe(4003);
      expect((await t.http.get('/v1/admin/webhooks').set(client)).body.code).toBe(4003);
      expect((await t.http.get('/v1/admin/webhooks').set(server)).body.data).toHaveLength(1);
    }));

  it('drops at start the job of a webhook no longer configured, saying so once, so no job waits for ever', async () => {
    const dir = tempDir();
    const file = writeWebhooksFile(dir, {
      name: 'crm',
      url: 'http://127.0.0.1:9/never',
      secret: newSecret(),
      events: ['PlayerRegistered'],
    });
    let t = await startTestService({ dataDir: dir, env: { WEBHOOKS_FILE: file } });
    const jobs = async () => (await t.http.get('/v1/admin/jobs').set(server)).body.data;
    try {
      const before = await jobs();
      expect(before.waiting + before.delayed + before.running).toBe(1);
      const lines: { msg: string; jobIds?: string[] }[] = [];
      const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
      t = await t.restart({ env: {}, log });
      expect(await jobs()).toMatchObject({ waiting: 0, delayed: 0, running: 0 });
      t = await t.restart({ env: {}, log });
      expect(lines.filter((l) => l.msg.includes('webhooks no longer configured'))).toEqual([
        expect.objectContaining({
          msg: 'dropped the jobs of webhooks no longer configured: crm',
          jobIds: ['webhook:crm'],
        }),
      ]);
    } finally {
      await t.close();
    }
  });

  it('without WEBHOOKS_FILE the view is empty', async () => {
    const t = await startTestService();
    try {
      expect((await t.http.get('/v1/admin/webhooks').set(server)).body).toEqual({ code: 200, data: [] });
    } finally {
      await t.close();
    }
  });
});
