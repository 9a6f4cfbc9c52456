/**
 * The small IPC protocol between the bench runner and its children: a child announces itself
 * with `{type: 'ready', ...}`, then answers requests `{id, type, ...}` with `{id, ok, value}` or
 * `{id, ok: false, error}`. Both sides live here so the message shapes are defined once.
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';

export interface IpcRequest {
  id: number;
  type: string;
  [key: string]: unknown;
}

type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

export type Handler = (request: IpcRequest) => unknown;

/** Child side: answers the runner's requests with the given handlers, then announces readiness. */
export function serveIpc(handlers: Record<string, Handler>, ready: Record<string, unknown>): void {
  if (!process.send) throw new Error('bench children must be started by bench/run.ts (no IPC channel)');
  process.on('message', (message: IpcRequest) => {
    const handler = handlers[message.type];
    const reply = (r: Reply) => process.send!(r);
    if (!handler) {
      reply({ id: message.id, ok: false, error: `unknown request ${message.type}` });
      return;
    }
    Promise.resolve()
      .then(() => handler(message))
      .then(
        (value) => reply({ id: message.id, ok: true, value: value ?? null }),
        (e: unknown) =>
          reply({ id: message.id, ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
      );
  });
  // Without the runner there is nothing to serve: do not linger as an orphan.
  process.on('disconnect', () => process.exit(0));
  process.send({ type: 'ready', ...ready });
}

/** CPU time this process has used so far (user + system), in microseconds. */
export function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

export interface Child {
  pid: number;
  ready: Record<string, unknown>;
  ask<T = unknown>(type: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<T>;
  /** Asks the child to stop (it flushes and exits by itself); kills it if it does not in time. */
  stop(): Promise<void>;
  /** The last lines the child wrote (its logs go to a file, not through the runner). */
  tail(lines?: number): string;
}

/** tsx's loader flags from the runner itself (`tsx bench/run.ts`), or `--import tsx`. */
function tsxExecArgv(): string[] {
  const inherited = process.execArgv.filter(
    (a, i, all) => a.includes('tsx') || (/^--(import|require)$/.test(a) && (all[i + 1] ?? '').includes('tsx')),
  );
  return inherited.length ? inherited : ['--import', 'tsx'];
}

/**
 * Runner side: forks a TypeScript child with its stdout/stderr in `logFile`, and waits for its
 * `ready` message.
 */
export function startChild(
  script: string,
  options: { env?: Record<string, string>; execArgv?: string[]; logFile: string; readyTimeoutMs?: number },
): Promise<Child> {
  const out = fs.openSync(options.logFile, 'a');
  const child = fork(script, [], {
    execArgv: [...tsxExecArgv(), ...(options.execArgv ?? [])],
    env: { ...process.env, ...options.env },
    stdio: ['ignore', out, out, 'ipc'],
  });
  fs.closeSync(out);
  let nextId = 1;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = true;
      for (const p of pending.values())
        p.reject(new Error(`child ${script} exited (${code ?? signal}) before answering\n${tail()}`));
      pending.clear();
      resolve();
    }),
  );
  const tail = (lines = 20) => {
    try {
      return fs.readFileSync(options.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  };

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`child ${script} not ready after ${options.readyTimeoutMs ?? 120_000} ms\n${tail()}`));
    }, options.readyTimeoutMs ?? 120_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`child ${script} exited (${code ?? signal}) while starting\n${tail()}`));
    });
    child.on('message', (message: { type?: string; id?: number; ok?: boolean; value?: unknown; error?: string }) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        const { type: _type, ...ready } = message;
        resolve({
          pid: child.pid!,
          ready,
          tail,
          ask<T>(type: string, args: Record<string, unknown> = {}, timeoutMs = 30 * 60_000): Promise<T> {
            if (exited) return Promise.reject(new Error(`child ${script} has exited\n${tail()}`));
            const id = nextId++;
            return new Promise<T>((res, rej) => {
              const t = setTimeout(() => {
                pending.delete(id);
                rej(new Error(`child ${script}: no answer to ${type} after ${timeoutMs} ms`));
              }, timeoutMs);
              pending.set(id, {
                resolve: (v) => {
                  clearTimeout(t);
                  res(v as T);
                },
                reject: (e) => {
                  clearTimeout(t);
                  rej(e);
                },
              });
              child.send({ id, type, ...args });
            });
          },
          async stop() {
            if (exited) return;
            const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
            if (child.connected) child.send({ id: 0, type: 'stop' });
            await exit;
            clearTimeout(killer);
          },
        });
        return;
      }
      if (typeof message.id === 'number' && pending.has(message.id)) {
        const p = pending.get(message.id)!;
        pending.delete(message.id);
        if (message.ok) p.resolve(message.value);
        else p.reject(new Error(message.error));
      }
    });
  });
}
