/**
 * Figure 1: process vs a bare express endpoint, 50 connections; and process again with webhooks on.
 */
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import YAML from 'yaml';
import { EVENT_SCHEMAS } from '../../domain/events';
import type { Child } from '../ipc';
import { closedLoop, mergeResults, openLoop, type LoadResult } from '../load';
import { BENCH_CATALOG_FILE, mixedBodies } from '../workload';
import {
  RESULTS_DIR,
  PROCESS_PATH,
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

/**
 * A webhook receiver that takes `delayMs` to answer each delivery, as a slow client system does.
 * It counts what it received, to show the deliveries ran while the load did.
 */
async function slowReceiver(
  delayMs: number,
): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let received = 0;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      setTimeout(() => res.writeHead(204).end(), delayMs);
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const { port } = receiver.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received: () => received,
    close: () => new Promise((resolve) => receiver.close(() => resolve())),
  };
}

/** A webhooks file sending every event type to `url`. */
function webhooksFile(dir: string, url: string): string {
  const file = path.join(dir, 'webhooks.yaml');
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  fs.writeFileSync(
    file,
    YAML.stringify({ webhooks: [{ name: 'bench', url, secret, events: Object.keys(EVENT_SCHEMAS) }] }),
  );
  return file;
}

/** The bench catalog without its streaks and caps: figure 1's comparison (BENCH_COMPARE_PLAIN). */
function plainCatalogFile(dir: string): string {
  const catalog = YAML.parse(fs.readFileSync(BENCH_CATALOG_FILE, 'utf8')) as Record<string, unknown> & {
    actions?: Record<string, unknown>[];
    deliverables?: Record<string, unknown>[];
  };
  delete catalog.streaks;
  for (const a of catalog.actions ?? []) delete a.caps;
  for (const d of catalog.deliverables ?? []) delete d.earnCaps;
  const file = path.join(dir, 'catalog-plain.yaml');
  fs.writeFileSync(file, YAML.stringify(catalog));
  return file;
}

/** One endpoint of figure 1, loaded in every round. */
interface Side {
  name: string;
  child: Child;
  port: number;
  next: () => string;
  cpu: CpuMeter;
  runs: LoadResult[];
  outcomes?: Outcomes;
}

