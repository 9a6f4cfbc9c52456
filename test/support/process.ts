import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const SHIFTED_CLOCK = path.join(__dirname, 'shifted-clock.cjs');

/** A local port nothing listens on: taken from the OS, then released. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });

export interface ChildServer {
  url: string;
  port: number;
  child: ChildProcess;
  output(): string;
}

/** The user id the tests run other processes as where permissions must apply (root ignores them). */
export const NOBODY = { uid: 65534, gid: 65534 };

/** The service's settings (docs/configuration.md): a child gets those its test gives, never the test runner's. */
const SERVICE_SETTINGS = [
  'PORT',
  'DATA_DIR',
  'CATALOG_FILE',
  'CATALOG_CONFIRM_REMOVALS',
  'API_KEYS_FILE',
  'EVENTSTORE_URL',
  'MONGO_URL',
  'MONGO_DATABASE',
  'MONGO_KEYS_DATABASE',
  'REDIS_URL',
  'REDIS_PREFIX',
  'LOG_LEVEL',
  'LOG_FORMAT',
  'MIN_POSITION_WAIT_MS',
  'SQLITE_BUSY_TIMEOUT_MS',
  'PLAYER_KEY_CACHE_MS',
  'IDEMPOTENCY_KEY_RETENTION_HOURS',
  'HTTP_HEADERS_TIMEOUT_MS',
  'HTTP_REQUEST_TIMEOUT_MS',
  'WEBHOOKS_FILE',
  'WEBHOOK_CONCURRENCY',
  'WEBHOOK_TIMEOUT_MS',
  'WEBHOOK_RETRY_BASE_MS',
  'WEBHOOK_MAX_ATTEMPTS',
  'TRUST_PROXY',
];

/** The environment of a service or CLI child: the test runner's, less the service's settings, plus `env`. */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !SERVICE_SETTINGS.includes(name)),
  );
  return { ...inherited, ...env };
}

/**
 * Runs `app/main.ts <role>` in its own process (as `npm start` does) and resolves once it answers
 * /health. `user`: run it as that user (a test running as root needs one for file permissions).
 * `clockOffsetMs`: the process's clock runs that far ahead of real time (test/support/shifted-clock.cjs).
 * `spawned`: told of the process at once, before it answers (a test that kills it while it starts).
 */
export async function startServerProcess(
  env: Record<string, string>,
  options: {
    role?: string;
    port?: number;
    user?: { uid: number; gid: number };
    clockOffsetMs?: number;
    spawned?: (child: ChildProcess) => void;
  } = {},
): Promise<ChildServer> {
  const role = options.role ?? 'all';
  const port = options.port ?? (await freePort());
  // The clock's preload comes first: `--require` runs in worker threads too, which `--import` misses.
  const clock: { args: string[]; env: Record<string, string> } =
    options.clockOffsetMs === undefined
      ? { args: [], env: {} }
      : { args: ['--require', SHIFTED_CLOCK], env: { TEST_CLOCK_OFFSET_MS: String(options.clockOffsetMs) } };
  // As the npm start scripts run it: tsx as a loader, in the service's own process.
  const child = spawn(process.execPath, [...clock.args, '--import', 'tsx', path.join(ROOT, 'app', 'main.ts'), role], {
    cwd: ROOT,
    env: childEnv({ LOG_LEVEL: 'warn', ...env, ...clock.env, PORT: String(port) }),
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so a kill reaches anything it started.
    detached: true,
    ...options.user,
  });
  options.spawned?.(child);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const answered = () =>
    fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
  try {
    await eventually(async () => exited() || (await answered()), 60_000, 100);
  } catch {
    killGroup(child, 'SIGKILL');
    throw new Error(`${role} did not start: ${out}`);
  }
  if (exited()) throw new Error(`${role} exited with ${child.exitCode ?? child.signalCode}: ${out}`);
  return { url, port, child, output: () => out };
}

/** Signals a server started by startServerProcess and everything in its process group. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // Already gone.
  }
}

/** Ends a server with a signal (SIGKILL by default: no shutdown code runs) and waits for its exit. */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit');
  killGroup(child, signal);
  await exited;
}

/**
 * Retries `attempt` until it passes or `timeoutMs` is over; the last failure is thrown. An attempt
 * passes when it neither throws nor answers `false`: an `expect` or a condition. The tests' one way
 * to wait for something: never a fixed sleep (test/no-fixed-sleeps.test.ts).
 */
export async function eventually<T>(
  attempt: () => T | Promise<T>,
  timeoutMs = 10_000,
  intervalMs = 100,
): Promise<Exclude<T, false>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const outcome = await attempt();
      if (outcome !== false) return outcome as Exclude<T, false>;
      if (Date.now() > deadline) throw new Error(`still false after ${timeoutMs} ms: ${String(attempt)}`);
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** A throwaway redis-server (no persistence) on `port`, once it accepts connections. Never the shared one. */
export async function startRedisServer(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  try {
    await eventually(
      () =>
        new Promise<void>((resolve, reject) => {
          const socket = net.connect(port, '127.0.0.1', () => {
            socket.destroy();
            resolve();
          });
          socket.once('error', reject);
        }),
      5000,
      50,
    );
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return child;
}

/** SIGKILLs a child started without its own process group (redis-server) and waits for its exit. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}
