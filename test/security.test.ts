/**
 * Security: keys held only as digests and compared in constant time, tenant domains, the body and
 * field limits (docs/api.md, "Limits"), security headers, and no secret nor stack trace in any
 * response or log line. (Rate limits: test/http/rate-limit.test.ts.)
 */
import crypto, { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { Writable } from 'node:stream';
import zlib from 'node:zlib';
import request from 'supertest';
import { KeyRing, parseKeysFile, sha256 } from '../shared/adapters/auth/keys';
import { readRunConfig } from '../shared/adapters/config/env';
import { createLogger } from '../shared/adapters/logging/logger';
import { MAX_BODY_BYTES } from '../shared/adapters/http/app';
import { startService, type RunningService } from '../app/service';
import { eventually } from './support/process';
import { client, KEYS, mobile, server, tempDir, writeKeysFile } from './support/service';

const ALL_KEYS = Object.values(KEYS);

/** Every string and byte buffer reachable from `root` through own properties (enumerable or not, symbols too). */
function reachable(root: unknown): { strings: string[]; buffers: Uint8Array[] } {
  const strings: string[] = [];
  const buffers: Uint8Array[] = [];
  const seen = new Set<unknown>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') return void strings.push(value);
    if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value)) return;
    seen.add(value);
    if (value instanceof Uint8Array) return void buffers.push(value);
    for (const key of Reflect.ownKeys(value)) {
      if (typeof key === 'string') strings.push(key);
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      if (descriptor && 'value' in descriptor) visit(descriptor.value);
    }
    visit(Object.getPrototypeOf(value));
  };
  visit(root);
  return { strings, buffers };
}

/** Lines written by the service's logger (the one `npm start` uses, shared/adapters/logging/logger.ts), and the service. */
let logLines: string[] = [];
let svc: RunningService;
let http: ReturnType<typeof request>;