export async function figure1(ctx: Context): Promise<void> {
  const { config } = ctx;
  // Profiling needs one contiguous process window; otherwise the endpoints alternate in rounds,
  // so that load from other processes on the machine weighs on all of them alike.
  const rounds = config.profile ? 1 : config.rounds;
  const slice = config.durationMs / rounds;
  log(
    `figure 1: bare express endpoint vs POST ${PROCESS_PATH}, with webhooks off and on (receiver answering in ${config.webhookReceiverMs} ms), ${config.connections} connections, ${config.durationMs / 1000} s each in ${rounds} alternating round${rounds > 1 ? 's' : ''}${config.profile ? ' (process CPU-profiled)' : ''}`,
  );
  const receiver = await slowReceiver(config.webhookReceiverMs);
  try {
    const bare = await spawn(ctx, 'bare-server.ts', { logFile: path.join(ctx.tmp, 'bare.log') });
    const server = await startServer(ctx, 'fig1');
    const hooked = await startServer(ctx, 'fig1-webhooks', {
      env: { BENCH_WEBHOOKS: webhooksFile(ctx.tmp, receiver.url) },
    });
    const profileFile = path.join(RESULTS_DIR, 'profile-process.cpuprofile');
    // The same request sequence for each side.
    const side = (name: string, child: Child, outcomes?: Outcomes, profile?: string): Side => ({
      name,
      child,
      port: child.ready.port as number,
      next: mixedBodies({ players: config.players, seed: 1 }),
      cpu: new CpuMeter(child, profile),
      runs: [],
      outcomes,
    });
    const sides = [
      side('bare', bare),
      side('process', server, new Outcomes(), config.profile ? profileFile : undefined),
      side('process, webhooks on', hooked, new Outcomes()),
    ];
    const extra: Child[] = [];
    if (config.comparePlain) {
      const plain = await startServer(ctx, 'fig1-plain', { env: { BENCH_CATALOG: plainCatalogFile(ctx.tmp) } });
      extra.push(plain);
      sides.push(side('process, no streaks or caps', plain, new Outcomes()));
    }
    if (config.compareEncryption) {
      const unencrypted = await startServer(ctx, 'fig1-unencrypted', { env: { BENCH_PLAIN_PERSONAL_DATA: '1' } });
      extra.push(unencrypted);
      sides.push(side('process, personal data not encrypted', unencrypted, new Outcomes()));
    }
    for (let round = 0; round < rounds; round++) {
      // The first round warms up each side fully; later ones only reopen their connections.
      const warmupMs = round === 0 ? config.warmupMs : Math.min(config.warmupMs, 500);
      for (const s of sides) {
        const outcomes = s.outcomes;
        s.runs.push(
          await closedLoop({
            port: s.port,
            connections: config.connections,
            warmupMs,
            durationMs: slice,
            next: () => post(s.next()),
            onAnswer: outcomes ? (_spec, answer) => outcomes.addAnswer(answer) : undefined,
            onWindow: s.cpu.onWindow,
          }),
        );
        await s.cpu.settled();
      }
    }
    const stats = await server.ask<Record<string, unknown>>('stats');
    await Promise.all([bare.stop(), hooked.stop()]);
    const [b, p, h] = sides.map((x) => summaryOf(mergeResults(x.runs)));
    for (const [x, summary] of sides.slice(0, 3).map((x, i) => [x, [b, p, h][i]] as const)) {
      log(
        `  ${x.name}: ${summary.perSecond.toFixed(0)} req/s, p50 ${summary.p50Ms.toFixed(2)} ms, p99 ${summary.p99Ms.toFixed(2)} ms; per round ${x.runs.map((r) => (r.requests / (r.elapsedMs / 1000)).toFixed(0)).join(', ')}${x.outcomes ? `; outcomes ${JSON.stringify(x.outcomes)}` : ''}`,
      );
    }
    log(`  webhook deliveries received during the run: ${receiver.received()}`);
    // CPU time per answer does not depend on how the load generator shares the cores.
    const [bareCpuUs, processCpuUs, hookedCpuUs] = sides
      .slice(0, 3)
      .map((x, i) => x.cpu.micros / [b, p, h][i].requests);
    log(
      `  server CPU per answer: bare ${bareCpuUs.toFixed(0)} us, process ${processCpuUs.toFixed(0)} us, with webhooks ${hookedCpuUs.toFixed(0)} us`,
    );
    if (config.profile) ctx.profiles.push(profileFile);
    const trace = (stats as { storeTrace?: Record<string, { calls: number; ms: number }> }).storeTrace ?? {};
    const actions = Math.max(1, sides[1].outcomes!.actions);
    for (const [kind, t] of Object.entries(trace).sort((x, y) => y[1].ms - x[1].ms)) {
      log(`  store ${kind}: ${(t.calls / actions).toFixed(2)} calls/action, ${(t.ms / t.calls).toFixed(3)} ms/call`);
    }

    const ratio = p.perSecond / b.perSecond;
    const webhooksRatio = h.perSecond / p.perSecond;
    row(ctx, 1, 'bare express endpoint', b.perSecond, 'req/s');
    row(ctx, 1, 'process throughput', p.perSecond, 'actions/s');
    row(ctx, 1, 'ratio process / bare', ratio, '', { op: '>=', limit: 0.5 });
    row(ctx, 1, 'process p50', p.p50Ms, 'ms');
    row(ctx, 1, 'process p99', p.p99Ms, 'ms', { op: '<=', limit: 50 });
    row(ctx, 1, 'server CPU per request: bare', bareCpuUs, 'us');
    row(ctx, 1, 'server CPU per action: process', processCpuUs, 'us');
    row(ctx, 1, 'process throughput, webhooks on', h.perSecond, 'actions/s');
    row(ctx, 1, 'ratio webhooks on / off', webhooksRatio, '', { op: '>=', limit: 0.9 });
    row(ctx, 1, 'process p99, webhooks on', h.p99Ms, 'ms');
    const plainSide = sides.find((x) => x.name === 'process, no streaks or caps');
    if (plainSide) {
      const plain = summaryOf(mergeResults(plainSide.runs));
      const plainCpuUs = plainSide.cpu.micros / plain.requests;
      log(
        `  streaks and caps: server CPU per action ${processCpuUs.toFixed(0)} us with, ${plainCpuUs.toFixed(0)} us without (${((processCpuUs / plainCpuUs - 1) * 100).toFixed(1)} %); without: ${plain.perSecond.toFixed(0)} actions/s, per round ${plainSide.runs.map((r) => (r.requests / (r.elapsedMs / 1000)).toFixed(0)).join(', ')}; outcomes ${JSON.stringify(plainSide.outcomes)}`,
      );
      row(ctx, 1, 'server CPU per action: no streaks or caps', plainCpuUs, 'us');
      row(ctx, 1, 'CPU per action with / without streaks and caps', processCpuUs / plainCpuUs, '', {
        op: '<=',
        limit: 1.1,
      });
      ctx.details.figure1Plain = { process: plain, cpuUs: plainCpuUs, outcomes: plainSide.outcomes };
    }
    const unencryptedSide = sides.find((x) => x.name === 'process, personal data not encrypted');
    if (unencryptedSide) {
      const unencrypted = summaryOf(mergeResults(unencryptedSide.runs));
      const unencryptedCpuUs = unencryptedSide.cpu.micros / unencrypted.requests;
      log(
        `  encryption, closed loop: server CPU per action ${processCpuUs.toFixed(0)} us with, ${unencryptedCpuUs.toFixed(0)} us without (${((processCpuUs / unencryptedCpuUs - 1) * 100).toFixed(1)} %); without: ${unencrypted.perSecond.toFixed(0)} actions/s, per round ${unencryptedSide.runs.map((r) => (r.requests / (r.elapsedMs / 1000)).toFixed(0)).join(', ')}; outcomes ${JSON.stringify(unencryptedSide.outcomes)}`,
      );
      row(ctx, 1, 'server CPU per action: personal data not encrypted', unencryptedCpuUs, 'us');
      row(ctx, 1, 'CPU per action with / without encryption, closed loop', processCpuUs / unencryptedCpuUs, '');
      const fixedRate = await encryptionAtFixedRate(
        ctx,
        sides[1],
        unencryptedSide,
        Math.min(p.perSecond, unencrypted.perSecond),
      );
      row(ctx, 1, 'CPU per action with / without encryption, fixed rate', fixedRate.ratio, '', {
        op: '<=',
        limit: 1.1,
      });
      ctx.details.figure1Unencrypted = {
        process: unencrypted,
        cpuUs: unencryptedCpuUs,
        outcomes: unencryptedSide.outcomes,
        fixedRate,
      };
    }
    ctx.details.figure1 = {
      connections: config.connections,
      players: config.players,
      rounds,
      bare: b,
      process: p,
      processWithWebhooks: h,
      ratio,
      webhooksRatio,
      webhookReceiverMs: config.webhookReceiverMs,
      webhookDeliveries: receiver.received(),
      bareCpuUs,
      processCpuUs,
      hookedCpuUs,
      outcomes: sides[1].outcomes,
      serverStats: stats,
      profiled: config.profile,
    };
    await Promise.all([server.stop(), ...extra.map((c) => c.stop())]);
  } finally {
    await receiver.close();
  }
}

