/**
 * Figure 3: projection lag at a fixed rate.
 */
import { newAgent, openLoop, percentile, send, sortedOf, type RequestSpec } from '../load';
import { actionBody, mixedActions, playerId, prng, runTag, withNested, type ActionBody } from '../workload';
import { HEADERS, type Context, post, row, log, summaryOf, startServer } from './context';

export async function figure3(ctx: Context): Promise<void> {
  const { config } = ctx;
  const batch = config.lagBatch;
  const requestRate = config.lagRate / batch;
  log(
    `figure 3: projection lag at ${config.lagRate} actions/s (${requestRate} requests/s of ${batch} action${batch > 1 ? 's' : ''}) for ${config.lagDurationMs / 1000} s`,
  );
  const server = await startServer(ctx, 'fig3', { env: { BENCH_TRACK_LAG: '1' } });
  const port = server.ready.port as number;
  const one = mixedActions({ players: config.players, seed: 3 });
  // A failed outer action fails the whole request, so a batch opens with one that cannot fail.
  const body = (outer: ActionBody) => post(JSON.stringify(withNested(outer, batch - 1, one)));
  // Warm-up at the same rate, not measured.
  await openLoop({
    port,
    rate: requestRate,
    durationMs: config.warmupMs,
    connections: config.connections,
    next: () => body(one(batch > 1 ? 'play' : undefined)),
  });

  // A sample of acknowledgements is followed by a leaderboard read: the sampled request opens
  // with a purchase by a fresh player, who must be in "Most purchases" once the write is acknowledged.
  const tag = runTag();
  const random = prng(33);
  const sampleEvery = Math.max(1, Math.round(requestRate / 5));
  const readAgent = newAgent(4);
  const visibility: { firstRead: boolean; msAfterAck: number; reads: number }[] = [];
  const followUps: Promise<void>[] = [];
  let n = 0;
  await server.ask('lag-start');
  const run = await openLoop({
    port,
    rate: requestRate,
    durationMs: config.lagDurationMs,
    connections: config.connections,
    next: () => {
      n++;
      if (n % sampleEvery !== 0) return body(one(batch > 1 ? 'play' : undefined));
      const player = playerId(tag, n);
      return { ...body(actionBody(player, `${tag}-v${n}`, random, 'purchase')), sample: player } as RequestSpec;
    },
    onAnswer: (spec, answer, ackAt) => {
      const player = (spec as RequestSpec & { sample?: string }).sample;
      if (!player || answer.status !== 200) return;
      followUps.push(
        (async () => {
          for (let reads = 1; reads <= 1000; reads++) {
            const r = await send(readAgent, port, {
              method: 'GET',
              path: `/v1/admin/leaderboards/lb-buyers?top=1&playerId=${player}`,
              headers: HEADERS,
            });
            const seen = r.status === 200 && (JSON.parse(r.body) as { data: { player?: unknown }[] }).data[0]?.player;
            if (seen) {
              visibility.push({ firstRead: reads === 1, msAfterAck: performance.now() - ackAt, reads });
              return;
            }
          }
          visibility.push({ firstRead: false, msAfterAck: Number.POSITIVE_INFINITY, reads: 1000 });
        })(),
      );
    },
  });
  await Promise.all(followUps);
  readAgent.destroy();
  const lags = sortedOf(await server.ask<number[]>('lag-stop'));
  await server.stop();
  const s = summaryOf(run);
  // Answers within the window: when the service cannot keep up, the backlog drains after it.
  const achieved = (run.answeredInWindow * batch) / (config.lagDurationMs / 1000);
  const firstRead = visibility.filter((v) => v.firstRead).length;
  log(
    `  lag commit->projected: p50 ${percentile(lags, 50).toFixed(2)} ms, p99 ${percentile(lags, 99).toFixed(2)} ms over ${lags.length} appends; ` +
      `${achieved.toFixed(0)} actions/s answered in the window, request p50 ${s.p50Ms.toFixed(1)} ms p99 ${s.p99Ms.toFixed(1)} ms; visible at first read after ack: ${firstRead}/${visibility.length}`,
  );
  row(ctx, 3, `achieved rate (asked ${config.lagRate}/s, ${batch}/request)`, achieved, 'actions/s');
  row(ctx, 3, 'request p99 at that rate', s.p99Ms, 'ms');
  row(ctx, 3, 'projection lag p50', percentile(lags, 50), 'ms');
  row(ctx, 3, 'projection lag p99', percentile(lags, 99), 'ms', { op: '<=', limit: 50 });
  row(ctx, 3, 'visible at 1st read after ack', visibility.length ? (100 * firstRead) / visibility.length : null, '%');
  ctx.details.figure3 = {
    rate: config.lagRate,
    batch,
    achieved,
    drainSeconds: (run.elapsedMs - config.lagDurationMs) / 1000,
    requests: s,
    lag: {
      what: 'player-stream append committed -> ProjectionRunner has handled its position',
      samples: lags.length,
      p50Ms: percentile(lags, 50),
      p90Ms: percentile(lags, 90),
      p99Ms: percentile(lags, 99),
      maxMs: lags[lags.length - 1],
    },
    ackToVisible: {
      samples: visibility.length,
      visibleAtFirstRead: firstRead,
      maxReads: Math.max(0, ...visibility.map((v) => v.reads)),
    },
  };
}
