/**
 * What an operator sees when the data directory, the port or the process is mishandled, each
 * through the real service process (app/main.ts, as `npm start` runs it): a fault at start ends
 * in one line saying what is wrong and what to do, and exit code 1; a fault found while running
 * stops writes (503), fails the health checks it concerns, and is said once in the log.
 */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  childEnv,
  eventually,
  freePort,
  killGroup,
  NOBODY,
  startServerProcess,
  stopProcess,
  type ChildServer,
} from './support/process';
import { KEYS, server, startTestService, tempDir, writeKeysFile } from './support/service';

const ROOT = path.resolve(__dirname, '..');
const MAIN = path.join(ROOT, 'app', 'main.ts');

/** Starts the service and returns once it exits (a start that fails), within 60 s. */
function runToExit(env: Record<string, string>, user?: typeof NOBODY): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ['--import', 'tsx', MAIN, 'all'], {
    cwd: ROOT,
    env: childEnv({ LOG_LEVEL: 'warn', PORT: '0', ...env }),
    encoding: 'utf8',
    timeout: 60_000,
    ...user,
  });
}

/** Exit code 1 and exactly one line on stderr, matching `line`; no stack trace anywhere. */
function expectOneLine(run: SpawnSyncReturns<string>, line: RegExp): void {
  expect({ status: run.status, stderr: run.stderr.trim().split('\n') }).toEqual({
    status: 1,
    stderr: [expect.stringMatching(line)],
  });
  expect(run.stdout + run.stderr).not.toMatch(/\n\s+at /);
}

const write = (url: string, playerId = randomUUID()) =>
  fetch(`${url}/v1/action/process`, {
    method: 'POST',
    headers: { ...server, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'login', referenceId: randomUUID(), playerId }),
  });
const health = async (url: string, which: '/health' | '/health/ready') => {
  const res = await fetch(url + which);
  return { status: res.status, body: (await res.json()) as { code: number; data: unknown } };
};

/** A data directory the user `nobody` owns, with a keys file, and a store with some events in it. */
function nobodysDataDir(): { dataDir: string; env: Record<string, string> } {
  const dataDir = tempDir();
  const env = { DATA_DIR: dataDir, API_KEYS_FILE: writeKeysFile(dataDir) };
  fs.chownSync(dataDir, NOBODY.uid, NOBODY.gid);
  return { dataDir, env };
}

/** Makes the directory and every file in it read-only (for their owner, nobody). */
function makeReadOnly(dataDir: string): void {
  for (const name of fs.readdirSync(dataDir)) fs.chmodSync(path.join(dataDir, name), 0o444);
  fs.chmodSync(dataDir, 0o555);
}

describe('events.sqlite deleted under a running server', () => {
  let running: ChildServer;
  afterAll(() => stopProcess(running.child));

  it('stops taking writes (503), fails /health and /health/ready, and says why in one log line', async () => {
    const dataDir = tempDir();
    running = await startServerProcess({ DATA_DIR: dataDir, API_KEYS_FILE: writeKeysFile(dataDir) });
    expect((await write(running.url)).status).toBe(200);
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(path.join(dataDir, `events.sqlite${suffix}`), { force: true });

    for (let i = 0; i < 3; i++) expect((await write(running.url)).status).toBe(503);
    const live = await health(running.url, '/health');
    expect(live).toEqual({
      status: 503,
      body: {
        code: 503,
        data: expect.stringMatching(
          /^Not live: event store .*events\.sqlite was deleted or replaced while the service was running, so writes are stopped .*restore the file/,
        ),
      },
    });
    expect((await health(running.url, '/health/ready')).status).toBe(503);
    // Reads of what the process holds go on.
    expect((await fetch(`${running.url}/v1/admin/actions`, { headers: server })).status).toBe(200);
    const said = running
      .output()
      .split('\n')
      .filter((line) => line.includes('deleted or replaced'));
    expect(said).toEqual([expect.stringContaining('"msg":"event store fault: writes stopped"')]);
    expect(running.output()).not.toContain('store unavailable');
  });
});

describe('a read-only DATA_DIR', () => {
  it('with its files present: the service starts, /health is ok, /health/ready says why not, writes answer 503', async () => {
    const { dataDir, env } = nobodysDataDir();
    // A first run writes, then dies without closing: its WAL files stay (as after a crash).
    const first = await startServerProcess(env, { user: NOBODY });
    expect((await write(first.url)).status).toBe(200);
    await stopProcess(first.child);
    makeReadOnly(dataDir);

    const again = await startServerProcess(env, { user: NOBODY });
    try {
      expect(await health(again.url, '/health')).toEqual({ status: 200, body: { code: 200, data: { status: 'ok' } } });
      expect(await health(again.url, '/health/ready')).toEqual({
        status: 503,
        body: {
          code: 503,
          data: expect.stringMatching(
            /^Not ready: cannot write .*events\.sqlite \(EACCES\); make .* writable by the user the service runs as$/,
          ),
        },
      });
      expect((await write(again.url)).status).toBe(503);
    } finally {
      await stopProcess(again.child);
    }
  }, 60_000);

  it('without a job file: exit 1, with one line naming the file and what to do', async () => {
    const { dataDir, env } = nobodysDataDir();
    const first = await startServerProcess(env, { user: NOBODY });
    await stopProcess(first.child);
    for (const name of fs.readdirSync(dataDir)) if (name.startsWith('jobs.sqlite')) fs.rmSync(path.join(dataDir, name));
    makeReadOnly(dataDir);
    expectOneLine(
      runToExit(env, NOBODY),
      /^Cannot start: cannot open job store .*jobs\.sqlite \(SQLITE_CANTOPEN: .*\); make .* writable by the user the service runs as$/,
    );
  }, 60_000);
});

