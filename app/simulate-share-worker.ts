/**
 * One share of a simulation split between threads (app/simulate-shares.ts): the share's players
 * replayed under the draft on a read-only connection to the embedded log, their personal fields
 * read through the players' keys as the service reads them; answers its part of the report.
 */
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { replayLog } from '../command-api/replay/replay-log';
import { openPlayerKeyStore, withPersonalData } from './adapters';
import { SimulationStopped, stopWhen, type ShareAnswer, type ShareJob } from './simulate-shares';

const { config, draft, share, head, top, maxHeapBytes } = (workerData as { data: ShareJob }).data;
const answer = (message: ShareAnswer): void => parentPort!.postMessage(message);

async function main(): Promise<void> {
  const eventLog = new SqliteEventStore(path.join(config.dataDir, 'events.sqlite'), {
    readonly: true,
    busyTimeoutMs: config.sqliteBusyTimeoutMs,
  });
  const events = withPersonalData(eventLog, await openPlayerKeyStore(config));
  try {
    // The service's thread ends this one when the client leaves: only the heap is checked here.
    const replay = await replayLog(events, draft, {
      recompute: false,
      share,
      head,
      onProgress: stopWhen(maxHeapBytes),
    });
    answer({ part: replay.part(top) });
  } finally {
    await events.close();
  }
}

main().catch((error: unknown) =>
  answer(
    error instanceof SimulationStopped
      ? { overMemory: true }
      : { error: error instanceof Error ? error.message : String(error) },
  ),
);