beforeAll(async () => {
  const dataDir = tempDir('gam-sec-');
  const sink = new Writable({
    write(chunk, _enc, done) {
      logLines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  svc = await startService({
    config: readRunConfig({ DATA_DIR: dataDir, API_KEYS_FILE: writeKeysFile(dataDir) }),
    log: createLogger('debug', sink),
  });
  http = request(svc.app);
});
afterAll(() => svc.close());
afterEach(() => jest.restoreAllMocks());

describe('API keys', () => {
  it('are held only as SHA-256 digests: no plaintext key is reachable from the key ring', () => {
    const dir = tempDir('gam-keys-');
    const parsed = parseKeysFile(fs.readFileSync(writeKeysFile(dir), 'utf8'), 'keys.yaml');
    if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
    const ring = new KeyRing(parsed.keys);
    const { strings, buffers } = reachable(ring);
    expect(strings.length).toBeGreaterThan(0);
    for (const key of ALL_KEYS) {
      expect(strings.filter((s) => s.includes(key))).toEqual([]);
      const bytes = Buffer.from(key, 'utf8');
      expect(buffers.filter((b) => Buffer.from(b).includes(bytes))).toEqual([]);
    }
    // What is held is the digest of each key.
    const digests = buffers.map((b) => Buffer.from(b).toString('hex'));
    for (const key of ALL_KEYS) expect(digests).toContain(sha256(key).toString('hex'));
    expect(ring.find(KEYS.server)?.name).toBe('backend');
  });

  it('are compared with crypto.timingSafeEqual against every configured key, without an early exit', () => {
    const dir = tempDir('gam-keys-');
    const parsed = parseKeysFile(fs.readFileSync(writeKeysFile(dir), 'utf8'), 'keys.yaml');
    if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
    const ring = new KeyRing(parsed.keys);
    const equal = jest.spyOn(crypto, 'timingSafeEqual');
    for (const presented of [KEYS.server, KEYS.bare, 'not-a-key', KEYS.server.slice(0, -1), '']) {
      equal.mockClear();
      ring.find(presented);
      // One comparison per configured key, whether the first, the last or none matches.
      expect([presented, equal.mock.calls.length]).toEqual([presented, parsed.keys.length]);
      // Digests of equal length are compared, never the raw (variable-length) secrets.
      for (const [a, b] of equal.mock.calls) expect([(a as Buffer).length, (b as Buffer).length]).toEqual([32, 32]);
    }
    expect(ring.find(KEYS.server.slice(0, -1))).toBeNull();
    expect(ring.find(KEYS.server + 'x')).toBeNull();
  });

  it('every request is authenticated through timingSafeEqual', async () => {
    const equal = jest.spyOn(crypto, 'timingSafeEqual');
    expect((await http.get('/v1/admin/levels').set(server)).body.code).toBe(200);
    expect(equal).toHaveBeenCalled();
    equal.mockClear();
    expect((await http.get('/v1/admin/levels').set('Authorization', `Bearer ${KEYS.server}x`)).body.code).toBe(4001);
    expect(equal).toHaveBeenCalled();
  });
});

describe('tenant domains of Client keys', () => {
  const levels = (headers: Record<string, string>) =>
    http.get('/v1/admin/leaderboards').set({ AuthKey: KEYS.client, ...headers });

  it('accept the configured domain by X-Tenant-Domain (any case) or by the host of Origin', async () => {
    const accepted: Record<string, string>[] = [
      { 'X-Tenant-Domain': 'play.example.com' },
      { 'X-Tenant-Domain': 'PLAY.Example.COM' },
      { Origin: 'https://play.example.com' },
      { Origin: 'https://play.example.com:8443' },
    ];
    for (const headers of accepted) {
      const res = await levels(headers);
      expect([headers, res.status, res.body.code]).toEqual([headers, 200, 200]);
    }
  });

  it('refuse look-alike domains (4003) and a missing or opaque origin (4002)', async () => {
    const cases: [Record<string, string>, number][] = [
      [{ 'X-Tenant-Domain': 'evil-play.example.com' }, 4003],
      [{ 'X-Tenant-Domain': 'play.example.com.evil.com' }, 4003],
      [{ 'X-Tenant-Domain': 'example.com' }, 4003],
      [{ Origin: 'https://play.example.com.evil.com' }, 4003],
      [{ Origin: 'https://evil.com/play.example.com' }, 4003],
      [{ Origin: 'https://play.example.com@evil.com' }, 4003],
      // The explicit header wins over Origin: an allowed Origin does not rescue a wrong X-Tenant-Domain.
      [{ 'X-Tenant-Domain': 'evil.com', Origin: 'https://play.example.com' }, 4003],
      [{ Origin: 'null' }, 4002],
      [{}, 4002],
    ];
    for (const [headers, code] of cases) {
      const res = await levels(headers);
      expect([headers, res.status, res.body.code]).toEqual([headers, 403, code]);
    }
  });

  it('are checked before the tier and before the body: a Client key with a wrong domain never reaches a write', async () => {
    const head = await svc.events.headPosition();
    const res = await http
      .post('/v1/action/process')
      .set({ AuthKey: KEYS.client, 'X-Tenant-Domain': 'evil.com' })
      .send({ name: 'login', playerId: randomUUID(), referenceId: randomUUID() });
    expect([res.status, res.body.code]).toEqual([403, 4003]);
    expect(await svc.events.headPosition()).toBe(head);
  });
});

describe('body and field limits', () => {
  // A route that takes larger bodies (maxBodyBytes) is tested with its own limit (test/http/simulate.test.ts).
  const postPaths = () =>
    svc.routes.filter((r) => r.method === 'POST' && r.maxBodyBytes === undefined).map((r) => r.path);

  it('a body over 64 KiB is refused with HTTP 413 and code 1001 on every POST endpoint but those with a larger limit; one just under is read', async () => {
    const padding = (bytes: number) => JSON.stringify({ playerId: randomUUID(), pad: 'x'.repeat(bytes) });
    const over = padding(MAX_BODY_BYTES);
    expect(Buffer.byteLength(over)).toBeGreaterThan(MAX_BODY_BYTES);
    for (const path of postPaths()) {
      const res = await http.post(path).set(server).set('Content-Type', 'application/json').send(over);
      expect([path, res.status, res.body]).toEqual([
        path,
        413,
        { code: 1001, data: expect.stringContaining(String(MAX_BODY_BYTES)) },
      ]);
    }
    const under = padding(MAX_BODY_BYTES - 100);
    expect(Buffer.byteLength(under)).toBeLessThanOrEqual(MAX_BODY_BYTES);
    const read = await http.post('/v1/player/profile').set(server).set('Content-Type', 'application/json').send(under);
    expect([read.status, read.body.code]).toEqual([400, 5003]);
  });

  it('a body reads the same however it is sent: plain, with a BOM, a charset named, gzip; one not JSON is 1001 each way', async () => {
    const body = JSON.stringify({ playerId: randomUUID() });
    const send = (raw: Buffer, headers: Record<string, string>) =>
      http
        .post('/v1/player/profile')
        .set(server)
        .set(headers)
        // The bytes as they are: superagent would write a Buffer as JSON of its own.
        .serialize(((bytes: Buffer) => bytes) as unknown as (body: unknown) => string)
        .send(raw);
    const ways = (raw: Buffer) => [
      send(raw, { 'Content-Type': 'application/json' }),
      send(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), raw]), { 'Content-Type': 'application/json' }),
      send(raw, { 'Content-Type': 'application/json; charset=UTF-8' }),
      send(zlib.gzipSync(raw), { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }),
    ];
    for (const res of await Promise.all(ways(Buffer.from(body))))
      expect([res.status, res.body.code]).toEqual([400, 5003]);
    for (const res of await Promise.all(ways(Buffer.from('{"playerId":')))) {
      expect([res.status, res.body]).toEqual([
        400,
        { code: 1001, data: 'Payload is null: the body is not valid JSON' },
      ]);
    }
  });

  it('`details` of more than 100 items: 1001; 100 items are accepted', async () => {
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `d${i}`, value: String(i) }));
    const playerId = randomUUID();
    const over = await http
      .post('/v1/action/process')
      .set(server)
      .send({ name: 'login', playerId, referenceId: randomUUID(), details: items(101) });
    expect([over.status, over.body]).toEqual([400, { code: 1001, data: expect.stringMatching(/^details: .*100/) }]);
    const atLimit = await http
      .post('/v1/action/process')
      .set(server)
      .send({ name: 'login', playerId, referenceId: randomUUID(), details: items(100) });
    expect(atLimit.body.code).toBe(200);
    const reversal = await http
      .post('/v1/action/delete')
      .set(server)
      .send({ name: 'login', playerId, referenceId: randomUUID(), details: items(101) });
    expect(reversal.body.code).toBe(1001);
  });

  it('a string over 1,000 characters is refused with 1001 wherever a body or query takes text; 1,000 are accepted', async () => {
    const long = 'x'.repeat(1001);
    const playerId = randomUUID();
    const cases: [string, Record<string, unknown>][] = [
      ['/v1/action/process', { name: long, playerId, referenceId: randomUUID() }],
      ['/v1/action/process', { name: 'login', playerId, referenceId: long }],
      [
        '/v1/action/process',
        { name: 'login', playerId, referenceId: randomUUID(), details: [{ name: long, value: '1' }] },
      ],
      [
        '/v1/action/process',
        { name: 'login', playerId, referenceId: randomUUID(), details: [{ name: 'amount', value: long }] },
      ],
      ['/v1/action/delete', { name: 'login', playerId, referenceId: long }],
      ['/v1/player/create', { playerId: randomUUID(), username: long }],
      ['/v1/player/create', { playerId: randomUUID(), imageName: long }],
      ['/v1/store/buy', { playerId, referenceId: long }],
      ['/v1/store/transaction-status', { provisionUid: long }],
      ['/v1/store/refund-transaction', { provisionUid: long }],
    ];
    for (const [path, body] of cases) {
      const res = await http.post(path).set(server).send(body);
      expect([path, res.status, res.body.code]).toEqual([path, 400, 1001]);
      expect(res.body.data).toMatch(/1000/);
    }
    const query = await http.get('/v1/action/get-response').query({ referenceId: long }).set(server);
    expect([query.status, query.body.code]).toEqual([400, 1001]);

    // The chest and powerup endpoints answer 1002 for their required fields, an over-long one included.
    for (const [path, body] of [
      ['/v1/chest/open', { playerId, chestDeliverableUId: long }],
      ['/v1/powerup/activate', { playerId, powerupUId: long }],
    ] as const) {
      const res = await http.post(path).set(server).send(body);
      expect([path, res.status, res.body.code]).toEqual([path, 400, 1002]);
    }

    const exactly = 'y'.repeat(1000);
    const fits = await http
      .post('/v1/action/process')
      .set(server)
      .send({ name: 'login', playerId, referenceId: exactly, details: [{ name: exactly, value: exactly }] });
    expect(fits.body.code).toBe(200);
    expect(
      (await http.post('/v1/player/create').set(server).send({ playerId: randomUUID(), username: exactly })).body.code,
    ).toBe(200);
  });
});

