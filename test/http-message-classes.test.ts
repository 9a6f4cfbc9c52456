/**
 * The listening server builds each request and response as express's (shared/adapters/http/app.ts,
 * `expressMessageClasses`), so the routes at a fixed path never swap an object's prototype on the
 * way in; through the router, or a server not given the classes, requests are served as before.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import request from 'supertest';
import { KEYS, startTestService, type TestService } from './support/service';

let svc: TestService;
let listening: Server;
let base: string;

beforeAll(async () => {
  svc = await startTestService();
  listening = await svc.service.listen(0);
  base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await svc.close();
});

/** How often `Object.setPrototypeOf` was called while `send` ran. */
async function prototypeSwaps(send: () => Promise<unknown>): Promise<number> {
  const spy = jest.spyOn(Object, 'setPrototypeOf');
  try {
    await send();
    return spy.mock.calls.length;
  } finally {
    spy.mockRestore();
  }
}

const action = () => ({ name: 'login', playerId: randomUUID(), referenceId: randomUUID() });

it('a request to a route at a fixed path is served without swapping a prototype, with express behind it', async () => {
  let answer: { status: number; body: { code: number } } | undefined;
  const swaps = await prototypeSwaps(async () => {
    const res = await fetch(`${base}/v1/action/process`, {
      method: 'POST',
      headers: { AuthKey: KEYS.server, 'Content-Type': 'application/json' },
      body: JSON.stringify(action()),
    });
    answer = { status: res.status, body: (await res.json()) as { code: number } };
    // Set by the express response's helpers (security headers, the request id).
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-request-id')).toEqual(expect.any(String));
  });
  expect(answer).toEqual({ status: 200, body: expect.objectContaining({ code: 200 }) });
  expect(swaps).toBe(0);
});

it('a server without the classes still serves the route (its request swapped to express)', async () => {
  // supertest builds its own server around the app, without the classes.
  let code: number | undefined;
  const swaps = await prototypeSwaps(async () => {
    const res = await request(svc.service.app).post('/v1/action/process').set('AuthKey', KEYS.server).send(action());
    code = res.body.code;
  });
  expect(code).toBe(200);
  expect(swaps).toBeGreaterThanOrEqual(2);
});

it('a path the router serves (another case) answers as the fixed path does', async () => {
  const res = await fetch(`${base}/V1/action/process`, {
    method: 'POST',
    headers: { AuthKey: KEYS.server, 'Content-Type': 'application/json' },
    body: JSON.stringify(action()),
  });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { code: number }).code).toBe(200);
});
