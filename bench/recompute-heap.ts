/**
 * What a recompute's replay keeps in the heap, with and without REPLAY_PLAYERS_IN_MEMORY: replays
 * a log written by `bench/simulate.ts` (BENCH_LOG=DIR keeps it in DIR/events.sqlite) under the
 * draft with the purchase action's points doubled, as a recompute does (every player's
 * contributions and changed actions followed), then decides each player's PlayerRecomputed
 * without appending it. Prints the largest heap after a full collection, sampled every 10,000
 * events and after the decisions, the peak RSS and the time.
 * `npx tsx --expose-gc bench/recompute-heap.ts DIR [playersInMemory]` (no second argument: every
 * player in memory, as before the ceiling).
 */
import path from 'node:path';
import { decideRecompute } from '../command-api/recompute/decider';
import { replayLog } from '../command-api/replay/replay-log';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { purchaseDoubledDraft } from './seed';

const SAMPLE_EVERY = 10_000;

async function main(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const dir = process.argv[2];
  const playersInMemory = process.argv[3] === undefined ? undefined : Number(process.argv[3]);
  const events = new SqliteEventStore(path.join(dir, 'events.sqlite'), { readonly: true });
  const draft = purchaseDoubledDraft();
  let peak = 0;
  const sample = () => {
    gc();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  };
  let sampled = 0;
  const started = performance.now();
  const replay = await replayLog(events, draft, {
    playersInMemory,
    onProgress: (read) => {
      if (read - sampled < SAMPLE_EVERY) return;
      sampled = read;
      sample();
    },
  });
  const report = replay.report(100);
  let changed = 0;
  for (const player of replay.replayed().values()) {
    const decided = decideRecompute({ recomputeUid: 'bench', catalogVersion: 2 }, player, {
      now: Date.now(),
      random: Math.random,
      newUid: () => 'bench',
      catalog: draft,
    });
    if (decided.ok && decided.value.answer) changed += 1;
  }
  sample();
  const ms = performance.now() - started;
  replay.replayed().close();
  await events.close();
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
  console.log(
    `players in memory: ${playersInMemory ?? 'all'}; ${report.eventsReplayed.toLocaleString('en-US')} player events replayed, ${changed.toLocaleString('en-US')} players to recompute; heap peak ${mib(peak)} (after a full collection), peak RSS ${mib(process.resourceUsage().maxRSS * 1024)}, ${(ms / 1000).toFixed(1)} s`,
  );
}

void main();