describe('security headers (helmet)', () => {
  it('are on every kind of answer: success, auth failure, not found, too large, internal error', async () => {
    jest.spyOn(svc.deps.players, 'load').mockRejectedValueOnce(new Error('forced fault'));
    const answers = [
      await http.get('/v1/admin/levels').set(server),
      await http.get('/v1/admin/levels'),
      await http.get('/nope').set(server),
      await http
        .post('/v1/player/profile')
        .set(server)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ pad: 'x'.repeat(MAX_BODY_BYTES) })),
      await http.post('/v1/player/profile').set(server).send({ playerId: randomUUID() }),
      await http.get('/health'),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 401, 404, 413, 500, 200]);
    for (const res of answers) {
      expect(res.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'SAMEORIGIN',
        'content-security-policy': expect.stringContaining("default-src 'self'"),
        'referrer-policy': 'no-referrer',
        'cross-origin-opener-policy': 'same-origin',
        'cross-origin-resource-policy': 'same-origin',
        'x-dns-prefetch-control': 'off',
        'x-download-options': 'noopen',
        'x-permitted-cross-domain-policies': 'none',
      });
      expect(res.headers['x-powered-by']).toBeUndefined();
      // Plain HTTP: nothing that sends a browser to an https:// address nothing answers.
      expect(res.headers['strict-transport-security']).toBeUndefined();
      expect(res.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
    }
  });

  it('HSTS and upgrade-insecure-requests only over HTTPS, as a trusted proxy says (TRUST_PROXY=true), never on its word otherwise', async () => {
    const overTls = (res: request.Response) => [
      res.headers['strict-transport-security'] !== undefined,
      /upgrade-insecure-requests/.test(res.headers['content-security-policy']),
    ];
    expect(overTls(await http.get('/docs').set('X-Forwarded-Proto', 'https'))).toEqual([false, false]);
    const dataDir = tempDir();
    const behindProxy = await startService({
      config: readRunConfig({ DATA_DIR: dataDir, API_KEYS_FILE: writeKeysFile(dataDir), TRUST_PROXY: 'true' }),
      log: createLogger('silent'),
    });
    try {
      const proxied = request(behindProxy.app);
      expect(overTls(await proxied.get('/docs').set('X-Forwarded-Proto', 'https'))).toEqual([true, true]);
      expect(
        (await proxied.get('/health').set('X-Forwarded-Proto', 'https')).headers['strict-transport-security'],
      ).toMatch(/max-age=\d+/);
      expect(overTls(await proxied.get('/docs').set('X-Forwarded-Proto', 'http'))).toEqual([false, false]);
      expect(overTls(await proxied.get('/docs'))).toEqual([false, false]);
    } finally {
      await behindProxy.close();
    }
    expect(() => readRunConfig({ TRUST_PROXY: 'yes' })).toThrow('TRUST_PROXY: must be true or false, got "yes"');
  });
});

