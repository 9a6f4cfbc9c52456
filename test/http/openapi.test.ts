import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { actionResultShape, profileShape, transactionShape } from '../../shared/adapters/http/wire-shapes';
import { processResultShape } from '../../command-api/process-action/route';
import { jobsOverviewShape } from '../../read-api/admin/jobs';
import { leaderboardDetailShape, storeShape } from '../../read-api/admin/shapes';
import { httpStatusOf } from '../../shared/adapters/http/envelope';
import { tiersOf } from '../../shared/adapters/http/route';
import { canonicalPlayerId } from '../../domain/ids';
import { conformanceTo } from '../support/conformance';
import { server, startTestService, tempDir, type TestService } from '../support/service';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

type Document = {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
};

describe('the OpenAPI document', () => {
  it('is served without a key and passes a real OpenAPI 3.1 validator', async () => {
    const res = await t.http.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const file = path.join(tempDir(), 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(res.body));
    // The validator is an ES module: it runs as its own CLI rather than inside jest's CommonJS.
    const cli = path.resolve(
      __dirname,
      '../../node_modules/@seriousme/openapi-schema-validator/bin/validate-api-cli.js',
    );
    const { stdout } = await promisify(execFile)(process.execPath, [cli, file]);
    expect(JSON.parse(stdout)).toMatchObject({ valid: true });
  });

  it('lists every route the server registers, with its error codes', async () => {
    const document = (await t.http.get('/openapi.json')).body as Document;
    const listed = Object.entries(document.paths).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
    );
    const registered = t.service.routes.map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
    expect(listed.sort()).toEqual([...registered, 'GET /health', 'GET /health/ready'].sort());
    const process = document.paths['/v1/action/process'].post.responses;
    for (const code of ['1001', '1002', '2601', '5003', '5004'])
      expect(process['400'].description).toContain(`${code}:`);
    expect(process['401'].description).toContain('4001');
    expect(process['403'].description).toContain('4004');
    expect(process['429']).toBeDefined();
  });

  it('names the key each operation takes and the tiers that may call it', async () => {
    const document = (await t.http.get('/openapi.json')).body;
    expect(document.components.securitySchemes).toEqual({
      AuthKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'AuthKey' }),
      Bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    for (const route of t.service.routes) {
      const op = document.paths[route.path.replace(/:(\w+)/g, '{$1}')][route.method.toLowerCase()];
      expect(op.security).toEqual([{ AuthKey: [] }, { Bearer: [] }]);
      expect(op.description).toContain(`Tiers: ${route.tiers.join(', ')}.`);
    }
  });
});

type Operation = {
  operationId: string;
  security: unknown[];
  parameters: Array<{ $ref?: string; name?: string; in?: string; schema?: Record<string, unknown> }>;
  requestBody?: {
    content: { 'application/json': { schema: { properties: Record<string, Record<string, unknown>> } } };
  };
  responses: Record<
    string,
    {
      description: string;
      headers?: Record<string, unknown>;
      content?: Record<string, { schema: Record<string, unknown> }>;
    }
  >;
};
type Schema = Record<string, unknown>;
/** The codes a failure schema (the envelope narrowed by allOf) allows; none for no schema. */
const failureCodes = (schema: Schema | undefined): number[] =>
  schema ? (schema.allOf as Array<{ properties?: { code?: { enum: number[] } } }>)[1].properties!.code!.enum : [];
type FullDocument = {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
};

