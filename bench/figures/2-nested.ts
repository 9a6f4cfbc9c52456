/**
 * Figure 2: nested actions, batches of 100 per request.
 */
import path from 'node:path';
import { closedLoop } from '../load';
import { mixedBodies } from '../workload';
import {
  RESULTS_DIR,
  type Context,
  spawn,
  post,
  row,
  log,
  summaryOf,
  startServer,
  Outcomes,
  CpuMeter,
} from './context';

export async function figure2(ctx: Context): Promise<void> {
  const { config } = ctx;
  log(
    `figure 2: nested actions, ${config.nestedBatch} per request, ${config.nestedConnections} connections, ${config.durationMs / 1000} s`,
  );
  const server = await startServer(ctx, 'fig2');
  const outcomes = new Outcomes();
  const bodies = mixedBodies({ players: config.players, seed: 2, nested: config.nestedBatch });
  const profileFile = path.join(RESULTS_DIR, 'profile-nested.cpuprofile');
  const cpu = new CpuMeter(server, config.profile ? profileFile : undefined);
  const run = await closedLoop({
    port: server.ready.port as number,
    connections: config.nestedConnections,
    warmupMs: config.warmupMs,
    durationMs: config.durationMs,
    next: () => post(bodies()),
    onAnswer: (_spec, answer) => outcomes.addAnswer(answer),
    onWindow: cpu.onWindow,
  });
  await cpu.settled();
  if (config.profile) ctx.profiles.push(profileFile);
  await server.stop();
  const s = summaryOf(run);
  const actionsPerSec = outcomes.actions / (run.elapsedMs / 1000);
  const cpuUsPerAction = cpu.micros / outcomes.actions;
  log(
    `  nested: ${actionsPerSec.toFixed(0)} actions/s (${s.perSecond.toFixed(1)} requests/s, request p50 ${s.p50Ms.toFixed(0)} ms), server CPU ${cpuUsPerAction.toFixed(0)} us/action; outcomes ${JSON.stringify(outcomes)}`,
  );
  row(ctx, 2, 'nested throughput', actionsPerSec, 'actions/s', { op: '>=', limit: 10_000, shown: '10,000' });
  row(ctx, 2, 'server CPU per nested action', cpuUsPerAction, 'us');

  // What the event store alone allows: an action's one durable append, with nothing else.
  const worker = await spawn(ctx, 'worker.ts', { logFile: path.join(ctx.tmp, 'worker-fig2.log') });
  let floor: Record<string, number>;
  try {
    floor = await worker.ask<Record<string, number>>('store-floor', {
      file: path.join(ctx.tmp, 'fig2-floor', 'events.sqlite'),
      concurrency: 100,
      players: config.players,
      durationMs: Math.min(config.durationMs, 10_000),
    });
  } finally {
    await worker.stop();
  }
  log(
    `  event store alone (one durable append of player and reference per action, 100 in flight): ${floor.actionsPerSec.toFixed(0)} actions/s, ${floor.cpuUsPerAction.toFixed(0)} us CPU per action`,
  );
  row(ctx, 2, 'event store alone, 1 append/action', floor.actionsPerSec, 'actions/s');
  ctx.details.figure2 = {
    connections: config.nestedConnections,
    batch: config.nestedBatch,
    actionsPerSec,
    cpuUsPerAction,
    requests: s,
    outcomes,
    storeFloor: floor,
  };
}
