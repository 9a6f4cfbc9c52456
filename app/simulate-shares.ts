/**
 * A simulation of the embedded log split between worker threads, each replaying one share of the
 * players (replayLog's `share`) on its own read-only connection: a long log's simulation uses the
 * machine's cores, and leaves the service's event loop to its requests. When the shares do not
 * agree on a limited trigger (a draft that changes who takes its activations), or a thread
 * fails, the log is replayed again whole, on this thread, up to the same position.
 */
import os from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { Simulation } from '../shared/adapters/http/wire-shapes';
import type { RunConfig } from '../shared/adapters/config/env';
import type { EventStore } from '../shared/adapters/event-store/port';
import { startWorker } from '../shared/adapters/worker-thread';
import type { Catalog } from '../shared/domain/catalog/schema';
import {
  replayLog,
  reportOf,
  sharesAgree,
  type ReplayPart,
  type Share,
  type SimulateOptions,
} from '../command-api/simulate/replay';

/** More threads than this gained nothing measurable; fewer than two cores replay whole. */
const MAX_SHARES = 4;
/**
 * A shorter log is replayed whole: each thread's start (loading the code, then running it cold)
 * costs about 1.3 s, which two threads win back from about 400,000 events (on 2 cores: 0.4 s
 * against 1.7 s over 50,000 events, 8.4 to 10 s against 6.7 to 7.5 s over 1,000,000).
 */
const SPLIT_FROM_EVENTS = 400_000;

/** What a share's thread is given (app/simulate-share-worker.ts). */
export interface ShareJob {
  config: RunConfig;
  draft: Catalog;
  share: Share;
  head: number;
  top: number;
}

/** What a share's thread answers: its part of the report, or why it could not. */
export type ShareAnswer = { part: ReplayPart } | { error: string };

export async function simulateInShares(
  config: RunConfig,
  events: EventStore,
  draft: Catalog,
  /** As the route gives them (a replay from a date is a recompute's, on one thread). */
  options: Pick<SimulateOptions, 'players' | 'top'>,
  /** The log's length from which it is split. */
  splitFrom = SPLIT_FROM_EVENTS,
): Promise<Simulation> {
  const count = Math.min(MAX_SHARES, os.availableParallelism());
  const head = await events.headPosition();
  // A replay of some players reads few events: not worth the threads either.
  if (count < 2 || options.players || head < splitFrom)
    return (await replayLog(events, draft, { players: options.players, recompute: false, head })).report(options.top);
  // A thread that failed (the store busy, memory short) leaves the replay to this one, which
  // answers its own failure as any read of the store does.
  const threads: Worker[] = [];
  const parts = await Promise.all(
    Array.from({ length: count }, (_, index) =>
      replayShare({ config, draft, share: { index, count }, head, top: options.top }, threads),
    ),
  ).catch(() => null);
  if (!parts) await Promise.all(threads.map((thread) => thread.terminate()));
  if (parts && sharesAgree(draft, parts)) return reportOf(parts, options.top);
  return (await replayLog(events, draft, { recompute: false, head })).report(options.top);
}

/** The part of a share's thread, which is added to `threads` (a thread that cannot start rejects too). */
function replayShare(job: ShareJob, threads: Worker[]): Promise<ReplayPart> {
  return new Promise((resolve, reject) => {
    const worker = startWorker(path.join(__dirname, `simulate-share-worker${path.extname(__filename)}`), job);
    threads.push(worker);
    worker.once('message', (answer: ShareAnswer) =>
      'part' in answer ? resolve(answer.part) : reject(new Error(answer.error)),
    );
    worker.once('error', reject);
    // Once it has answered, the promise is settled and this changes nothing.
    worker.once('exit', (code) => reject(new Error(`a simulation's thread exited (${code}) before its answer`)));
  });
}
