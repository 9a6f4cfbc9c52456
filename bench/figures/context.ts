/**
 * What every figure shares: the run's context and its result rows, the service under test started
 * in a child process, and the meters of answers and CPU time.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BenchConfig } from '../config';
import { startChild, type Child } from '../ipc';
import { percentile, type Answer, type LoadResult, type RequestSpec } from '../load';
import { BENCH_CATALOG_FILE, SERVER_KEY, writeKeysFile } from '../workload';

export const BENCH_DIR = path.resolve(__dirname, '..');
export const RESULTS_DIR = path.join(BENCH_DIR, 'results');
export const GIB = 1024 ** 3;
export const MILLION = 1_000_000;
export const PROCESS_PATH = '/v1/action/process';
export const HEADERS = { AuthKey: SERVER_KEY };

export interface Row {
  figure: number;
  name: string;
  value: number | null;
  unit: string;
  /** e.g. ">= 0.7"; empty for figures reported without a target. */
  target: string;
  pass: boolean | null;
}

export interface Context {
  config: BenchConfig;
  tmp: string;
  rows: Row[];
  details: Record<string, unknown>;
  profiles: string[];
  /** Children of the running figure: all stopped when it ends, whether it passed or threw. */
  children: Set<Child>;
}

export async function spawn(ctx: Context, script: string, options: Parameters<typeof startChild>[1]): Promise<Child> {
  const child = await startChild(path.join(BENCH_DIR, script), options);
  ctx.children.add(child);
  return child;
}

export const post = (body: string): RequestSpec => ({ method: 'POST', path: PROCESS_PATH, body, headers: HEADERS });

export function row(
  ctx: Context,
  figure: number,
  name: string,
  value: number | null,
  unit: string,
  target?: { op: '>=' | '<='; limit: number; shown?: string },
): void {
  const pass =
    target && value !== null && Number.isFinite(value)
      ? target.op === '>='
        ? value >= target.limit
        : value <= target.limit
      : target
        ? false
        : null;
  ctx.rows.push({
    figure,
    name,
    value,
    unit,
    target: target ? `${target.op} ${target.shown ?? target.limit}` : '',
    pass,
  });
}

export function log(message: string): void {
  process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

export function summaryOf(r: LoadResult) {
  return {
    requests: r.requests,
    errors: r.errors,
    seconds: r.elapsedMs / 1000,
    perSecond: r.requests / (r.elapsedMs / 1000),
    p50Ms: percentile(r.latencies, 50),
    p90Ms: percentile(r.latencies, 90),
    p99Ms: percentile(r.latencies, 99),
    maxMs: r.latencies.length ? r.latencies[r.latencies.length - 1] : Number.NaN,
    statuses: r.statuses,
  };
}

/** The flags `npm start` gives node before `--import tsx` (package.json). */
const SERVICE_NODE_FLAGS: string[] = (() => {
  const start: string = JSON.parse(fs.readFileSync(path.join(BENCH_DIR, '..', 'package.json'), 'utf8')).scripts.start;
  const words = start.split(/\s+/);
  return words.slice(words.indexOf('node') + 1, words.indexOf('--import'));
})();

export async function startServer(
  ctx: Context,
  name: string,
  options: { dataDir?: string; env?: Record<string, string> } = {},
): Promise<Child> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(ctx.tmp, `${name}-`));
  const child = await spawn(ctx, 'server.ts', {
    env: {
      BENCH_DATA_DIR: dataDir,
      BENCH_CATALOG: BENCH_CATALOG_FILE,
      BENCH_KEYS: writeKeysFile(ctx.tmp),
      BENCH_LOG_LEVEL: ctx.config.logLevel,
      ...options.env,
    },
    logFile: path.join(ctx.tmp, `${name}.log`),
    // The node flags of `npm start`, so that the figures are those of the service as users run it;
    // --expose-gc only makes global.gc available (figure 6 reads the live heap after a full collection).
    execArgv: [...SERVICE_NODE_FLAGS, '--expose-gc'],
    readyTimeoutMs: 10 * 60_000,
  });
  return child;
}

/** Outcomes of process answers: envelope codes, and which rules fired. */
export class Outcomes {
  codes: Record<string, number> = {};
  fired = { badge: 0, trigger: 0, level: 0, plain: 0 };
  actions = 0;

  add(result: { code?: number; data?: unknown }): void {
    this.actions++;
    const code = String(result.code ?? 'none');
    this.codes[code] = (this.codes[code] ?? 0) + 1;
    if (result.code !== 200 || typeof result.data !== 'object' || result.data === null) return;
    const d = result.data as { badges?: unknown; triggers?: unknown; achievedLevel?: unknown };
    if (d.badges) this.fired.badge++;
    if (d.triggers) this.fired.trigger++;
    if (d.achievedLevel) this.fired.level++;
    if (!d.badges && !d.triggers && !d.achievedLevel) this.fired.plain++;
  }

  /** An answer of process: the outer result, and the nested ones when there are. */
  addAnswer(answer: Answer): void {
    let parsed: { code?: number; data?: unknown };
    try {
      parsed = JSON.parse(answer.body) as { code?: number; data?: unknown };
    } catch {
      this.add({ code: -answer.status });
      return;
    }
    this.add(parsed);
    const nested = (parsed.data as { nested?: { code?: number; data?: unknown }[] } | undefined)?.nested;
    if (Array.isArray(nested)) for (const n of nested) this.add('code' in n ? n : { code: 200, data: n });
  }

  toJSON() {
    return { actions: this.actions, codes: this.codes, fired: this.fired };
  }
}

/**
 * CPU time a child spends inside measured windows (summed over rounds), read over IPC when a
 * window opens and closes. The asks run one after another, in window order.
 */
export class CpuMeter {
  micros = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private openedAt = 0;

  /** With `profileFile`, the child is also CPU-profiled over the measured windows, written there. */
  constructor(
    private readonly child: Child,
    private readonly profileFile?: string,
  ) {}

  readonly onWindow = (phase: 'start' | 'end'): void => {
    this.then(async () => {
      const now = await this.child.ask<number>('cpu');
      if (phase === 'start') this.openedAt = now;
      else this.micros += now - this.openedAt;
    });
    const file = this.profileFile;
    if (file)
      this.then(() =>
        phase === 'start'
          ? this.child.ask('profile-start', { intervalUs: 250 })
          : this.child.ask('profile-stop', { file }),
      );
  };

  /** Runs `step` after the asks already queued. */
  then(step: () => Promise<unknown>): void {
    this.queue = this.queue.then(step);
  }

  settled(): Promise<unknown> {
    return this.queue;
  }
}
