import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { actionResultShape, jobsOverviewShape, leaderboardDetailShape, processResultShape, profileShape, storeShape, transactionShape } from '../../shared/http/wire-shapes';
import { server, startTestService, tempDir, type TestService } from '../support/service';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

type Document = { openapi: string; paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>> };

describe('the OpenAPI document', () => {
  it('is served without a key and passes a real OpenAPI 3.1 validator', async () => {
    const res = await t.http.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const file = path.join(tempDir(), 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(res.body));
    // The validator is an ES module: it runs as its own CLI rather than inside jest's CommonJS.
    const cli = path.resolve(__dirname, '../../node_modules/@seriousme/openapi-schema-validator/bin/validate-api-cli.js');
    const { stdout } = await promisify(execFile)(process.execPath, [cli, file]);
    expect(JSON.parse(stdout)).toMatchObject({ valid: true });
  });

  it('lists every route the server registers, with its error codes', async () => {
    const document = (await t.http.get('/openapi.json')).body as Document;
    const listed = Object.entries(document.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    const registered = t.service.routes.map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
    expect(listed.sort()).toEqual(registered.sort());
    const process = document.paths['/v1/action/process'].post.responses;
    for (const code of ['1001', '1002', '2601', '5003', '5004']) expect(process['400'].description).toContain(`${code}:`);
    expect(process['401'].description).toContain('4001');
    expect(process['403'].description).toContain('4004');
    expect(process['429']).toBeDefined();
  });

  it('names the key each operation takes and the tiers that may call it', async () => {
    const document = (await t.http.get('/openapi.json')).body;
    expect(document.components.securitySchemes).toEqual({ AuthKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'AuthKey' }), Bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }) });
    for (const route of t.service.routes) {
      const op = document.paths[route.path.replace(/:(\w+)/g, '{$1}')][route.method.toLowerCase()];
      expect(op.security).toEqual([{ AuthKey: [] }, { Bearer: [] }]);
      expect(op.description).toContain(`Tiers: ${route.tiers.join(', ')}.`);
    }
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
    const processed = await t.http.post('/v1/action/process').set(server).send({ name: 'purchase', referenceId: `doc-${playerId}`, playerId, details: [{ name: 'amount', value: '120' }] });
    strictly(processResultShape, processed.body.data);
    const response = await t.http.get('/v1/action/get-response').query({ referenceId: `doc-${playerId}` }).set(server);
    strictly(actionResultShape, response.body.data);
    strictly(profileShape, (await t.http.post('/v1/player/profile').set(server).send({ playerId })).body.data);
    const stores = (await t.http.get('/v1/admin/stores').set(server)).body.data;
    for (const store of stores) strictly(storeShape, store);
    const boards = (await t.http.get('/v1/admin/leaderboards').set(server)).body.data;
    const board = (await t.http.get(`/v1/admin/leaderboards/${boards[0].uid}`).query({ playerId }).set(server)).body.data[0];
    strictly(leaderboardDetailShape, board);
    strictly(jobsOverviewShape, (await t.http.get('/v1/admin/jobs').set(server)).body.data);
    if (processed.body.data.provisionUid) {
      strictly(transactionShape, (await t.http.post('/v1/store/transaction-status').set(server).send({ provisionUid: processed.body.data.provisionUid })).body.data);
    }
  });
});
