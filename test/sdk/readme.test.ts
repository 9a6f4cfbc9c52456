/**
 * Every `ts` example of sdk/README.md and docs/sdk.md runs as written, in a process of its own (tsx), against the
 * service listening here: only the URL (`http://localhost:8080`) is this service's, and the
 * package's name the SDK's source.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { KEYS, startTestService, tempDir, type TestService } from '../support/service';

const SDK = path.resolve(__dirname, '../../sdk');
const PAGES = [path.join(SDK, 'README.md'), path.resolve(__dirname, '../../docs/sdk.md')];
const examples = PAGES.flatMap((page) =>
  [...fs.readFileSync(page, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => [path.basename(page), m[1]]),
);

let t: TestService;
let baseUrl: string;

beforeAll(async () => {
  t = await startTestService();
  baseUrl = `http://127.0.0.1:${((await t.service.listen(0)).address() as AddressInfo).port}`;
});

afterAll(async () => {
  await t?.close();
});

const run = (file: string) =>
  new Promise<{ code: number; out: string; err: string }>((resolve) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', file],
      { env: { ...process.env, GAMIFICATION_KEY: KEYS.server }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, out: stdout, err: stderr }),
    ),
  );

describe('the SDK pages', () => {
  it('has examples', () => {
    expect(examples.length).toBeGreaterThanOrEqual(6);
  });

  it.each(examples.map(([page, code], i) => [page, i + 1, code]))(
    '%s: example %i runs',
    async (_page, _n, code) => {
      const file = path.join(tempDir('gam-sdk-readme-'), 'example.mts');
      fs.writeFileSync(
        file,
        String(code)
          .replaceAll("'@gamification-engine/sdk'", JSON.stringify(path.join(SDK, 'src/index.ts')))
          .replaceAll('http://localhost:8080', baseUrl),
      );
      const result = await run(file);
      expect(result.err).toBe('');
      expect(result.code).toBe(0);
    },
    90_000,
  );
});
