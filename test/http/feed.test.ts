/**
 * The event feed for analysts (pages and a live Server-Sent Events tail, resumable with
 * Last-Event-ID), and the Auditor tier: every read an auditor needs, no write.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { auditor, KEYS, mobile, server, startTestService, type TestService } from '../support/service';
import { childEnv } from '../support/process';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

const act = async (playerId: string) =>
  (await t.http.post('/v1/action/process').set(server).send({ name: 'purchase', referenceId: randomUUID(), playerId }))
    .body;

describe('GET /v1/feed/events', () => {
  it('pages through the global log after a position, with metadata; `next` continues where the page ended', async () => {
    const start = (await t.http.get('/v1/feed/events').query({ limit: 1 }).set(auditor)).body.data.head;
    const playerId = randomUUID();
    await act(playerId);
    await act(playerId);
    const first = (await t.http.get('/v1/feed/events').query({ after: start, limit: 3 }).set(auditor)).body.data;
    expect(first.events.map((e: { type: string }) => e.type)).toEqual([
      'PlayerRegistered',
      'ActionProcessed',
      'ReferenceRecorded',
    ]);
    expect(first.events[0]).toMatchObject({
      stream: `player-${playerId}`,
      revision: 0,
      metadata: { keyName: 'backend', catalogVersion: 1 },
    });
    expect(first.next).toBe(first.events[2].position);
    const rest = (await t.http.get('/v1/feed/events').query({ after: first.next }).set(auditor)).body.data;
    expect(rest.events.map((e: { type: string }) => e.type)).toEqual(['ActionProcessed', 'ReferenceRecorded']);
    expect(rest.next).toBe(rest.head);
  });

  it('filters by event type and by stream kind', async () => {
    const start = (await t.http.get('/v1/feed/events').query({ limit: 1 }).set(server)).body.data.head;
    const playerId = randomUUID();
    await act(playerId);
    const types = (
      await t.http.get('/v1/feed/events').query({ after: start, types: 'ActionProcessed,PlayerRegistered' }).set(server)
    ).body.data.events;
    expect(types.map((e: { type: string }) => e.type)).toEqual(['PlayerRegistered', 'ActionProcessed']);
    const references = (await t.http.get('/v1/feed/events').query({ after: start, streams: 'reference' }).set(server))
      .body.data.events;
    expect(references.map((e: { stream: string }) => e.stream.split('-')[0])).toEqual(['reference']);
  });

  it('answers 1001 naming what is malformed, 4003 to Mobile and Client keys', async () => {
    expect((await t.http.get('/v1/feed/events').query({ types: 'Nope' }).set(server)).body).toEqual({
      code: 1001,
      data: expect.stringContaining('Nope is not an event type'),
    });
    expect((await t.http.get('/v1/feed/events').query({ streams: 'players' }).set(server)).body.code).toBe(1001);
    expect((await t.http.get('/v1/feed/events').query({ after: '-1' }).set(server)).body.code).toBe(1001);
    expect((await t.http.get('/v1/feed/events').query({ limit: '1001' }).set(server)).body.code).toBe(1001);
    expect((await t.http.get('/v1/feed/events').set(mobile)).body.code).toBe(4003);
    // An empty list names nothing to read: refused, not a scan that answers an empty page.
    expect((await t.http.get('/v1/feed/events').query({ types: '' }).set(server)).body).toEqual({
      code: 1001,
      data: 'types: must name at least one event type; leave it out for all',
    });
    expect((await t.http.get('/v1/feed/events').query({ streams: ' , ' }).set(server)).body.code).toBe(1001);
    expect((await t.http.get('/v1/feed/live').query({ types: '' }).set(server)).body.code).toBe(1001);
  });

  it('checks Last-Event-ID as it checks `after`: beyond the largest position is 1001, not an empty stream', async () => {
    for (const id of ['9'.repeat(400), String(2 ** 53 + 2), '-1', 'abc']) {
      const res = await t.http.get('/v1/feed/live').set(server).set('Last-Event-ID', id);
      expect([id, res.status, res.body.code, res.body.data]).toEqual([
        id,
        400,
        1001,
        expect.stringMatching(/^Last-Event-ID: /),
      ]);
      expect((await t.http.get('/v1/feed/events').query({ after: id }).set(server)).body.code).toBe(1001);
    }
  });

  it('gives the same records as the CLI export', async () => {
    await act(randomUUID());
    const api = (await t.http.get('/v1/feed/events').query({ limit: 1000, types: 'ActionProcessed' }).set(server)).body
      .data.events;
    const root = path.resolve(__dirname, '..', '..');
    const run = spawnSync(
      path.join(root, 'node_modules', '.bin', 'tsx'),
      [path.join(root, 'cli', 'main.ts'), 'export', '--types', 'ActionProcessed'],
      { env: childEnv({ DATA_DIR: t.dataDir }), encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.status).toBe(0);
    expect(
      run.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(api);
  });
});

describe('GET /v1/feed/live', () => {
  let port: number;
  let listening: http.Server;
  beforeAll(async () => {
    listening = await t.service.listen(0);
    port = (listening.address() as AddressInfo).port;
  });

  /** Reads Server-Sent Events until `count` have come, then closes the connection. */
  function tail(
    query: string,
    headers: Record<string, string>,
    count: number,
    onConnected: () => void = () => undefined,
  ): Promise<{ id: string; event: string; data: { type: string; stream: string } }[]> {
    return new Promise((resolve, reject) => {
      const got: { id: string; event: string; data: { type: string; stream: string } }[] = [];
      const req = http.get(
        { port, path: `/v1/feed/live?${query}`, headers: { AuthKey: KEYS.auditor, ...headers } },
        (res) => {
          expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
          onConnected();
          let buffer = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buffer += chunk;
            let end: number;
            while ((end = buffer.indexOf('\n\n')) >= 0) {
              const frame = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              if (frame.startsWith(':')) continue;
              const field = (name: string) =>
                frame
                  .split('\n')
                  .find((l) => l.startsWith(`${name}: `))!
                  .slice(name.length + 2);
              got.push({ id: field('id'), event: field('event'), data: JSON.parse(field('data')) });
              if (got.length === count) {
                req.destroy();
                resolve(got);
              }
            }
          });
        },
      );
      req.on('error', (error) => (got.length === count ? undefined : reject(error)));
    });
  }

  it('delivers events as they are appended, and resumes after Last-Event-ID', async () => {
    const start = (await t.http.get('/v1/feed/events').query({ limit: 1 }).set(server)).body.data.head;
    const playerId = randomUUID();
    // The stream is open (its headers came) before the actions: they are delivered live.
    let connected!: () => void;
    const open = new Promise<void>((resolve) => (connected = resolve));
    const live = tail(`after=${start}&streams=player`, {}, 3, connected);
    await open;
    await act(playerId);
    await act(playerId);
    const events = await live;
    expect(events.map((e) => e.event)).toEqual(['PlayerRegistered', 'ActionProcessed', 'ActionProcessed']);
    expect(events.every((e) => e.data.stream === `player-${playerId}`)).toBe(true);
    // A client reconnecting with the last id it got carries on after it.
    const resumed = await tail(`after=${start}&streams=player`, { 'Last-Event-ID': events[1].id }, 1);
    expect(resumed.map((e) => e.id)).toEqual([events[2].id]);
  });
});

describe('the Auditor tier', () => {
  it('reads what auditors need and writes nothing: every route that changes state is 4003', async () => {
    const playerId = randomUUID();
    await act(playerId);
    for (const [method, url] of [
      ['get', `/v1/audit/players/${playerId}/events`],
      ['get', '/v1/feed/events'],
      ['get', '/v1/admin/actions'],
      ['get', '/v1/admin/leaderboards/lb-all'],
      ['get', '/v1/admin/stores'],
    ] as const) {
      expect([url, (await t.http[method](url).set(auditor)).body.code]).toEqual([url, 200]);
    }
    expect((await t.http.post('/v1/player/profile').set(auditor).send({ playerId })).body.code).toBe(200);
    for (const route of t.service.routes.filter((r) => r.idempotent)) {
      const res = await t.http
        .post(route.path)
        .set(auditor)
        .send({ playerId, name: 'purchase', referenceId: randomUUID() });
      expect([route.path, res.status, res.body.code]).toEqual([route.path, 403, 4003]);
    }
    expect((await t.service.events.readStream(`player-${playerId}`)).map((e) => e.type)).toEqual([
      'PlayerRegistered',
      'ActionProcessed',
    ]);
  });
});