describe('the OpenAPI document, for SDK generators and validating clients', () => {
  let document: FullDocument;
  const opOf = (method: string, path: string) => document.paths[path.replace(/:(\w+)/g, '{$1}')][method.toLowerCase()];
  beforeAll(async () => {
    document = (await t.http.get('/openapi.json')).body;
  });

  it("passes Redocly's recommended rules without an error (warnings are listed)", async () => {
    const file = path.join(tempDir(), 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(document));
    const { stdout } = await promisify(execFile)(process.execPath, [
      path.resolve(__dirname, '../support/redocly-lint.mjs'),
      file,
    ]);
    const problems = JSON.parse(stdout) as Array<{ rule: string; severity: string; message: string; where: string }>;
    const warnings = problems.filter((p) => p.severity !== 'error');
    if (warnings.length)
      console.info(`Redocly warnings:\n${warnings.map((p) => `  ${p.rule} at ${p.where}: ${p.message}`).join('\n')}`);
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
  });

  it('describes every tag', () => {
    const tags = (document as unknown as { tags: Array<{ name: string; description?: string }> }).tags;
    expect(tags.filter((tag) => !tag.description || tag.description === tag.name)).toEqual([]);
  });

  it('gives every operation an operationId of its own', () => {
    const ids = Object.values(document.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    expect(ids.every((id) => /^[a-z][A-Za-z0-9]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(opOf('GET', '/v1/admin/leaderboards/:leaderboardID').operationId).toBe('leaderboard');
    expect(opOf('POST', '/v1/action/process').operationId).toBe('processAction');
    expect(opOf('POST', '/v1/store/complete-transaction').operationId).toBe('completeTransaction');
  });

  it('keeps the failure envelope once, in components, and refers to it from every failure', () => {
    expect(document.components.schemas.Failure).toMatchObject({ type: 'object', required: ['code', 'data'] });
    const text = JSON.stringify(document.paths);
    // No inline copy of the envelope: every failure schema is the reference, narrowed to its codes.
    expect(text).not.toContain('"a human-readable message"');
    for (const ops of Object.values(document.paths)) {
      for (const op of Object.values(ops)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (status === '200') continue;
          expect(response.content!['application/json'].schema).toEqual({
            allOf: [
              { $ref: '#/components/schemas/Failure' },
              { type: 'object', properties: { code: { enum: expect.any(Array) } } },
            ],
          });
        }
      }
    }
  });

  it('lists each code under the HTTP status it is sent with: 5002 "already exists" under 200', async () => {
    const create = opOf('POST', '/v1/player/create').responses;
    expect(create['200'].description).toMatch(/^Success; or 5002: /);
    expect(create['200'].content!['application/json'].schema.oneOf).toEqual([
      expect.objectContaining({ properties: expect.objectContaining({ code: { const: 200 } }) }),
      expect.objectContaining({
        allOf: expect.arrayContaining([{ type: 'object', properties: { code: { enum: [5002] } } }]),
      }),
    ]);
    expect(create['400']?.description ?? '').not.toContain('5002');
    // What the service really answers for an existing player: HTTP 200 with code 5002.
    const playerId = randomUUID();
    await t.http.post('/v1/player/create').set(server).send({ playerId, username: 'someone' });
    const again = await t.http.post('/v1/player/create').set(server).send({ playerId, username: 'someone' });
    expect([again.status, again.body.code]).toEqual([200, 5002]);
    // Every documented code sits under its status, by the service's own mapping (the body parser's 413 aside).
    for (const route of t.service.routes) {
      for (const [status, response] of Object.entries(opOf(route.method, route.path).responses)) {
        const codes = failureCodes(
          status === '200'
            ? (response.content!['application/json']?.schema.oneOf as Schema[] | undefined)?.[1]
            : response.content!['application/json'].schema,
        );
        if (status === '413') expect(codes).toEqual([1001]);
        else
          for (const code of codes)
            expect([route.path, code, httpStatusOf(code)]).toEqual([route.path, code, Number(status)]);
      }
    }
  });

  it('lists the 1001 a body that is not JSON answers on every POST, even one that reads no body', async () => {
    for (const route of t.service.routes.filter((r) => r.method === 'POST')) {
      expect([
        route.path,
        failureCodes(opOf(route.method, route.path).responses['400']?.content!['application/json'].schema),
      ]).toEqual([route.path, expect.arrayContaining([1001])]);
    }
    const res = await t.http.post('/v1/audit/verify').set(server).set('Content-Type', 'application/json').send('{');
    expect([res.status, res.body.code]).toEqual([400, 1001]);
  });

  it('lists 1004 "outcome unknown" under 503 on every POST (a write the store could not confirm), on no GET', () => {
    for (const route of t.service.routes) {
      const codes = failureCodes(opOf(route.method, route.path).responses['503']?.content!['application/json'].schema);
      expect([route.path, codes]).toEqual([
        route.path,
        route.method === 'POST' ? expect.arrayContaining([503, 1004]) : [503],
      ]);
    }
  });

  it('lists the 1001 a malformed path answers on every route with a path parameter', async () => {
    const withParams = t.service.routes.filter((r) => r.path.includes(':'));
    expect(withParams.length).toBeGreaterThan(3);
    for (const route of withParams)
      expect([route.path, opOf(route.method, route.path).responses['400'].description]).toEqual([
        route.path,
        expect.stringMatching(/1001: .*the URL is malformed/),
      ]);
    const res = await t.http.get('/v1/admin/actions/%E0%A4%A').set(server);
    expect([res.status, res.body.code]).toEqual([400, 1001]);
  });

  it('lists the CSV form beside the envelope where a route answers one, and no other answer has a media type it does not list', async () => {
    const ok = opOf('GET', '/v1/admin/analytics/:series').responses['200'];
    expect(Object.keys(ok.content!)).toEqual(['application/json', 'text/csv']);
    expect(
      opOf('GET', '/v1/admin/analytics/:series').parameters.find((p) => p.name === 'format')!.schema,
    ).toMatchObject({ enum: ['json', 'csv'] });
    // The HTTP tests' answers are checked against the listed media types (support/conformance.ts): an unlisted one fails them.
    const conformance = conformanceTo(document);
    const answer = {
      status: 200,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body: {},
      req: { method: 'GET', path: '/v1/admin/analytics/actions' },
    };
    expect(() => conformance.check(answer as never)).toThrow(
      /as text\/plain, which its document does not list \(application\/json, text\/csv\)/,
    );
  });

  it('documents /health and /health/ready, without a key', () => {
    for (const [p, status] of [
      ['/health', 'ok'],
      ['/health/ready', 'ready'],
    ]) {
      const op = document.paths[p].get;
      expect(op.security).toEqual([]);
      expect(op.responses['200'].content!['application/json'].schema).toMatchObject({
        properties: { data: { properties: { status: { const: status } } } },
      });
      expect(op.responses['503']).toBeDefined();
    }
  });

  it('describes the headers where they apply', () => {
    const refs = (op: Operation) => op.parameters.filter((p) => p.$ref).map((p) => p.$ref!.split('/').pop());
    for (const route of t.service.routes) {
      const op = opOf(route.method, route.path);
      const expected = [
        'X-Request-Id',
        ...(route.method === 'GET' ? ['X-Min-Position'] : []),
        ...(tiersOf(route).includes('Client') ? ['X-Tenant-Domain'] : []),
        ...(route.playerOf ? ['X-Player-Token'] : []),
        ...(route.idempotent ? ['Idempotency-Key'] : []),
      ];
      expect([route.path, refs(op)]).toEqual([route.path, expected]);
      for (const response of Object.values(op.responses))
        expect(response.headers).toMatchObject({ 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } });
      if (route.idempotent)
        expect(Object.keys(op.responses['200'].headers!)).toEqual([
          'X-Request-Id',
          'X-Position',
          'Idempotent-Replayed',
        ]);
    }
    for (const name of ['X-Request-Id', 'X-Min-Position', 'X-Tenant-Domain', 'X-Player-Token', 'Idempotency-Key'])
      expect(document.components.parameters[name]).toMatchObject({ name, in: 'header' });
    for (const name of ['X-Request-Id', 'X-Position', 'Idempotent-Replayed', 'Retry-After'])
      expect(document.components.headers[name]).toHaveProperty('description');
  });

  it('constrains requests as tightly as the service', async () => {
    const body = (method: string, p: string) =>
      opOf(method, p).requestBody!.content['application/json'].schema.properties;
    const processBody = body('POST', '/v1/action/process');
    const playerPattern = new RegExp(processBody.playerId.pattern as string);
    for (const id of [
      randomUUID(),
      randomUUID().toUpperCase(),
      randomUUID().replace(/-/g, ''),
      'not-a-uuid',
      `${randomUUID()}0`,
      '',
    ]) {
      expect([id, playerPattern.test(id)]).toEqual([id, canonicalPlayerId(id) !== null]);
    }
    for (const [method, p] of [
      ['POST', '/v1/player/profile'],
      ['POST', '/v1/store/buy'],
      ['POST', '/v1/chest/open'],
      ['POST', '/v1/player/create'],
    ])
      expect(body(method, p).playerId.pattern).toBe(processBody.playerId.pattern);
    expect(processBody.multiplier).toMatchObject({
      anyOf: [{ type: 'number', exclusiveMinimum: 0, maximum: 1_000_000_000 }, { type: 'string' }],
    });
    const positive = new RegExp((processBody.multiplier.anyOf as Array<{ pattern?: string }>)[1].pattern!);
    expect(['1', '0.5', '10.25', '0', '0.0', '-1', '1e3'].filter((m) => positive.test(m))).toEqual([
      '1',
      '0.5',
      '10.25',
    ]);
    const top = opOf('GET', '/v1/admin/leaderboards/:leaderboardID').parameters.find((p) => p.name === 'top')!;
    expect(top.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000 });
    expect(top.schema).not.toHaveProperty('pattern');
    const around = opOf('GET', '/v1/admin/leaderboards/:leaderboardID').parameters.find((p) => p.name === 'around')!;
    expect(around.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 50 });
    expect(JSON.stringify(opOf('GET', '/v1/admin/leaderboards/:leaderboardID').responses)).toContain('"around"');
    const provision = new RegExp(body('POST', '/v1/store/transaction-status').provisionUid.pattern as string);
    expect(['ab'.repeat(16), 'AB'.repeat(16), 'ab'.repeat(15), 'g'.repeat(32)].map((u) => provision.test(u))).toEqual([
      true,
      true,
      false,
      false,
    ]);
    const refused = await t.http
      .post('/v1/action/process')
      .set(server)
      .send({ name: 'login', referenceId: randomUUID(), playerId: randomUUID(), multiplier: 0 });
    expect(refused.body.code).toBe(1001);
  });
});