describe('no secret and no stack trace in any response or log line', () => {
  const STACK_FRAME = /\bat (?:async )?\S+ \(?[^()\s]+:\d+:\d+\)?|\n\s+at /;

  it('holds through keys in both headers, key-looking bodies and queries, failures of every kind, and a forced 500', async () => {
    logLines = [];
    const wrongKey = `wrong-${randomUUID()}-secret`;
    const playerId = randomUUID();
    const answers = [
      await http.post('/v1/action/process').set(server).send({ name: 'login', playerId, referenceId: randomUUID() }),
      await http
        .post('/v1/action/process')
        .set('Authorization', `Bearer ${KEYS.mobile}`)
        .send({ name: 'login', playerId, referenceId: randomUUID() }),
      await http
        .post('/v1/action/process')
        .set({ AuthKey: KEYS.server, Authorization: `Bearer ${KEYS.mobile}` })
        .send({ name: 'login', playerId, referenceId: randomUUID() }),
      await http.get('/v1/admin/levels').set('AuthKey', wrongKey),
      await http.get('/v1/admin/levels').set('Authorization', `Bearer ${wrongKey}`),
      await http.get(`/v1/action/get-response?referenceId=x&AuthKey=${KEYS.server}`).set(mobile),
      await http.get('/v1/admin/actions').set(client),
      await http.get('/v1/admin/actions').set({ AuthKey: KEYS.client }),
      await http.post('/v1/store/buy').set(server).set('Content-Type', 'application/json').send('{"playerId": '),
      await http.get('/v1/admin/actions/%E0%A4%A').set(server),
    ];
    // A fault deep in a handler: 500 with no details.
    jest
      .spyOn(svc.deps.players, 'load')
      .mockRejectedValueOnce(new Error(`database exploded near ${KEYS.server.slice(0, 4)}`));
    const fault = await http
      .post('/v1/player/profile')
      .set(server)
      .set('Authorization', `Bearer ${KEYS.server}`)
      .send({ playerId });
    expect([fault.status, fault.body]).toEqual([500, { code: 500, data: 'Internal error' }]);
    answers.push(fault);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 401, 401, 400, 403, 403, 400, 400, 500]);

    // A scheduled job whose handler throws is logged (and retried) without its stack.
    jest.spyOn(svc.deps.players, 'load').mockRejectedValue(new Error('job handler exploded'));
    await svc.deps.jobs.schedule('expire-powerup', 'security-test-job', Date.now(), { playerId, powerupUid: 'p' });
    await eventually(async () => expect(logLines.some((l) => l.includes('job handler exploded'))).toBe(true), 5000, 50);
    jest.restoreAllMocks();

    for (const res of answers) {
      const text = JSON.stringify({ headers: res.headers, body: res.text });
      for (const secret of [...ALL_KEYS, wrongKey]) expect(text).not.toContain(secret);
      expect(res.text).not.toMatch(STACK_FRAME);
      expect(res.text).not.toMatch(/node_modules|\/work\/|\.ts\b/);
    }

    expect(logLines.length).toBeGreaterThanOrEqual(answers.length);
    for (const line of logLines) {
      for (const secret of [...ALL_KEYS, wrongKey]) expect(line).not.toContain(secret);
      expect(line).not.toMatch(STACK_FRAME);
      expect(line).not.toMatch(/"stack"/);
    }
    // The 500 is logged with what an operator needs: its correlation id, the error's class and message.
    const faultLine = logLines.map((l) => JSON.parse(l)).find((l) => l.msg === 'unexpected fault');
    expect(faultLine).toMatchObject({
      level: 50,
      correlationId: fault.headers['x-request-id'],
      errorClass: 'Error',
      err: expect.stringContaining('database exploded'),
    });
    const jobLine = logLines.map((l) => JSON.parse(l)).find((l) => l.msg?.startsWith('job failed'));
    expect(jobLine).toMatchObject({
      jobId: 'security-test-job',
      err: { type: 'Error', message: 'job handler exploded' },
    });
    // Request lines name the key, never the key itself.
    const requestLines = logLines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
    expect(requestLines.map((l) => l.keyName)).toEqual(expect.arrayContaining(['backend', 'app']));
  });
});
