/**
 * How the service runs `POST /v1/audit/simulate`: one simulation at a time per deployment
 * (read-api/audit/runs.ts), going on when its client leaves (its report is kept for GET
 * /v1/audit/simulate), stopped between pages of the log when its heap passes SIMULATE_MAX_HEAP_MB
 * or the service stops. The
 * embedded log, when long, is split between worker threads, each replaying one share of the
 * players (replayLog's `share`) on its own read-only connection: a long log's simulation uses the
 * machine's cores, and leaves the service's event loop to its requests. When the shares do not
 * agree on a limited trigger (a draft that changes who takes its activations), or a thread
 * fails, the log is replayed again whole, on this thread, up to the same position.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import type { Worker } from 'node:worker_threads';
import type { Simulation } from '../shared/adapters/http/wire-shapes';
import type { RunConfig } from '../shared/adapters/config/env';
import type { EventStore } from '../shared/adapters/event-store/port';
import { startWorker } from '../shared/adapters/worker-thread';
import type { ServiceMetrics } from '../shared/adapters/metrics';
import type { AuditDeps } from '../read-api/audit/routes';
import type { AuditRuns } from '../read-api/audit/runs';
import type { Catalog } from '../domain/catalog/schema';
import { ERRORS, refuse } from '../domain/errors';
import { ok } from '../domain/result';
import { reportOf, sharesAgree, type ReplayPart, type Share } from '../command-api/replay/replay';
import { replayLog, type SimulateOptions } from '../command-api/replay/replay-log';
import type { SimulationReport } from '../command-api/replay/report';

/** More threads than this gained nothing measurable; fewer than two cores replay whole. */
const MAX_SHARES = 4;
/**
 * A shorter log is replayed whole: each thread's start (loading the code, then running it cold)
 * costs about 1.3 s, which two threads win back from about 400,000 events (on 2 cores: 0.4 s
 * against 1.7 s over 50,000 events, 8.4 to 10 s against 6.7 to 7.5 s over 1,000,000).
 */
const SPLIT_FROM_EVENTS = 400_000;

/** Why a simulation stopped before its answer: the service stops, or its heap passed the ceiling. */
export class SimulationStopped extends Error {
  constructor(readonly reason: 'stopping' | 'memory') {
    super(
      reason === 'memory'
        ? 'its heap passed SIMULATE_MAX_HEAP_MB; simulate some players (players) or a smaller draft'
        : 'the service stopped',
    );
  }
}

/**
 * Checked after each page of the log: throws once the service stops or the heap of this thread
 * holds more than `maxHeapBytes` (the replay's garbage included: it stops before node has to
 * collect a full heap over and over, then dies).
 */
export const stopWhen = (maxHeapBytes: number, signal?: AbortSignal) => (): void => {
  if (signal?.aborted) throw new SimulationStopped('stopping');
  if (v8.getHeapStatistics().used_heap_size > maxHeapBytes) throw new SimulationStopped('memory');
};

/**
 * The route's simulate: one at a time per deployment (9032 for the next meanwhile), its progress
 * and outcome kept in `runs`; 9033 when stopped (for memory, or the service stops: `stopping`).
 * Each outcome is counted.
 */
export function simulationRunner(
  config: RunConfig,
  events: EventStore,
  metrics: ServiceMetrics,
  runs: AuditRuns,
  stopping: AbortSignal,
): AuditDeps['simulate'] {
  return async (draft, options) => {
    const runUid = randomUUID();
    if (!(await runs.begin('simulate', runUid, { eventsReplayed: 0, position: 0, head: 0 }))) {
      metrics.simulated('busy');
      return refuse(ERRORS.SIMULATION_RUNNING);
    }
    try {
      const report = await simulateInShares(config, events, draft, {
        ...options,
        signal: stopping,
        onProgress: (eventsReplayed, position, head) => runs.report('simulate', { eventsReplayed, position, head }),
      });
      metrics.simulated('answered');
      await runs.end('simulate', runUid, { result: report });
      // The engine's report answered as the wire's Simulation, as it is: tsc checks here that it fits.
      return ok<Simulation>(report);
    } catch (error) {
      await runs.end('simulate', runUid, { error: (error as Error).message });
      if (!(error instanceof SimulationStopped)) throw error;
      metrics.simulated(error.reason);
      return refuse(ERRORS.SIMULATION_STOPPED, error.message);
    }
  };
}

