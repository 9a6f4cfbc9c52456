import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

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

/** Runs `shared/main.ts <role>` in its own process (as `npm start` does) and resolves once it answers /health. */
export async function startServerProcess(env: Record<string, string>, options: { role?: string; port?: number } = {}): Promise<ChildServer> {
  const role = options.role ?? 'all';
  const port = options.port ?? (await freePort());
  const child = spawn(process.execPath, [path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), path.join(ROOT, 'shared', 'main.ts'), role], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${role} exited with ${child.exitCode}: ${out}`);
    const ok = await fetch(`${url}/health`).then((r) => r.ok, () => false);
    if (ok) return { url, port, child, output: () => out };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`${role} did not start: ${out}`);
}

/** Ends a child with a signal (SIGKILL by default: no shutdown code runs) and waits for its exit. */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

/** Retries `attempt` until it passes or `timeoutMs` is over; the last failure is thrown. */
export async function eventually<T>(attempt: () => Promise<T>, timeoutMs = 10_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
}
