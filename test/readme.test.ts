/**
 * The README's shell examples, run as a reader runs them: every fenced `sh` block that calls the
 * service, in the order of the README, in one shell, against `npm start`'s service on a fresh data
 * directory, with the development key it generated. Each step of the tour must succeed as written.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startServerProcess, stopProcess, type ChildServer } from './support/process';
import { tempDir } from './support/service';

const ROOT = path.resolve(__dirname, '..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The commands of the `sh` blocks that call the service (curl), continuation lines joined, comments left out. */
function tourCommands(): string[] {
  const blocks = [...README.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]).filter((b) => b.includes('curl '));
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

describe("the README's shell examples", () => {
  let running: ChildServer;
  afterAll(() => running && stopProcess(running.child));

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
    expect(commands.filter((c) => c.startsWith('curl')).length).toBeGreaterThanOrEqual(8);
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