/** What a share's thread is given (app/simulate-share-worker.ts). */
export interface ShareJob {
  config: RunConfig;
  draft: Catalog;
  share: Share;
  head: number;
  top: number;
  /** Its part of SIMULATE_MAX_HEAP_MB: each thread has a heap of its own. */
  maxHeapBytes: number;
}

/** What a share's thread answers: its part of the report, that its heap passed its part of the ceiling, or why it could not. */
export type ShareAnswer = { part: ReplayPart } | { overMemory: true } | { error: string };

/**
 * A simulation, split between threads on the embedded log from `splitFrom` events (KurrentDB's
 * log is replayed whole on this thread). Rejects with SimulationStopped when stopped.
 */
export async function simulateInShares(
  config: RunConfig,
  events: EventStore,
  draft: Catalog,
  /**
   * As the route gives them (a replay from a date is a recompute's, on one thread); `signal` aborts
   * when the service stops; `onProgress` tells how far a replay on this thread got.
   */
  {
    signal,
    onProgress: report,
    ...options
  }: Pick<SimulateOptions, 'players' | 'top'> & {
    signal?: AbortSignal;
    onProgress?: (events: number, position: number, head: number) => void;
  },
  /** The log's length from which it is split. */
  splitFrom = SPLIT_FROM_EVENTS,
): Promise<SimulationReport> {
  const count = config.eventStoreUrl ? 1 : Math.min(MAX_SHARES, os.availableParallelism());
  const head = await events.headPosition();
  const stopHere = stopWhen(config.simulateMaxHeapBytes, signal);
  const onProgress = (events: number, position: number, head: number) => {
    stopHere();
    report?.(events, position, head);
  };
  const stopped = stopWhen(Number.POSITIVE_INFINITY, signal);
  // The service stopped while the draft was read.
  stopped();
  // A replay of some players reads few events: not worth the threads either.
  if (count < 2 || options.players || head < splitFrom)
    return (await replayLog(events, draft, { players: options.players, recompute: false, head, onProgress })).report(
      options.top,
    );
  // A thread that failed (the store busy, memory short) leaves the replay to this one, which
  // answers its own failure as any read of the store does.
  const threads: Worker[] = [];
  const stopThreads = () => Promise.all(threads.map((thread) => thread.terminate()));
  const stopWhenAborted = () => void stopThreads();
  signal?.addEventListener('abort', stopWhenAborted, { once: true });
  const maxHeapBytes = Math.floor(config.simulateMaxHeapBytes / count);
  const parts = await Promise.all(
    Array.from({ length: count }, (_, index) =>
      replayShare({ config, draft, share: { index, count }, head, top: options.top, maxHeapBytes }, threads),
    ),
  )
    .catch(async (error: unknown) => {
      await stopThreads();
      // Stopped for memory: the whole replay would need more.
      if (error instanceof SimulationStopped) throw error;
      stopped();
      return null;
    })
    .finally(() => signal?.removeEventListener('abort', stopWhenAborted));
  stopped();
  if (parts && sharesAgree(draft, parts)) return reportOf(parts, options.top);
  return (await replayLog(events, draft, { recompute: false, head, onProgress })).report(options.top);
}

/** The part of a share's thread, which is added to `threads` (a thread that cannot start rejects too). */
function replayShare(job: ShareJob, threads: Worker[]): Promise<ReplayPart> {
  return new Promise((resolve, reject) => {
    const worker = startWorker(path.join(__dirname, `simulate-share-worker${path.extname(__filename)}`), job);
    threads.push(worker);
    worker.once('message', (answer: ShareAnswer) =>
      'part' in answer
        ? resolve(answer.part)
        : reject('overMemory' in answer ? new SimulationStopped('memory') : new Error(answer.error)),
    );
    worker.once('error', reject);
    // Once it has answered, the promise is settled and this changes nothing.
    worker.once('exit', (code) => reject(new Error(`a simulation's thread exited (${code}) before its answer`)));
  });
}
