/**
 * Figure 4: rebuild of the read models from the log, and a simulation (what-if) over the same log.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BENCH_CATALOG_FILE } from '../workload';
import { RESULTS_DIR, type Context, spawn, row, log } from './context';

/** What the worker measured of the Overview's requests after the rebuild. */
interface OverviewReads {
  p50Ms: number;
  p99Ms: number;
  deliverables366DaysP50Ms: number;
}

export async function figure4(ctx: Context): Promise<void> {
  const { config } = ctx;
  log(`figure 4: writing ${config.rebuildEvents.toLocaleString('en')} events, then rebuilding the read models`);
  const worker = await spawn(ctx, 'worker.ts', {
    logFile: path.join(ctx.tmp, 'worker-fig4.log'),
    execArgv: ['--max-old-space-size=4096'],
  });
  try {
    const file = path.join(ctx.tmp, 'fig4', 'events.sqlite');
    const gen = await worker.ask<Record<string, number>>('generate', {
      file,
      catalogFile: BENCH_CATALOG_FILE,
      events: config.rebuildEvents,
      perPlayer: config.rebuildEventsPerPlayer,
    });
    log(
      `  generated ${gen.events} events for ${gen.players} players in ${(gen.ms / 1000).toFixed(1)} s (${gen.eventsPerSec.toFixed(0)}/s, ~${gen.avgDataBytes.toFixed(0)} B of data each, file ${(gen.fileBytes / 1024 ** 2).toFixed(0)} MiB)`,
    );
    // The analytics projector's share of the rebuild: the same log without it, just before.
    const without = await worker.ask<Record<string, number>>('rebuild', { file, leaveOut: ['analytics'] });
    // Events per CPU second (all of the worker's threads) as well: on a shared machine, wall time says little.
    const perCpuSecond = (r: Record<string, number>) => (r.events / (r.cpuMs / 1000)).toFixed(0);
    log(
      `  rebuilt without the analytics projector: ${without.eventsPerSec.toFixed(0)} events/s, ${perCpuSecond(without)} per CPU second`,
    );
    const profileFile = path.join(RESULTS_DIR, 'profile-rebuild.cpuprofile');
    const rebuilt = await worker.ask<Record<string, number> & { overview: OverviewReads }>('rebuild', {
      file,
      overviewLoads: 20,
      ...(config.profile ? { profileFile } : {}),
    });
    if (config.profile) ctx.profiles.push(profileFile);
    log(
      `  rebuilt ${rebuilt.events} events in ${(rebuilt.ms / 1000).toFixed(1)} s: ${rebuilt.eventsPerSec.toFixed(0)} events/s, ${perCpuSecond(rebuilt)} per CPU second (${rebuilt.scoreDocs} score documents)`,
    );
    log(
      `  the Overview's requests over 90 days: p50 ${rebuilt.overview.p50Ms.toFixed(2)} ms, p99 ${rebuilt.overview.p99Ms.toFixed(2)} ms; deliverables over 366 days p50 ${rebuilt.overview.deliverables366DaysP50Ms.toFixed(2)} ms`,
    );
    // What-if over the same log: every action decided again under a draft (bench/seed.ts
    // purchaseDoubledDraft), in a process of its own, as in the service, where the projectors run
    // on another thread: after two rebuilds in the same process, the replay took a third more time
    // (their heap, and their use of the code both share).
    const simulator = await spawn(ctx, 'worker.ts', { logFile: path.join(ctx.tmp, 'worker-fig4-simulate.log') });
    const simulated = await simulator.ask<Record<string, number>>('simulate', { file }).finally(() => simulator.stop());
    log(
      `  simulated ${simulated.events} events (${simulated.actionsRedecided} actions decided again) in ${(simulated.ms / 1000).toFixed(1)} s: ${simulated.eventsPerSec.toFixed(0)} events/s, ${perCpuSecond(simulated)} per CPU second; ${simulated.playersAffected} players affected`,
    );
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
    row(ctx, 4, 'event file generation', gen.ms / 1000, 's');
    row(ctx, 4, 'rebuild without the analytics projector', without.eventsPerSec, 'events/s');
    row(ctx, 4, 'rebuild', rebuilt.eventsPerSec, 'events/s', { op: '>=', limit: 100_000, shown: '100,000' });
    row(ctx, 4, 'Overview request p50 (7 series, 90 days, no HTTP)', rebuilt.overview.p50Ms, 'ms', {
      op: '<=',
      limit: 50,
    });
    row(ctx, 4, 'simulate (a draft doubling purchase points)', simulated.eventsPerSec, 'events/s', {
      op: '>=',
      limit: 100_000,
      shown: '100,000',
    });
    ctx.details.figure4 = { generate: gen, rebuildWithoutAnalytics: without, rebuild: rebuilt, simulate: simulated };
  } finally {
    await worker.stop();
  }
}