/**
 * Share of the slower service's closed-loop rate at which both are then loaded: below what either
 * can answer, so that neither gathers more requests per commit for running at its limit.
 */
const FIXED_RATE_SHARE = 0.6;

/**
 * The encryption's cost at one request rate for both services. In the closed loop each service
 * answers as many actions as it can, and its CPU per action falls the more it answers (more
 * requests share each group commit, each turn of the event loop, each write-behind flush; a
 * smaller share of the actions is a player's first): the faster plain service would look cheaper
 * per action for that alone. Here both get the same requests at the same rate, open loop, in
 * alternating rounds, and the CPU of each is divided by the actions it answered.
 */
async function encryptionAtFixedRate(
  ctx: Context,
  encrypted: Side,
  plain: Side,
  slowerPerSecond: number,
): Promise<{ rate: number; withCpuUs: number; withoutCpuUs: number; ratio: number; rounds: number[] }> {
  const { config } = ctx;
  const rate = Math.max(1, Math.round(slowerPerSecond * FIXED_RATE_SHARE));
  const slice = config.durationMs / config.rounds;
  log(
    `  encryption at a fixed rate: ${rate} actions/s (${FIXED_RATE_SHARE * 100} % of the slower service's closed-loop rate), open loop, ${config.durationMs / 1000} s a side in ${config.rounds} alternating round${config.rounds > 1 ? 's' : ''}`,
  );
  // The same requests for both, from the start of the sequence again (over a new pool of
  // players): the closed loop left each side at a different point of its own, with a different
  // share of players yet to make their first action (and, encrypted, their key).
  const sides = [encrypted, plain].map((side) => ({
    ...side,
    next: mixedBodies({ players: config.players, seed: 2 }),
    cpu: new CpuMeter(side.child),
    answered: 0,
    perRound: [] as number[],
  }));
  for (let round = 0; round < config.rounds; round++) {
    for (const s of sides) {
      const before = s.cpu.micros;
      s.cpu.onWindow('start');
      const result = await openLoop({
        port: s.port,
        rate,
        durationMs: slice,
        connections: config.connections,
        next: () => post(s.next()),
      });
      // Every request sent is waited for, so the window's CPU is that of all its answers.
      s.cpu.onWindow('end');
      await s.cpu.settled();
      s.answered += result.requests;
      s.perRound.push((s.cpu.micros - before) / Math.max(1, result.requests));
    }
  }
  const [withCpuUs, withoutCpuUs] = sides.map((s) => s.cpu.micros / Math.max(1, s.answered));
  const rounds = sides[0].perRound.map((us, i) => us / sides[1].perRound[i]);
  log(
    `  encryption, fixed rate: server CPU per action ${withCpuUs.toFixed(0)} us with, ${withoutCpuUs.toFixed(0)} us without (${((withCpuUs / withoutCpuUs - 1) * 100).toFixed(1)} %); ${sides[0].answered} and ${sides[1].answered} actions answered; ratio per round ${rounds.map((r) => r.toFixed(3)).join(', ')}`,
  );
  row(ctx, 1, 'fixed rate: server CPU per action with encryption', withCpuUs, 'us');
  row(ctx, 1, 'fixed rate: server CPU per action without', withoutCpuUs, 'us');
  return { rate, withCpuUs, withoutCpuUs, ratio: withCpuUs / withoutCpuUs, rounds };
}
