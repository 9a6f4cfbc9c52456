/**
 * `npm run bench`: the benchmark suite (a script, not a test). Each figure runs the service
 * under test in a child process (bench/server.ts: startService on the embedded adapters, as
 * `npm start` does), so the load generator here does not share its event loop. Prints a table
 * and writes bench/results/latest.json. Settings: bench/config.ts, described in bench/README.md.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readBenchConfig } from './config';
import { formatSummary, projectInclusive, summarizeProfile, type CpuProfile } from './profile';
import { BENCH_DIR, RESULTS_DIR, log, type Context, type Row } from './figures/context';
import { figure1 } from './figures/1-throughput';
import { figure2 } from './figures/2-nested';
import { figure3 } from './figures/3-projection-lag';
import { figure4 } from './figures/4-rebuild';
import { figure5 } from './figures/5-long-history';
import { figure6 } from './figures/6-memory-and-leaderboards';
import { figure7 } from './figures/7-restart';

function formatValue(value: number | null, unit: string): string {
  if (value === null || Number.isNaN(value)) return 'n/a';
  if (!Number.isFinite(value)) return 'inf';
  const digits = Math.abs(value) >= 1000 ? 0 : Math.abs(value) >= 100 ? 1 : 2;
  const text = value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return unit ? `${text} ${unit}` : text;
}

function table(rows: Row[]): string {
  const header = ['#', 'figure', 'measured', 'target', 'result'];
  const lines = rows.map((r) => [
    String(r.figure),
    r.name,
    formatValue(r.value, r.unit),
    r.target,
    r.pass === null ? '' : r.pass ? 'PASS' : 'FAIL',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells: string[]) =>
    cells.map((c, i) => (i === 2 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ');
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...lines.map(fmt)].join('\n');
}

/** Jiffies of all CPUs: total and stolen by the hypervisor (Linux only; null elsewhere). */
function cpuTimes(): { total: number; steal: number } | null {
  try {
    const [, ...fields] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    const values = fields.map(Number);
    return { total: values.reduce((a, b) => a + b, 0), steal: values[7] ?? 0 };
  } catch {
    return null;
  }
}

/** The code measured: others edit the tree while benchmarks run, so record what it was. */
function codeVersion(): { commit: string | null; changedFiles: string[] } {
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: path.resolve(BENCH_DIR, '..'),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  try {
    const changed = git('status', '--porcelain')
      .split('\n')
      .filter((l) => l.trim() && !l.slice(3).startsWith('bench/'));
    return { commit: git('rev-parse', 'HEAD').trim(), changedFiles: changed.map((l) => l.trim()) };
  } catch {
    return { commit: null, changedFiles: [] };
  }
}

const FIGURES: Record<number, (ctx: Context) => Promise<void>> = {
  1: figure1,
  2: figure2,
  3: figure3,
  4: figure4,
  5: figure5,
  6: figure6,
  7: figure7,
};

async function main(): Promise<void> {
  const config = readBenchConfig();
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(process.env.BENCH_TMPDIR || os.tmpdir(), 'benchrun-'));
  const ctx: Context = { config, tmp, rows: [], details: {}, profiles: [], children: new Set() };
  const started = Date.now();
  const failures: string[] = [];
  const loadBefore = os.loadavg();
  const cpuBefore = cpuTimes();
  const version = codeVersion();
  log(
    `${config.quick ? 'quick' : 'full'} run of figures ${[...config.only].join(', ')} on ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), node ${process.version}; code ${version.commit?.slice(0, 7) ?? '?'}${version.changedFiles.length ? ` + ${version.changedFiles.length} uncommitted files` : ''}; temp ${tmp}`,
  );
  for (const figure of [...config.only].sort()) {
    try {
      await FIGURES[figure](ctx);
    } catch (e) {
      const message = e instanceof Error ? (e.stack ?? e.message) : String(e);
      failures.push(`figure ${figure}: ${message}`);
      log(`figure ${figure} failed: ${message}`);
      ctx.rows.push({ figure, name: 'failed to run (see log)', value: null, unit: '', target: '', pass: false });
    } finally {
      for (const child of ctx.children) await child.stop();
      ctx.children.clear();
    }
  }
  const totalSeconds = (Date.now() - started) / 1000;

  console.log(`\n${table(ctx.rows)}\n`);
  const profileSummaries: Record<string, unknown> = {};
  for (const file of ctx.profiles) {
    if (!fs.existsSync(file)) continue;
    const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
    const summary = summarizeProfile(profile, 25);
    const inclusive = projectInclusive(profile, 20);
    profileSummaries[path.basename(file)] = { summary, inclusive };
    console.log(`${path.relative(process.cwd(), file)}:\n${formatSummary(summary, inclusive)}\n`);
  }
  const cpuAfter = cpuTimes();
  const stealPct =
    cpuBefore && cpuAfter && cpuAfter.total > cpuBefore.total
      ? (100 * (cpuAfter.steal - cpuBefore.steal)) / (cpuAfter.total - cpuBefore.total)
      : null;
  const result = {
    startedAt: new Date(started).toISOString(),
    code: version,
    totalSeconds,
    // Other processes on the machine skew every figure: the load averages tell whether there were.
    loadAverage: { before: loadBefore, after: os.loadavg() },
    cpuStealPct: stealPct,
    machine: {
      cpus: os.cpus().length,
      model: os.cpus()[0]?.model,
      totalMemBytes: os.totalmem(),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    },
    config: { ...config, only: [...config.only] },
    rows: ctx.rows,
    details: ctx.details,
    profiles: profileSummaries,
    failures,
  };
  const out = path.join(RESULTS_DIR, 'latest.json');
  fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
  log(
    `load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; CPU time stolen by the hypervisor ${stealPct === null ? 'n/a' : `${stealPct.toFixed(1)} %`}`,
  );
  log(`done in ${totalSeconds.toFixed(0)} s; results in ${path.relative(process.cwd(), out)}`);
  if (config.keep) log(`kept ${tmp}`);
  else fs.rmSync(tmp, { recursive: true, force: true });
  if (failures.length) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
