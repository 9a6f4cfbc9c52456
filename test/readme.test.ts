/**
 * The shell examples of the README and of the docs pages, run as a reader runs them: every fenced
 * `sh` block that calls the service, the README's tour first and then each docs page in the order
 * the README's "Documentation" list links them (the pages' examples carry on from the tour), in one
 * shell, against `npm start`'s service on a fresh data directory, with the development key it
 * generated. Each step must succeed as written.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startServerProcess, stopProcess, type ChildServer } from './support/process';
import { tempDir } from './support/service';

const ROOT = path.resolve(__dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const README = read('README.md');

/** The docs pages, in the order the README's "Documentation" section first links them. */
function docsPagesInReadmeOrder(): string[] {
  const section = README.slice(README.indexOf('\n## Documentation\n'));
  return [...new Set([...section.matchAll(/\]\((docs\/[\w-]+\.md)[)#]/g)].map((m) => m[1]))];
}

/** The `sh` blocks of a Markdown text that call the service (curl). */
const serviceBlocks = (markdown: string) =>
  [...markdown.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]).filter((b) => b.includes('curl '));

/** The commands of those blocks, README then docs pages, continuation lines joined, comments left out. */
function tourCommands(): string[] {
  const blocks = ['README.md', ...docsPagesInReadmeOrder()].flatMap((file) => serviceBlocks(read(file)));
  return blocks.flatMap((block) =>
    block
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#')),
  );
}

/** Output and exit code of each command, run one after the other in one bash (KEY set by the first carries on). */
function runInOrder(commands: string[], cwd: string): Promise<{ command: string; out: string; code: number }[]> {
  const MARK = '@@readme-step@@';
  const script = commands.map((c) => `${c}\necho "${MARK} $?"`).join('\n');
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', script], { cwd, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      if (error) return reject(error);
      const parts = stdout.split(new RegExp(`${MARK} (\\d+)\\n`));
      const steps = commands.map((command, i) => ({
        command,
        out: parts[2 * i].trim(),
        code: Number(parts[2 * i + 1]),
      }));
      resolve(steps);
    });
  });
}

describe('the shell examples of the README and the docs pages', () => {
  let running: ChildServer;
  afterAll(() => running && stopProcess(running.child));

  it("every docs page with an example that calls the service is in the README's Documentation list", () => {
    const pages = fs.readdirSync(path.join(ROOT, 'docs')).map((name) => `docs/${name}`);
    const withExamples = pages.filter((page) => page.endsWith('.md') && serviceBlocks(read(page)).length > 0);
    expect(withExamples.length).toBeGreaterThanOrEqual(4);
    expect(withExamples.filter((page) => !docsPagesInReadmeOrder().includes(page))).toEqual([]);
  });

  it('run in order against a started service, each step succeeding as written (the purchase with an Idempotency-Key too, and its retry)', async () => {
    const dir = tempDir();
    // The examples run where a reader runs them, beside the project's files (the demo catalog, the packages).
    for (const beside of ['catalog', 'node_modules']) fs.symlinkSync(path.join(ROOT, beside), path.join(dir, beside));
    running = await startServerProcess({ DATA_DIR: path.join(dir, 'data') });
    const commands = tourCommands().map((c) =>
      c
        .replaceAll('localhost:8080', `localhost:${running.port}`)
        // The project's CLI, as `npx gamification` runs it in the project.
        .replace(/^npx gamification /, `node ${path.join(ROOT, 'bin', 'gamification.js')} `)
        // A live tail never ends by itself: a reader stops it; here, after 2 s.
        .replace(/^curl -sN /, 'curl -sN --max-time 2 '),
    );
    expect(commands.filter((c) => c.startsWith('curl')).length).toBeGreaterThanOrEqual(15);
    const buy = commands.find((c) => c.includes('/v1/store/buy'))!;
    const steps = await runInOrder([...commands, buy], dir);
    for (const { command, out, code } of steps) {
      if (command.startsWith('KEY=')) expect([command, code, out]).toEqual([command, 0, '']);
      // Preparing a file, or the CLI's readable summary: it succeeds.
      else if (!command.startsWith('curl ')) expect([command, code]).toEqual([command, 0]);
      else if (command.includes('format=csv'))
        expect([command, code, out.split(/\r?\n/)[0]]).toEqual([
          command,
          0,
          expect.stringMatching(/^day,(key,)?value$/),
        ]);
      else if (command.includes('/v1/feed/live')) {
        // Timed out while following: the stream answered and stayed open.
        expect([command, code]).toEqual([command, 28]);
        for (const line of out.split('\n').filter(Boolean)) expect(line).toMatch(/^(:|id:|event:|data:|retry:)/);
      } else if (command.includes('/metrics'))
        expect([command, code, out]).toEqual([command, 0, expect.stringContaining('projection_lag_seconds')]);
      else expect([command, code, JSON.parse(out).code]).toEqual([command, 0, 200]);
    }
    const [bought, retried] = steps.filter((s) => s.command === buy).map((s) => JSON.parse(s.out));
    expect(bought.data).toMatchObject({ provisionUid: expect.any(String) });
    expect(retried).toEqual(bought);
  }, 180_000);
});
