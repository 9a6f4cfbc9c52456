/**
 * What a simulation costs: writes a log of `events` events (default 1,000,000) the way figure 4
 * does, then replays it under a draft of the bench catalog with the purchase action's points
 * doubled (every action decided again, as `POST /v1/audit/simulate` does) and prints the rate.
 * `npx tsx bench/simulate.ts [events]`; with BENCH_PROFILE=1, also where its CPU time goes. With
 * BENCH_LOG=FILE the log is written there once and kept, and a later run replays that same log
 * (before/after comparisons on one log, without writing it again).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simulate } from '../command-api/simulate/replay';
import { parseCatalog } from '../shared/domain/catalog/load';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { startChild } from './ipc';
import { formatSummary, projectInclusive, startCpuProfile, summarizeProfile } from './profile';
import { BENCH_CATALOG_FILE } from './workload';

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 1_000_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'simulate-bench-'));
  const kept = process.env.BENCH_LOG;
  const file = kept ?? path.join(dir, 'events.sqlite');
  try {
    const generated = kept && fs.existsSync(kept) ? null : await generate(file, count, dir);
    const text = fs.readFileSync(BENCH_CATALOG_FILE, 'utf8');
    const purchase = /(identifier: purchase[^\n]*\n(?:[^\n]*\n)*?\s*points: )(\d+)/;
    if (!purchase.test(text)) throw new Error('bench catalog: no purchase action with points');
    const draft = parseCatalog(
      text.replace(purchase, (_m, head: string, points: string) => `${head}${Number(points) * 2}`),
      'draft.yaml',
    );
    if (!draft.ok) throw new Error(draft.problems.join('\n'));

    const events = new SqliteEventStore(file, { readonly: true });
    const head = await events.headPosition();
    const heap0 = process.memoryUsage().heapUsed;
    const cpu0 = process.cpuUsage();
    const stopProfile = process.env.BENCH_PROFILE ? await startCpuProfile(1000) : null;
    const started = performance.now();
    const report = await simulate(events, draft.catalog, { top: 100 });
    const seconds = (performance.now() - started) / 1000;
    const profile = stopProfile ? await stopProfile(path.join(dir, 'simulate.cpuprofile')) : null;
    const cpu = process.cpuUsage(cpu0);
    const heapMiB = (process.memoryUsage().heapUsed - heap0) / 1024 ** 2;
    await events.close();
    console.log(
      generated
        ? `${generated.events.toLocaleString('en-US')} player events of ${generated.players.toLocaleString('en-US')} players, log head ${head.toLocaleString('en-US')}`
        : `the log of ${file}, head ${head.toLocaleString('en-US')}`,
    );
    // The rate counts every event of the log read, as figure 4's rebuild does; player events are the ones replayed.
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    console.log(
      `simulate: ${head.toLocaleString('en-US')} events read, ${report.eventsReplayed.toLocaleString('en-US')} player events replayed (${report.actionsRedecided.toLocaleString('en-US')} actions decided again) in ${seconds.toFixed(1)} s: ${Math.round(head / seconds).toLocaleString('en-US')} events/s (${Math.round(head / cpuSeconds).toLocaleString('en-US')} per CPU second)`,
    );
    if (profile) console.log(formatSummary(summarizeProfile(profile, 25), projectInclusive(profile, 25)));
    console.log(
      `  CPU ${cpuSeconds.toFixed(1)} s, heap +${heapMiB.toFixed(0)} MiB; ${report.playersAffected.toLocaleString('en-US')} players affected, ${report.problems.length} problems`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Figure 4's log of `count` player events, written to `file` by the bench's worker. */
async function generate(file: string, count: number, dir: string) {
  const worker = await startChild(path.join(__dirname, 'worker.ts'), { logFile: path.join(dir, 'worker.log') });
  const generated = await worker.ask<{ events: number; players: number; head: number }>(
    'generate',
    { file, catalogFile: BENCH_CATALOG_FILE, events: count },
    60 * 60_000,
  );
  await worker.stop();
  return generated;
}

void main();