describe('the examples "Try it out" sends', () => {
  type Parameter = { name: string; in: string; required?: boolean; example?: unknown };
  type Op = { parameters: Parameter[]; requestBody?: { content: Record<string, { example?: unknown }> } };
  const served = async () => (await t.http.get('/openapi.json')).body as { paths: Record<string, Record<string, Op>> };

  it('are given for every request body and required parameter, from the running catalog, with a fresh player each time and no timestamp', async () => {
    const [first, second] = [await served(), await served()];
    for (const [path, operations] of Object.entries(first.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        for (const p of op.parameters.filter((p) => (p.in === 'path' || p.required) && p.in !== 'header'))
          expect([method, path, p.name, p.example]).toEqual([method, path, p.name, expect.anything()]);
        if (op.requestBody)
          expect([method, path, op.requestBody.content['application/json'].example]).toEqual([
            method,
            path,
            expect.any(Object),
          ]);
      }
    }
    const process = (doc: typeof first) =>
      doc.paths['/v1/action/process'].post.requestBody!.content['application/json'].example as Record<string, string>;
    expect(process(first)).toEqual({ name: 'login', referenceId: expect.any(String), playerId: expect.any(String) });
    expect(process(second).playerId).not.toBe(process(first).playerId);
    expect(first.paths['/v1/store/buy'].post.requestBody!.content['application/json'].example).toEqual({
      playerId: process(first).playerId,
      referenceId: 'bd-sword',
    });
    expect(first.paths['/v1/chest/open'].post.requestBody!.content['application/json'].example).toEqual({
      playerId: process(first).playerId,
      chestDeliverableUId: 'chest-silver',
    });
  });

  it('are taken by the service as they are: no request body example is refused as invalid (1001 or 1002)', async () => {
    const { paths } = await served();
    const refused: string[] = [];
    for (const [path, operations] of Object.entries(paths)) {
      const op = operations.post;
      const example = op?.requestBody?.content['application/json'].example;
      if (example === undefined) continue;
      const { body } = await t.http
        .post(path)
        .set(server)
        .send(example as object);
      if (body.code === 1001 || body.code === 1002) refused.push(`${path}: ${body.code} ${body.data}`);
    }
    // The one example that names something of the operator's: a webhook (none is configured here).
    expect(refused).toEqual([
      '/v1/admin/webhooks/redeliver: 1001 webhook: no webhook is named "example" (configured: none)',
    ]);
  });
});

