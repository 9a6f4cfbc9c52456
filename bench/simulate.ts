/**
 * What a simulation costs, alone: figure 4's simulation row (`npm run bench`) without the rest of
 * the figure. Writes a log of `events` events (default 1,000,000) the way figure 4 does, then has
 * the bench's worker replay it under the draft with the purchase action's points doubled (every
 * action decided again, as `POST /v1/audit/simulate` does) and prints the rate.
 * `npx tsx bench/simulate.ts [events]`; with BENCH_PROFILE=1, also where its CPU time goes. With
 * BENCH_LOG=FILE the log is written there once and kept, and a later run replays that same log
 * (before/after comparisons on one log, without writing it again).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChild } from './ipc';
import { formatSummary, projectInclusive, summarizeProfile, type CpuProfile } from './profile';
import { BENCH_CATALOG_FILE } from './workload';

interface Simulated {
  events: number;
  ms: number;
  eventsPerSec: number;
  cpuMs: number;
  heapGrowthBytes: number;
  eventsReplayed: number;
  actionsRedecided: number;
  playersAffected: number;
  problems: number;
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 1_000_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'simulate-bench-'));
  const kept = process.env.BENCH_LOG;
  const file = kept ?? path.join(dir, 'events.sqlite');
  const worker = await startChild(path.join(__dirname, 'worker.ts'), { logFile: path.join(dir, 'worker.log') });
  try {
    if (!kept || !fs.existsSync(kept)) {
      const generated = await worker.ask<{ events: number; players: number }>(
        'generate',
        { file, catalogFile: BENCH_CATALOG_FILE, events: count },
        60 * 60_000,
      );
      console.log(
        `${generated.events.toLocaleString('en-US')} player events of ${generated.players.toLocaleString('en-US')} players written`,
      );
    }
    const profileFile = process.env.BENCH_PROFILE ? path.join(dir, 'simulate.cpuprofile') : undefined;
    const s = await worker.ask<Simulated>('simulate', { file, profileFile }, 60 * 60_000);
    const n = (x: number) => Math.round(x).toLocaleString('en-US');
    console.log(
      `simulate: ${n(s.events)} events read, ${n(s.eventsReplayed)} player events replayed (${n(s.actionsRedecided)} actions decided again) in ${(s.ms / 1000).toFixed(1)} s: ${n(s.eventsPerSec)} events/s (${n(s.events / (s.cpuMs / 1000))} per CPU second)`,
    );
    if (profileFile) {
      const profile = JSON.parse(fs.readFileSync(profileFile, 'utf8')) as CpuProfile;
      console.log(formatSummary(summarizeProfile(profile, 25), projectInclusive(profile, 25)));
    }
    console.log(
      `  CPU ${(s.cpuMs / 1000).toFixed(1)} s, heap +${(s.heapGrowthBytes / 1024 ** 2).toFixed(0)} MiB; ${n(s.playersAffected)} players affected, ${s.problems} problems`,
    );
  } finally {
    await worker.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
