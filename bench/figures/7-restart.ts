/**
 * Figure 7: restart over a large log.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Child } from '../ipc';
import { BENCH_CATALOG_FILE } from '../workload';
import { type Context, spawn, row, log, startServer } from './context';

export async function figure7(ctx: Context): Promise<void> {
  const { config } = ctx;
  log(`figure 7: a restart of the service over ${config.restartEvents.toLocaleString('en')} events`);
  const dataDir = fs.mkdtempSync(path.join(ctx.tmp, 'fig7-'));
  const worker = await spawn(ctx, 'worker.ts', {
    logFile: path.join(ctx.tmp, 'worker-fig7.log'),
    execArgv: ['--max-old-space-size=4096'],
  });
  let gen: Record<string, number>;
  try {
    gen = await worker.ask<Record<string, number>>('generate', {
      file: path.join(dataDir, 'events.sqlite'),
      catalogFile: BENCH_CATALOG_FILE,
      events: config.restartEvents,
      perPlayer: config.rebuildEventsPerPlayer,
    });
  } finally {
    await worker.stop();
  }
  log(
    `  generated ${gen.events} events for ${gen.players} players; first start (builds the read models from the log and keeps them in their file)`,
  );
  const first = await startedUntilCaughtUp(ctx, 'fig7-first', dataDir);
  await first.child.stop();
  const again = await startedUntilCaughtUp(ctx, 'fig7-restart', dataDir);
  await again.child.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  log(
    `  first start ${(first.ms / 1000).toFixed(1)} s; restart ${(again.ms / 1000).toFixed(2)} s (process start to answering, read models at the log's head; ${(again.startupMs / 1000).toFixed(2)} s of it in startService, the rest loading the code)`,
  );
  row(ctx, 7, 'first start (read models built from the log)', first.ms / 1000, 's');
  row(ctx, 7, 'restart to ready', again.ms / 1000, 's', { op: '<=', limit: 5 });
  ctx.details.figure7 = {
    generate: gen,
    firstStartMs: first.ms,
    restartMs: again.ms,
    restartStartServiceMs: again.startupMs,
  };
}

/** Starts the service over `dataDir`; how long from spawning it until it answers with its read models at the log's head. */
async function startedUntilCaughtUp(
  ctx: Context,
  name: string,
  dataDir: string,
): Promise<{ child: Child; ms: number; startupMs: number }> {
  const spawned = performance.now();
  const child = await startServer(ctx, name, { dataDir });
  for (;;) {
    const stats = await child.ask<{ projectedPosition: number; headPosition: number }>('stats');
    if (stats.projectedPosition >= stats.headPosition) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { child, ms: performance.now() - spawned, startupMs: child.ready.startupMs as number };
}
