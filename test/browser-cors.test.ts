/**
 * CORS in a real browser (Debian's chromium, driven by playwright-core): a page served on one
 * origin calls the API on another. A page whose host is a tenant domain of a Client key may call
 * the routes a Client key may call and read their answers; a page of any other origin, or a call
 * to a route only Server or Mobile keys may call, is blocked by the browser itself.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { describeInBrowser, launchChromium } from './support/browser';
import { KEYS, startTestService, type TestService } from './support/service';

describeInBrowser('a browser page calling the API with a Client key', () => {
  let t: TestService;
  let api: Server;
  let pages: Server;
  let browser: Browser;
  let apiPort: number;
  let pagePort: number;

  beforeAll(async () => {
    t = await startTestService();
    api = await t.service.listen(0);
    apiPort = (api.address() as AddressInfo).port;
    // Any host: the page's origin is whatever name the browser used for this server.
    pages = http.createServer((_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>game</title>'),
    );
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    pagePort = (pages.address() as AddressInfo).port;
    // Every *.example.com is this machine: the page's origin and the API's are different hosts.
    browser = await launchChromium('MAP *.example.com 127.0.0.1');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => pages?.close(resolve));
    await t?.close();
  });

  /** Opens a page on `host` and runs `fetch` there against the API; resolves with what the page could read, or the error. */
  async function fetchFrom(
    host: string,
    path: string,
    init: { method: string; headers: Record<string, string>; body?: object },
  ) {
    const page = await browser.newPage();
    try {
      await page.goto(`http://${host}:${pagePort}/`);
      return await page.evaluate(
        async ({ url, method, headers, body }) => {
          try {
            const res = await fetch(url, { method, headers, body: body ? JSON.stringify(body) : undefined });
            return {
              status: res.status,
              body: await res.json(),
              requestId: res.headers.get('X-Request-Id'),
              position: res.headers.get('X-Position'),
            };
          } catch (error) {
            return { error: String(error) };
          }
        },
        {
          url: `http://api.example.com:${apiPort}${path}`,
          method: init.method,
          headers: init.headers,
          body: init.body,
        },
      );
    } finally {
      await page.close();
    }
  }

  const clientHeaders = {
    AuthKey: KEYS.client,
    'Content-Type': 'application/json',
    'Idempotency-Key': 'browser-retry-1',
  };

  it('a listed origin processes an action, reads the answer and the headers it may read', async () => {
    const playerId = randomUUID();
    const answer = await fetchFrom('play.example.com', '/v1/action/process', {
      method: 'POST',
      headers: clientHeaders,
      body: { name: 'purchase', referenceId: randomUUID(), playerId },
    });
    expect(answer).toMatchObject({ status: 200, body: { code: 200, data: { playerId, earnedPoints: 30 } } });
    expect(answer).toMatchObject({ requestId: expect.stringMatching(/.+/), position: expect.stringMatching(/^\d+$/) });
    const events = await t.service.events.readStream(`player-${playerId}`);
    expect(events.map((e) => e.type)).toEqual(['PlayerRegistered', 'ActionProcessed']);
  });

  it('an origin no Client key lists is blocked by the browser, and nothing is done', async () => {
    const playerId = randomUUID();
    const answer = await fetchFrom('evil.example.com', '/v1/action/process', {
      method: 'POST',
      headers: { ...clientHeaders, 'Idempotency-Key': randomUUID() },
      body: { name: 'purchase', referenceId: randomUUID(), playerId },
    });
    expect(answer).toEqual({ error: expect.stringContaining('Failed to fetch') });
    // The preflight was refused: the request itself never reached the service.
    expect(await t.service.events.readStream(`player-${playerId}`)).toEqual([]);
  });

  it('a route only Server or Mobile keys may call is blocked, even from a listed origin', async () => {
    const answer = await fetchFrom('play.example.com', '/v1/admin/actions', {
      method: 'GET',
      headers: { AuthKey: KEYS.server },
    });
    expect(answer).toEqual({ error: expect.stringContaining('Failed to fetch') });
  });

  it('a GET a Client key may call (a leaderboard) is readable from a listed origin', async () => {
    const answer = await fetchFrom('play.example.com', '/v1/admin/leaderboards/lb-all', {
      method: 'GET',
      headers: { AuthKey: KEYS.client },
    });
    expect(answer).toMatchObject({ status: 200, body: { code: 200, data: [{ uid: 'lb-all' }] } });
  });
});

describe('CORS answers, as headers', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t.close());

  it('a preflight from a listed origin to a Client route allows exactly its method and the headers the API reads', async () => {
    const res = await t.http.options('/v1/store/buy').set({
      Origin: 'https://play.example.com',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'authkey,content-type,idempotency-key',
    });
    expect(res.status).toBe(204);
    expect(res.headers).toMatchObject({
      'access-control-allow-origin': 'https://play.example.com',
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers':
        'AuthKey, Authorization, Content-Type, X-Tenant-Domain, X-Request-Id, Idempotency-Key, X-Min-Position, X-Player-Token',
      vary: 'Origin',
    });
  });

  it('nothing for an unlisted origin, a Server-only route, or another method', async () => {
    const preflight = (path: string, origin: string, method = 'POST') =>
      t.http.options(path).set({ Origin: origin, 'Access-Control-Request-Method': method });
    for (const res of [
      await preflight('/v1/store/buy', 'https://evil.example.com'),
      await preflight('/v1/action/delete', 'https://play.example.com'),
      await preflight('/v1/store/buy', 'https://play.example.com', 'DELETE'),
    ]) {
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('nothing for a value no browser sends as an origin, though its host is listed: credentials, a path, a query, another spelling', async () => {
    for (const origin of [
      'https://user:pw@play.example.com',
      'https://play.example.com/app',
      'https://play.example.com?x=1',
      'HTTPS://PLAY.example.com',
      'https://play.example.com:443',
      'ftp://play.example.com',
      'https://play.example.com/',
    ]) {
      const preflight = await t.http
        .options('/v1/store/buy')
        .set({ Origin: origin, 'Access-Control-Request-Method': 'POST' });
      const simple = await t.http
        .post('/v1/chest/list')
        .set({ AuthKey: KEYS.client, 'X-Tenant-Domain': 'play.example.com', Origin: origin })
        .send({ playerId: randomUUID() });
      expect([
        origin,
        preflight.headers['access-control-allow-origin'],
        simple.headers['access-control-allow-origin'],
      ]).toEqual([origin, undefined, undefined]);
    }
    const port = await t.http
      .options('/v1/store/buy')
      .set({ Origin: 'https://play.example.com:8443', 'Access-Control-Request-Method': 'POST' });
    expect(port.headers['access-control-allow-origin']).toBe('https://play.example.com:8443');
  });

  it('answers a listed origin with the headers a page may read, and a cross-origin resource policy to match', async () => {
    const listed = await t.http
      .post('/v1/chest/list')
      .set({ AuthKey: KEYS.client, Origin: 'https://play.example.com' })
      .send({ playerId: randomUUID() });
    expect(listed.headers).toMatchObject({
      'access-control-allow-origin': 'https://play.example.com',
      'access-control-expose-headers': 'X-Request-Id, X-Position, Retry-After, Idempotent-Replayed',
      'cross-origin-resource-policy': 'cross-origin',
    });
    const server = await t.http
      .get('/v1/admin/actions')
      .set({ AuthKey: KEYS.server, Origin: 'https://play.example.com' });
    expect(server.headers['access-control-allow-origin']).toBeUndefined();
    expect(server.headers['cross-origin-resource-policy']).toBe('same-origin');
  });
});