describe('a damaged events.sqlite', () => {
  /** A store of a few hundred events, closed (its WAL copied into the file). */
  async function storeWithEvents(): Promise<{ dataDir: string; file: string }> {
    const t = await startTestService();
    const playerId = randomUUID();
    for (let batch = 0; batch < 3; batch++) {
      const actions = Array.from({ length: 100 }, () => ({
        name: 'purchase',
        referenceId: randomUUID(),
        playerId,
        details: [{ name: 'amount', value: '120' }],
      }));
      expect(
        (
          await t.http
            .post('/v1/action/process')
            .set(server)
            .send({ name: 'login', referenceId: randomUUID(), playerId, actions })
        ).body.code,
      ).toBe(200);
    }
    await t.close();
    return { dataDir: t.dataDir, file: path.join(t.dataDir, 'events.sqlite') };
  }
  const DAMAGED =
    /^Cannot start: event store .*events\.sqlite is damaged \(.+\); stop every process using it and restore the file from a backup/;

  it('its last page cut short: exit 1, with one line saying so and what to do', async () => {
    const { dataDir, file } = await storeWithEvents();
    fs.truncateSync(file, fs.statSync(file).size - 2048);
    expectOneLine(runToExit({ DATA_DIR: dataDir, API_KEYS_FILE: writeKeysFile(dataDir) }), DAMAGED);
  }, 60_000);

  it('bytes overwritten in the middle: exit 1 at once, with one line, instead of retrying for ever', async () => {
    const { dataDir, file } = await storeWithEvents();
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.alloc(3000, 0xff), 0, 3000, Math.floor(fs.statSync(file).size / 2));
    fs.closeSync(fd);
    expectOneLine(runToExit({ DATA_DIR: dataDir, API_KEYS_FILE: writeKeysFile(dataDir) }), DAMAGED);
  }, 60_000);
});

describe('requests', () => {
  it('a client that sends its body too slowly is cut off at the request timeout', async () => {
    const dataDir = tempDir();
    const running = await startServerProcess({
      DATA_DIR: dataDir,
      API_KEYS_FILE: writeKeysFile(dataDir),
      HTTP_HEADERS_TIMEOUT_MS: '1000',
      HTTP_REQUEST_TIMEOUT_MS: '2000',
    });
    try {
      const socket = net.connect(running.port, '127.0.0.1');
      await once(socket, 'connect');
      let answer = '';
      socket.on('data', (d) => (answer += d));
      const closed = once(socket, 'close');
      socket.write(
        `POST /v1/action/process HTTP/1.1\r\nHost: x\r\nAuthKey: ${KEYS.server}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
      );
      // One byte every 200 ms would take 200 s to send the body.
      const trickle = setInterval(() => socket.writable && socket.write(' '), 200);
      const started = Date.now();
      await closed;
      clearInterval(trickle);
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      // The server goes on answering others.
      expect((await write(running.url)).status).toBe(200);
    } finally {
      await stopProcess(running.child);
    }
  }, 60_000);
});

describe('starting and stopping', () => {
  it('a second start on a port already taken: exit 1, with one line naming the port', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const dataDir = tempDir();
      expectOneLine(
        runToExit({ DATA_DIR: dataDir, API_KEYS_FILE: writeKeysFile(dataDir), PORT: String(port) }),
        new RegExp(
          `^Cannot start: port ${port} is already in use; stop the process that holds it, or set PORT to a free port$`,
        ),
      );
    } finally {
      taken.close();
    }
  }, 60_000);

  it('a second start on the port and data directory of a running one: exit 1 with its one line, nothing logged before it', async () => {
    const dataDir = tempDir();
    const env = { DATA_DIR: dataDir, API_KEYS_FILE: writeKeysFile(dataDir) };
    const first = await startServerProcess(env);
    try {
      const second = runToExit({ ...env, PORT: String(first.port), LOG_LEVEL: 'info' });
      expectOneLine(
        second,
        new RegExp(
          `^Cannot start: port ${first.port} is already in use; stop the process that holds it, or set PORT to a free port$`,
        ),
      );
      // Not "read models file in use by another process" first: the port is checked before any store is opened.
      expect(second.stdout).toBe('');
    } finally {
      await stopProcess(first.child);
    }
  }, 120_000);

  it('SIGTERM sent to `npm start` stops the service: nothing is left listening on the port', async () => {
    const port = await freePort();
    const dataDir = tempDir();
    const npm = spawn('npm', ['start'], {
      cwd: ROOT,
      env: childEnv({
        DATA_DIR: dataDir,
        API_KEYS_FILE: writeKeysFile(dataDir),
        PORT: String(port),
        LOG_LEVEL: 'warn',
      }),
      stdio: 'ignore',
      detached: true,
    });
    const url = `http://127.0.0.1:${port}`;
    try {
      await eventually(() => fetch(`${url}/health`).then((r) => expect(r.status).toBe(200)), 30_000, 100);
      const exited = once(npm, 'exit');
      process.kill(npm.pid!, 'SIGTERM');
      await exited;
      // The service process is gone too, not left orphaned, holding the port.
      await eventually(
        () =>
          fetch(`${url}/health`).then(
            () => Promise.reject(new Error('still answering')),
            () => undefined,
          ),
        10_000,
        100,
      );
    } finally {
      // Whatever is left of the group (an orphaned service) goes.
      killGroup(npm, 'SIGKILL');
    }
  }, 60_000);
});
