/**
 * Figure 5: a player with a long history vs new players.
 */
import fs from 'node:fs';
import path from 'node:path';
import { newAgent, percentile, send, sortedOf } from '../load';
import { actionBody, BENCH_CATALOG_FILE, playerId, prng, runTag } from '../workload';
import { RESULTS_DIR, type Context, spawn, post, row, log, startServer, Outcomes } from './context';

export async function figure5(ctx: Context): Promise<void> {
  const { config } = ctx;
  log(`figure 5: seeding one player with ${config.historyEvents.toLocaleString('en')} events (real decider)`);
  const dataDir = fs.mkdtempSync(path.join(ctx.tmp, 'fig5-'));
  const tag = runTag();
  const veteran = playerId(tag, 0);
  const worker = await spawn(ctx, 'worker.ts', { logFile: path.join(ctx.tmp, 'worker-fig5.log') });
  let seeded: Record<string, number>;
  try {
    seeded = await worker.ask<Record<string, number>>('seed-history', {
      dataDir,
      catalogFile: BENCH_CATALOG_FILE,
      player: veteran,
      events: config.historyEvents,
    });
  } finally {
    await worker.stop();
  }
  log(`  seeded ${seeded.events} events in ${(seeded.ms / 1000).toFixed(1)} s; starting the service over them`);
  const server = await startServer(ctx, 'fig5', { dataDir });
  const port = server.ready.port as number;
  const startupMs = server.ready.startupMs as number;
  const agent = newAgent(1);
  const random = prng(5);
  let seq = 0;
  let fresh = 1;
  const outcomes = new Outcomes();
  const timed = async (player: string): Promise<number> => {
    const body = actionBody(player, `${tag}-q${seq++}`, random);
    const t0 = performance.now();
    const answer = await send(agent, port, post(JSON.stringify(body)));
    const ms = performance.now() - t0;
    outcomes.addAnswer(answer);
    return ms;
  };
  const firstMs = await timed(veteran);
  for (let i = 0; i < 20; i++) {
    await timed(veteran);
    await timed(playerId(tag, fresh++));
  }
  const veteranMs: number[] = [];
  const newMs: number[] = [];
  const profileFile = path.join(RESULTS_DIR, 'profile-history.cpuprofile');
  if (config.profile) await server.ask('profile-start', { intervalUs: 100 });
  for (let i = 0; i < config.historyRequests; i++) {
    veteranMs.push(await timed(veteran));
    newMs.push(await timed(playerId(tag, fresh++)));
  }
  if (config.profile) {
    await server.ask('profile-stop', { file: profileFile });
    ctx.profiles.push(profileFile);
  }
  agent.destroy();
  await server.stop();
  const v = sortedOf(veteranMs);
  const f = sortedOf(newMs);
  const ratio = percentile(v, 50) / percentile(f, 50);
  log(
    `  p50 ${percentile(v, 50).toFixed(2)} ms (${seeded.events} events) vs ${percentile(f, 50).toFixed(2)} ms (new): ratio ${ratio.toFixed(2)}; first request ${firstMs.toFixed(0)} ms; startup ${(startupMs / 1000).toFixed(1)} s`,
  );
  row(ctx, 5, 'service start over the history', startupMs / 1000, 's');
  row(ctx, 5, 'first request, long history (cold)', firstMs, 'ms');
  row(ctx, 5, 'p50 long history', percentile(v, 50), 'ms');
  row(ctx, 5, 'p50 new player', percentile(f, 50), 'ms');
  row(ctx, 5, 'ratio long / new', ratio, '', { op: '<=', limit: 1.5 });
  ctx.details.figure5 = {
    historyEvents: seeded.events,
    seedMs: seeded.ms,
    startupMs,
    firstRequestMs: firstMs,
    requests: config.historyRequests,
    longHistory: { p50Ms: percentile(v, 50), p90Ms: percentile(v, 90), p99Ms: percentile(v, 99) },
    newPlayer: { p50Ms: percentile(f, 50), p90Ms: percentile(f, 90), p99Ms: percentile(f, 99) },
    ratio,
    outcomes,
  };
}