describe('the API reference at /docs', () => {
  it('is a page that loads only same-origin files: no inline script or style, no other host', async () => {
    const res = await t.http.get('/docs');
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/html');
    const scripts = [...res.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((m) => [m[1], m[2]])).toEqual([
      [' src="/docs/assets/swagger-ui-bundle.js"', ''],
      [' src="/docs/assets/initializer.js"', ''],
    ]);
    expect(res.text).not.toMatch(/<style|\sstyle=|\son\w+=|https?:\/\//);
    // Helmet's policy: scripts of this origin only, none inline.
    expect(res.headers['content-security-policy']).toMatch(/script-src 'self';/);
    expect(res.headers['content-security-policy']).toMatch(/script-src-attr 'none'/);
  });

  it('serves the files it loads with their content types, and nothing else of the package', async () => {
    const types: Record<string, RegExp> = {
      'swagger-ui-bundle.js': /^text\/javascript/,
      'initializer.js': /^text\/javascript/,
      'swagger-ui.css': /^text\/css/,
      'favicon-32x32.png': /^image\/png/,
      'favicon-16x16.png': /^image\/png/,
    };
    const page = (await t.http.get('/docs')).text;
    const loaded = [...page.matchAll(/(?:src|href)="\/docs\/assets\/([^"]+)"/g)].map((m) => m[1]);
    expect(loaded.sort()).toEqual(Object.keys(types).sort());
    for (const [name, type] of Object.entries(types)) {
      const res = await t.http.get(`/docs/assets/${name}`);
      expect([name, res.status, res.headers['content-type']]).toEqual([name, 200, expect.stringMatching(type)]);
    }
    const initializer = (await t.http.get('/docs/assets/initializer.js')).text;
    expect(initializer).toContain("url: '/openapi.json'");
    for (const other of ['package.json', 'index.html', 'swagger-initializer.js', '..%2Fpackage.json', 'nope.js']) {
      expect([other, (await t.http.get(`/docs/assets/${other}`)).status]).toEqual([other, 404]);
    }
  });
});

describe('the documented shapes', () => {
  // Strict: a field the service sends but the document does not name fails here.
  const strictly = (shape: z.ZodType, value: unknown) => {
    const strict = shape instanceof z.ZodObject ? shape.strict() : shape;
    const parsed = strict.safeParse(value);
    if (!parsed.success) throw new Error(JSON.stringify(parsed.error.issues, null, 2));
  };

  it('match what the service sends', async () => {
    const playerId = randomUUID();
    const processed = await t.http
      .post('/v1/action/process')
      .set(server)
      .send({
        name: 'purchase',
        referenceId: `doc-${playerId}`,
        playerId,
        details: [{ name: 'amount', value: '120' }],
      });
    strictly(processResultShape, processed.body.data);
    const response = await t.http
      .get('/v1/action/get-response')
      .query({ referenceId: `doc-${playerId}` })
      .set(server);
    strictly(actionResultShape, response.body.data);
    strictly(profileShape, (await t.http.post('/v1/player/profile').set(server).send({ playerId })).body.data);
    const stores = (await t.http.get('/v1/admin/stores').set(server)).body.data;
    for (const store of stores) strictly(storeShape, store);
    const boards = (await t.http.get('/v1/admin/leaderboards').set(server)).body.data;
    const board = (await t.http.get(`/v1/admin/leaderboards/${boards[0].uid}`).query({ playerId }).set(server)).body
      .data[0];
    strictly(leaderboardDetailShape, board);
    strictly(jobsOverviewShape, (await t.http.get('/v1/admin/jobs').set(server)).body.data);
    if (processed.body.data.provisionUid) {
      strictly(
        transactionShape,
        (
          await t.http
            .post('/v1/store/transaction-status')
            .set(server)
            .send({ provisionUid: processed.body.data.provisionUid })
        ).body.data,
      );
    }
  });
});
