/**
 * What the start-up integrity check (PRAGMA quick_check, docs/operations.md "Operating it") costs: writes a
 * log of `events` events (default 1,000,000) the way figure 4 does, then times opening the
 * store with and without the check. `npx tsx bench/quick-check.ts [events]`
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { startChild } from './ipc';
import { BENCH_CATALOG_FILE } from './workload';

async function main(): Promise<void> {
  const events = Number(process.argv[2] ?? 1_000_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quick-check-'));
  const file = path.join(dir, 'events.sqlite');
  try {
    const worker = await startChild(path.join(__dirname, 'worker.ts'), { logFile: path.join(dir, 'worker.log') });
    const generated = await worker.ask<{ events: number; fileBytes: number }>(
      'generate',
      { file, catalogFile: BENCH_CATALOG_FILE, events },
      60 * 60_000,
    );
    await worker.stop();
    const open = (checkIntegrity: boolean): number => {
      const started = performance.now();
      const store = new SqliteEventStore(file, { checkIntegrity });
      const ms = performance.now() - started;
      void store.close();
      return ms;
    };
    // Each timed twice, the second with the file in the page cache, as at a restart.
    const rows = [false, true, false, true].map((check) => ({ check, ms: open(check) }));
    console.log(`${generated.events} events, file ${(fs.statSync(file).size / 1024 ** 2).toFixed(0)} MiB`);
    for (const { check, ms } of rows)
      console.log(`  open ${check ? 'with quick_check' : 'without check  '}: ${ms.toFixed(0)} ms`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
