/**
 * What a simulation costs, alone: figure 4's simulation row (`npm run bench`) without the rest of
 * the figure. Writes a log of `events` events (default 1,000,000) the way figure 4 does, then has
 * the bench's worker simulate it under the draft with the purchase action's points doubled (every
 * action decided again, as `POST /v1/audit/simulate` does: split between threads) and prints the
 * rate. `npx tsx bench/simulate.ts [events]`. With BENCH_LOG=DIR the log is written to
 * DIR/events.sqlite once and kept, and a later run replays that same log (before/after
 * comparisons on one log, without writing it again). Where its CPU goes: NODE_OPTIONS=--cpu-prof
 * writes a profile per thread to the current folder (`npx tsx bench/profile.ts FILE` sums one up).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChild } from './ipc';
import { BENCH_CATALOG_FILE } from './workload';

interface Simulated {
  events: number;
  ms: number;
  eventsPerSec: number;
  cpuMs: number;
  maxRssBytes: number;
  eventsReplayed: number;
  actionsRedecided: number;
  playersAffected: number;
  problems: number;
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 1_000_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'simulate-bench-'));
  const kept = process.env.BENCH_LOG;
  const file = path.join(kept ?? dir, 'events.sqlite');
  const worker = await startChild(path.join(__dirname, 'worker.ts'), { logFile: path.join(dir, 'worker.log') });
  try {
    if (!fs.existsSync(file)) {
      const generated = await worker.ask<{ events: number; players: number }>(
        'generate',
        { file, catalogFile: BENCH_CATALOG_FILE, events: count },
        60 * 60_000,
      );
      console.log(
        `${generated.events.toLocaleString('en-US')} player events of ${generated.players.toLocaleString('en-US')} players written`,
      );
    }
    const s = await worker.ask<Simulated>('simulate', { file }, 60 * 60_000);
    const n = (x: number) => Math.round(x).toLocaleString('en-US');
    console.log(
      `simulate: ${n(s.events)} events read, ${n(s.eventsReplayed)} player events replayed (${n(s.actionsRedecided)} actions decided again) in ${(s.ms / 1000).toFixed(1)} s: ${n(s.eventsPerSec)} events/s (${n(s.events / (s.cpuMs / 1000))} per CPU second)`,
    );
    console.log(
      `  CPU ${(s.cpuMs / 1000).toFixed(1)} s (all threads), peak RSS ${(s.maxRssBytes / 1024 ** 2).toFixed(0)} MiB; ${n(s.playersAffected)} players affected, ${s.problems} problems`,
    );
  } finally {
    await worker.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
