/**
 * Logs a person can read at a terminal and a machine can parse everywhere else: LOG_FORMAT picks
 * one, unset it follows whether stdout is a terminal; the service's own start-up lines are log
 * lines of the same stream, never plain text mixed into the JSON.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { readRunConfig } from '../shared/adapters/config/env';
import { createLogger, effectiveLogFormat, prettyLines } from '../shared/adapters/logging/logger';
import { childEnv, eventually, freePort, killGroup } from './support/process';
import { server, tempDir, writeKeysFile } from './support/service';

const ROOT = path.resolve(__dirname, '..');
const MAIN = path.join(ROOT, 'app', 'main.ts');

describe('the log format', () => {
  it('is the one LOG_FORMAT asks for, else readable on a terminal and JSON on a pipe or file', () => {
    expect(effectiveLogFormat('json', true)).toBe('json');
    expect(effectiveLogFormat('pretty', false)).toBe('pretty');
    expect(effectiveLogFormat(null, true)).toBe('pretty');
    expect(effectiveLogFormat(null, false)).toBe('json');
  });

  it('LOG_FORMAT is read as pretty or json, unset as neither; anything else stops the start', () => {
    expect(readRunConfig({}).logFormat).toBeNull();
    expect(readRunConfig({ LOG_FORMAT: '' }).logFormat).toBeNull();
    expect(readRunConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(readRunConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(() => readRunConfig({ LOG_FORMAT: 'yaml' })).toThrow(
      'LOG_FORMAT: must be one of pretty, json (unset: readable on a terminal, JSON otherwise), got "yaml"',
    );
  });

  it('pretty lines show time, level, message and fields, without colours off a terminal, and keys stay redacted', () => {
    let written = '';
    const pretty = prettyLines(false);
    const log = createLogger('info', { write: (line) => (written += pretty(line)) });
    log.info({ role: 'read', authKey: 'secret-key-123' }, 'listening');
    expect(written).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: listening\n {4}role: "read"\n {4}authKey: "\[redacted\]"\n$/,
    );
    expect(written).not.toContain('secret-key-123');
  });
});

/** Starts app/main.ts and collects its stdout until a line says it listens, then stops it. */
async function startUpOutput(env: Record<string, string>): Promise<{ stdout: string; stderr: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'all'], {
    cwd: ROOT,
    env: childEnv({ DATA_DIR: tempDir(), PORT: String(port), ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = once(child, 'exit');
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" within 60 s: ${stdout}${stderr}`)), 60_000);
    child.stdout.on('data', (d) => {
      stdout += d;
      if (stdout.includes('listening on')) {
        clearTimeout(timer);
        resolve();
      }
    });
  }).finally(() => killGroup(child, 'SIGKILL'));
  await exited;
  return { stdout, stderr };
}

describe('the service process', () => {
  it('piped with LOG_FORMAT=json, writes only JSON lines, start-up lines included with what they said', async () => {
    const { stdout } = await startUpOutput({ LOG_LEVEL: 'info', LOG_FORMAT: 'json' });
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const port = (lines.find((l) => String(l.msg).includes('listening on'))!.url as string).split(':').pop();
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          level: 30,
          msg: expect.stringMatching(
            /^No API_KEYS_FILE: generated a development Server key, kept in \S+dev-api-key \(read it there\)$/,
          ),
        }),
        expect.objectContaining({
          level: 30,
          role: 'all',
          url: `http://localhost:${port}`,
          dataDir: expect.any(String),
          catalogFile: expect.stringMatching(/demo-catalog\.yaml$/),
          msg: `Gamification service (all) listening on http://localhost:${port}: the console at http://localhost:${port}/console, the web components' demo at http://localhost:${port}/kit, the API reference at http://localhost:${port}/docs`,
        }),
      ]),
    );
  });

  it('piped without LOG_FORMAT, writes JSON lines (a pipe is not a terminal)', async () => {
    const { stdout } = await startUpOutput({ LOG_LEVEL: 'info' });
    for (const line of stdout.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('with LOG_FORMAT=pretty, writes readable lines, no JSON and no colours on a pipe', async () => {
    const { stdout } = await startUpOutput({ LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' });
    expect(stdout).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: Gamification service \(all\) listening on http:\/\/localhost:(\d+): the console at http:\/\/localhost:\1\/console, the web components' demo at http:\/\/localhost:\1\/kit, the API reference at http:\/\/localhost:\1\/docs\n {4}role: "all"\n/m,
    );
    expect(stdout).not.toMatch(/^\{/m);
    expect(stdout).not.toContain('\u001b[');
  });

  it('every JSON line logged just before an exit is written, though lines are written asynchronously', () => {
    // A burst of lines then an immediate exit: what was still waiting for its write is written at exit.
    const script = [
      "const { createStdoutLogger } = require('./shared/adapters/logging/logger');",
      "const log = createStdoutLogger('info', 'json');",
      'for (let i = 0; i < 5000; i++) log.info({ i }, "line");',
      'process.exit(0);',
    ].join('\n');
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
      cwd: ROOT,
      env: childEnv({}),
      encoding: 'utf8',
      timeout: 60_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(run.status).toBe(0);
    const numbers = run.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { i: number }).i);
    expect(numbers).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  });

  it.each(['json', 'pretty'])(
    'with stdout on a full disk (%s), answers and shuts down, and counts the lines it dropped in /metrics',
    async (format) => {
      const dataDir = tempDir();
      const port = await freePort();
      const full = fs.openSync('/dev/full', 'w');
      const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'all'], {
        cwd: ROOT,
        env: childEnv({
          DATA_DIR: dataDir,
          API_KEYS_FILE: writeKeysFile(dataDir),
          PORT: String(port),
          LOG_LEVEL: 'info',
          LOG_FORMAT: format,
        }),
        stdio: ['ignore', full, 'pipe'],
        detached: true,
      });
      fs.closeSync(full);
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      const exited = once(child, 'exit');
      try {
        const url = `http://127.0.0.1:${port}`;
        // The start logs (catalog published, listening on): each line dropped, none stopping it.
        const dropped = await eventually(async () => {
          const metrics = await fetch(`${url}/metrics`, { headers: server }).then((r) => r.text());
          const count = Number(/^log_lines_dropped_total (\d+)$/m.exec(metrics)?.[1]);
          expect(count).toBeGreaterThanOrEqual(2);
          return count;
        }, 60_000);
        expect(dropped).toBeGreaterThanOrEqual(2);
        expect((await fetch(`${url}/health`)).status).toBe(200);
        // Shutting down logs a line more, and what waits at exit is tried once, never retried forever.
        child.kill('SIGTERM');
        const [code] = await exited;
        expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      } finally {
        killGroup(child, 'SIGKILL');
      }
    },
    90_000,
  );

  it('with a LOG_FORMAT it does not know, exits 1 with one line saying which are known', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', MAIN, 'all'], {
      cwd: ROOT,
      env: childEnv({ DATA_DIR: tempDir(), PORT: '0', LOG_FORMAT: 'text' }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect({ status: run.status, stderr: run.stderr.trim().split('\n') }).toEqual({
      status: 1,
      stderr: ['LOG_FORMAT: must be one of pretty, json (unset: readable on a terminal, JSON otherwise), got "text"'],
    });
  });
});
