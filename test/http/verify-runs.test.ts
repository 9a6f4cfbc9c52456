import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { EventStore } from '../../shared/adapters/event-store/port';
import { auditor, server, startTestService, type TestService } from '../support/service';
import { eventually } from '../support/process';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
  await t.http.post('/v1/players').set(server).send({ playerId: randomUUID(), username: 'verified' });
});
afterAll(() => t.close());

/** Holds a verification at its replay's first page of the log until released. */
function holdReplay(events: EventStore): { started: Promise<void>; release(): void } {
  const readAll = events.readAll.bind(events);
  let reached!: () => void;
  let release!: () => void;
  const started = new Promise<void>((resolve) => (reached = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  events.readAll = async (options) => {
    if (options?.fromPosition !== undefined && (options.maxCount ?? 2) > 1) {
      reached();
      await released;
    }
    return readAll(options);
  };
  return {
    started,
    release() {
      release();
      delete (events as Partial<EventStore>).readAll;
    },
  };
}

const verification = () => t.http.get('/v1/audit/verify').set(server);

describe('POST /v1/audit/verify and GET /v1/audit/verify: one at a time, readable after its request', () => {
  it('has none to read at first (9035), runs one at a time (9034, HTTP 409), goes on when its client leaves, and keeps its answer', async () => {
    const none = await verification();
    expect([none.status, none.body]).toEqual([400, { code: 9035, data: 'No verification has run' }]);

    const listening = await t.service.listen(0);
    const held = holdReplay(t.service.events);
    const request = http.request({
      port: (listening.address() as AddressInfo).port,
      method: 'POST',
      path: '/v1/audit/verify',
      headers: { ...server, 'Content-Length': 0 },
    });
    request.on('error', () => undefined);
    request.end();
    await held.started;
    const running = await verification();
    const head = await t.service.events.headPosition();
    expect(running.body.data).toMatchObject({
      verificationUid: expect.any(String),
      status: 'Running',
      endedAt: null,
      progress: { eventsReplayed: 0, position: 0, head },
      result: null,
      error: null,
    });
    const second = await t.http.post('/v1/audit/verify').set(auditor);
    expect([second.status, second.body.code]).toEqual([409, 9034]);

    // Its client leaves (an ingress's timeout): the verification goes on, and its answer is kept.
    request.destroy();
    await eventually(
      () => new Promise((resolve) => listening.getConnections((error, count) => resolve(!error && count === 0))),
      30_000,
      20,
    );
    held.release();
    const done = await eventually(
      async () => {
        const read = (await verification()).body.data;
        return read.status === 'Completed' && read;
      },
      30_000,
      20,
    );
    expect(done).toMatchObject({
      verificationUid: running.body.data.verificationUid,
      endedAt: expect.any(Number),
      error: null,
      result: { differences: [], truncated: false, unsettled: 0, position: head },
    });
    expect(done.progress.position).toBe(head);
    listening.close();

    // The next one runs, and replaces it.
    const next = await t.http.post('/v1/audit/verify').set(server);
    expect(next.body.data.differences).toEqual([]);
    expect((await verification()).body.data.verificationUid).not.toBe(running.body.data.verificationUid);
  });
});
