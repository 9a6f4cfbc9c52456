/**
 * The SDK's generated types check what a call sends against the document's schemas at compile
 * time: each `@ts-expect-error` below is a mistake the compiler must catch (`npm run typecheck`,
 * and ts-jest here, fail on a directive with no error under it), and a file making one of them
 * without the directive does not compile.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createClient } from '../../sdk/src/index.ts';
import { tempDir } from '../support/service';

const c = createClient({ baseUrl: 'http://127.0.0.1:9', key: 'compile-only' });

/** Never called: what matters is whether they compile. */
const mistakes = [
  // @ts-expect-error `nme` is not a field of processAction's body (`name` is)
  () => c.processAction({ nme: 'login', referenceId: 'r-1', playerId: 'p-1' }),
  // @ts-expect-error `playerId` is required
  () => c.processAction({ name: 'login', referenceId: 'r-1' }),
  // @ts-expect-error `reason` is a string
  () => c.adjustPlayer({ playerId: 'p-1', reason: 42 }),
  // @ts-expect-error the leaderboard's id is required
  () => c.leaderboard({ top: '5' }),
  // @ts-expect-error a profile has no `badgeCount`
  async () => (await c.playerProfile({ playerId: 'p-1' })).badgeCount,
  // @ts-expect-error no such operation
  () => c.processActions({ name: 'login', referenceId: 'r-1', playerId: 'p-1' }),
];

describe('the SDK types', () => {
  it('name each mistake above (the directives are checked by the compiler)', () => {
    expect(mistakes).toHaveLength(6);
  });

  it("fail a compile of a body with a field its schema does not have, and pass the docs' examples", async () => {
    const dir = tempDir('gam-sdk-types-');
    const index = JSON.stringify(path.resolve(__dirname, '../../sdk/src/index.ts'));
    fs.writeFileSync(
      path.join(dir, 'wrong-body.ts'),
      [
        `import { createClient } from ${index};`,
        `const c = createClient({ baseUrl: 'http://127.0.0.1:9', key: 'k' });`,
        `export const call = () => c.processAction({ nme: 'login', referenceId: 'r-1', playerId: 'p-1' });`,
      ].join('\n'),
    );
    const pages = [path.resolve(__dirname, '../../sdk/README.md'), path.resolve(__dirname, '../../docs/sdk.md')];
    const examples = pages.flatMap((page) =>
      [...fs.readFileSync(page, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]),
    );
    examples.forEach((code, i) =>
      fs.writeFileSync(path.join(dir, `example-${i + 1}.mts`), code.replaceAll("'@gamification-engine/sdk'", index)),
    );
    const tsc = require.resolve('typescript/bin/tsc');
    const options = ['--ignoreConfig', '--noEmit', '--strict', '--skipLibCheck', '--allowImportingTsExtensions'];
    const target = ['--target', 'es2022', '--module', 'es2022', '--moduleResolution', 'bundler', '--lib', 'es2022,dom'];
    const types = ['--types', 'node', '--typeRoots', path.resolve(__dirname, '../../node_modules/@types')];
    const files = fs.readdirSync(dir).map((f) => path.join(dir, f));
    const result = await new Promise<{ code: number | null; out: string }>((resolve) =>
      execFile(process.execPath, [tsc, ...options, ...target, ...types, ...files], (error, stdout) =>
        resolve({ code: error ? (error.code as number) : 0, out: stdout }),
      ),
    );
    const errors = result.out.split('\n').filter((line) => /error TS/.test(line));
    expect(errors).toEqual([
      expect.stringMatching(
        /wrong-body\.ts\(3,\d+\): error TS2561: Object literal may only specify known properties, but 'nme' does not exist/,
      ),
    ]);
    expect(result.code).not.toBe(0);
  }, 120_000);
});
