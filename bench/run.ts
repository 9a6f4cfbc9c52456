/**
 * `npm run bench`: the benchmark suite (a script, not a test). Each figure runs the service
 * under test in a child process (bench/server.ts: startService on the embedded adapters, as
 * `npm start` does), so the load generator here does not share its event loop. Prints a table
 * and writes bench/results/latest.json. Settings: bench/config.ts, described in bench/README.md.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { EVENT_SCHEMAS } from '../shared/events';
import { readBenchConfig, type BenchConfig } from './config';
import { startChild, type Child } from './ipc';
import {
  closedLoop,
  mergeResults,
  newAgent,
  openLoop,
  percentile,
  runAll,
  send,
  sortedOf,
  type Answer,
  type LoadResult,
  type RequestSpec,
} from './load';
import { formatSummary, projectInclusive, summarizeProfile, type CpuProfile } from './profile';
import {
  actionBody,
  BENCH_CATALOG_FILE,
  mixedActions,
  mixedBodies,
  playerId,
  prng,
  runTag,
  SERVER_KEY,
  withNested,
  writeKeysFile,
  type ActionBody,
} from './workload';

const BENCH_DIR = __dirname;
const RESULTS_DIR = path.join(BENCH_DIR, 'results');
const GIB = 1024 ** 3;
const MILLION = 1_000_000;
const PROCESS_PATH = '/v1/action/process';
const HEADERS = { AuthKey: SERVER_KEY };

interface Row {
  figure: number;
  name: string;
  value: number | null;
  unit: string;
  /** e.g. ">= 0.7"; empty for figures reported without a target. */
  target: string;
  pass: boolean | null;
}

interface Context {
  config: BenchConfig;
  tmp: string;
  rows: Row[];
  details: Record<string, unknown>;
  profiles: string[];
  /** Children of the running figure: all stopped when it ends, whether it passed or threw. */
  children: Set<Child>;
}

async function spawn(ctx: Context, script: string, options: Parameters<typeof startChild>[1]): Promise<Child> {
  const child = await startChild(path.join(BENCH_DIR, script), options);
  ctx.children.add(child);
  return child;
}

const post = (body: string): RequestSpec => ({ method: 'POST', path: PROCESS_PATH, body, headers: HEADERS });

function row(
  ctx: Context,
  figure: number,
  name: string,
  value: number | null,
  unit: string,
  target?: { op: '>=' | '<='; limit: number; shown?: string },
): void {
  const pass =
    target && value !== null && Number.isFinite(value)
      ? target.op === '>='
        ? value >= target.limit
        : value <= target.limit
      : target
        ? false
        : null;
  ctx.rows.push({
    figure,
    name,
    value,
    unit,
    target: target ? `${target.op} ${target.shown ?? target.limit}` : '',
    pass,
  });
}

function log(message: string): void {
  process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

function summaryOf(r: LoadResult) {
  return {
    requests: r.requests,
    errors: r.errors,
    seconds: r.elapsedMs / 1000,
    perSecond: r.requests / (r.elapsedMs / 1000),
    p50Ms: percentile(r.latencies, 50),
    p90Ms: percentile(r.latencies, 90),
    p99Ms: percentile(r.latencies, 99),
    maxMs: r.latencies.length ? r.latencies[r.latencies.length - 1] : Number.NaN,
    statuses: r.statuses,
  };
}

/** The flags `npm start` gives node before `--import tsx` (package.json). */
const SERVICE_NODE_FLAGS: string[] = (() => {
  const start: string = JSON.parse(fs.readFileSync(path.join(BENCH_DIR, '..', 'package.json'), 'utf8')).scripts.start;
  const words = start.split(/\s+/);
  return words.slice(words.indexOf('node') + 1, words.indexOf('--import'));
})();

async function startServer(
  ctx: Context,
  name: string,
  options: { dataDir?: string; env?: Record<string, string> } = {},
): Promise<Child> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(ctx.tmp, `${name}-`));
  const child = await spawn(ctx, 'server.ts', {
    env: {
      BENCH_DATA_DIR: dataDir,
      BENCH_CATALOG: BENCH_CATALOG_FILE,
      BENCH_KEYS: writeKeysFile(ctx.tmp),
      BENCH_LOG_LEVEL: ctx.config.logLevel,
      ...options.env,
    },
    logFile: path.join(ctx.tmp, `${name}.log`),
    // The node flags of `npm start`, so that the figures are those of the service as users run it;
    // --expose-gc only makes global.gc available (figure 6 reads the live heap after a full collection).
    execArgv: [...SERVICE_NODE_FLAGS, '--expose-gc'],
    readyTimeoutMs: 10 * 60_000,
  });
  return child;
}

/** Outcomes of process answers: envelope codes, and which rules fired. */
class Outcomes {
  codes: Record<string, number> = {};
  fired = { badge: 0, trigger: 0, level: 0, plain: 0 };
  actions = 0;

  add(result: { code?: number; data?: unknown }): void {
    this.actions++;
    const code = String(result.code ?? 'none');
    this.codes[code] = (this.codes[code] ?? 0) + 1;
    if (result.code !== 200 || typeof result.data !== 'object' || result.data === null) return;
    const d = result.data as { badges?: unknown; triggers?: unknown; achievedLevel?: unknown };
    if (d.badges) this.fired.badge++;
    if (d.triggers) this.fired.trigger++;
    if (d.achievedLevel) this.fired.level++;
    if (!d.badges && !d.triggers && !d.achievedLevel) this.fired.plain++;
  }

  /** An answer of process: the outer result, and the nested ones when there are. */
  addAnswer(answer: Answer): void {
    let parsed: { code?: number; data?: unknown };
    try {
      parsed = JSON.parse(answer.body) as { code?: number; data?: unknown };
    } catch {
      this.add({ code: -answer.status });
      return;
    }
    this.add(parsed);
    const nested = (parsed.data as { nested?: { code?: number; data?: unknown }[] } | undefined)?.nested;
    if (Array.isArray(nested)) for (const n of nested) this.add('code' in n ? n : { code: 200, data: n });
  }

  toJSON() {
    return { actions: this.actions, codes: this.codes, fired: this.fired };
  }
}

/**
 * CPU time a child spends inside measured windows (summed over rounds), read over IPC when a
 * window opens and closes. The asks run one after another, in window order.
 */
class CpuMeter {
  micros = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private openedAt = 0;

  /** With `profileFile`, the child is also CPU-profiled over the measured windows, written there. */
  constructor(
    private readonly child: Child,
    private readonly profileFile?: string,
  ) {}

  readonly onWindow = (phase: 'start' | 'end'): void => {
    this.then(async () => {
      const now = await this.child.ask<number>('cpu');
      if (phase === 'start') this.openedAt = now;
      else this.micros += now - this.openedAt;
    });
    const file = this.profileFile;
    if (file)
      this.then(() =>
        phase === 'start'
          ? this.child.ask('profile-start', { intervalUs: 250 })
          : this.child.ask('profile-stop', { file }),
      );
  };

  /** Runs `step` after the asks already queued. */
  then(step: () => Promise<unknown>): void {
    this.queue = this.queue.then(step);
  }

  settled(): Promise<unknown> {
    return this.queue;
  }
}

// ---------------------------------------------------------------------------------------------
// Figure 1: process vs a bare express endpoint, 50 connections; and process again with webhooks on.

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
  port: number;
  next: () => string;
  cpu: CpuMeter;
  runs: LoadResult[];
  outcomes?: Outcomes;
}

async function figure1(ctx: Context): Promise<void> {
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
    if (config.comparePlain) {
      const plain = await startServer(ctx, 'fig1-plain', { env: { BENCH_CATALOG: plainCatalogFile(ctx.tmp) } });
      sides.push(side('process, no streaks or caps', plain, new Outcomes()));
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
    await Promise.all([bare.stop(), server.stop(), hooked.stop()]);
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
    const plainSide = sides[3];
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
  } finally {
    await receiver.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Figure 2: nested actions, batches of 100 per request.

async function figure2(ctx: Context): Promise<void> {
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

// ---------------------------------------------------------------------------------------------
// Figure 3: projection lag at a fixed rate.

async function figure3(ctx: Context): Promise<void> {
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

// ---------------------------------------------------------------------------------------------
// Figure 4: rebuild of the read models from the log.

/** What the worker measured of the Overview's requests after the rebuild. */
interface OverviewReads {
  p50Ms: number;
  p99Ms: number;
  deliverables366DaysP50Ms: number;
}

async function figure4(ctx: Context): Promise<void> {
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
    log(`  rebuilt without the analytics projector: ${without.eventsPerSec.toFixed(0)} events/s`);
    const profileFile = path.join(RESULTS_DIR, 'profile-rebuild.cpuprofile');
    const rebuilt = await worker.ask<Record<string, number> & { overview: OverviewReads }>('rebuild', {
      file,
      overviewLoads: 20,
      ...(config.profile ? { profileFile } : {}),
    });
    if (config.profile) ctx.profiles.push(profileFile);
    log(
      `  rebuilt ${rebuilt.events} events in ${(rebuilt.ms / 1000).toFixed(1)} s: ${rebuilt.eventsPerSec.toFixed(0)} events/s (${rebuilt.scoreDocs} score documents)`,
    );
    log(
      `  the Overview's requests over 90 days: p50 ${rebuilt.overview.p50Ms.toFixed(2)} ms, p99 ${rebuilt.overview.p99Ms.toFixed(2)} ms; deliverables over 366 days p50 ${rebuilt.overview.deliverables366DaysP50Ms.toFixed(2)} ms`,
    );
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
    row(ctx, 4, 'event file generation', gen.ms / 1000, 's');
    row(ctx, 4, 'rebuild without the analytics projector', without.eventsPerSec, 'events/s');
    row(ctx, 4, 'rebuild', rebuilt.eventsPerSec, 'events/s', { op: '>=', limit: 100_000, shown: '100,000' });
    row(ctx, 4, 'Overview request p50 (7 series, 90 days, no HTTP)', rebuilt.overview.p50Ms, 'ms', {
      op: '<=',
      limit: 50,
    });
    ctx.details.figure4 = { generate: gen, rebuildWithoutAnalytics: without, rebuild: rebuilt };
  } finally {
    await worker.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Figure 5: a player with a long history vs new players.

async function figure5(ctx: Context): Promise<void> {
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

// ---------------------------------------------------------------------------------------------
// Figure 6: peak RSS and leaderboard reads with 1,000,000 players.

/** Players on the board when the reads are taken the first time: what "never scans" compares the full board with. */
const FIRST_READS_AT = 10_000;

async function figure6(ctx: Context): Promise<void> {
  const { config } = ctx;
  log(
    `figure 6: one action for each of ${config.rssPlayers.toLocaleString('en')} players (nested batches of ${config.nestedBatch})`,
  );
  const server = await startServer(ctx, 'fig6');
  const before = await server.ask<Record<string, number>>('stats');
  const tag = runTag();
  const random = prng(6);
  const outcomes = new Outcomes();
  /** Players [from, to), one action each, in nested batches. */
  const load = (from: number, to: number) => {
    let next = from;
    return runAll({
      port: server.ready.port as number,
      connections: config.rssConnections,
      next: () => {
        if (next >= to) return null;
        const batch: ActionBody[] = [];
        // The first action opens the batch: one that cannot fail (a failed outer action fails the request).
        for (; batch.length < config.nestedBatch && next < to; next++)
          batch.push(actionBody(playerId(tag, next), `${tag}-m${next}`, random, batch.length ? undefined : 'play'));
        const [outer, ...actions] = batch;
        return post(JSON.stringify(actions.length ? { ...outer, actions } : outer));
      },
      onAnswer: (_spec, answer) => outcomes.addAnswer(answer),
    });
  };
  const port = server.ready.port as number;
  // In two halves: what the second half adds is what players cost, without the start-up's growth.
  // The reads at 10,000 players come inside the first half, long before the peak.
  const half = Math.floor(config.rssPlayers / 2);
  const early = config.rssPlayers > 2 * FIRST_READS_AT ? FIRST_READS_AT : 0;
  const parts = early ? [await load(0, early)] : [];
  const readsEarly = early ? await leaderboardReads(port, tag, early) : null;
  parts.push(await load(early, half));
  const atHalf = await server.ask<Record<string, number>>('stats');
  parts.push(await load(half, config.rssPlayers));
  const run = mergeResults(parts);
  const stats = await server.ask<Record<string, number>>('stats');
  const afterGc = await server.ask<Record<string, number>>('stats', { gc: true });
  // After the memory figures, which the reads must not move.
  const reads = await leaderboardReads(port, tag, config.rssPlayers);
  await server.stop();
  const seconds = run.elapsedMs / 1000;
  log(
    `  ${outcomes.actions} actions in ${seconds.toFixed(1)} s (${(outcomes.actions / seconds).toFixed(0)}/s); peak RSS ${(stats.maxRssBytes / 1024 ** 2).toFixed(0)} MiB, heap used ${(stats.heapUsedBytes / 1024 ** 2).toFixed(0)} MiB, live heap after a full GC ${(afterGc.heapUsedBytes / 1024 ** 2).toFixed(0)} MiB (RSS ${(afterGc.rssBytes / 1024 ** 2).toFixed(0)} MiB)`,
  );
  row(ctx, 6, `loading ${config.rssPlayers.toLocaleString('en')} players`, outcomes.actions / seconds, 'actions/s');
  row(ctx, 6, 'live heap after full GC', afterGc.heapUsedBytes / 1024 ** 2, 'MiB');
  row(ctx, 6, 'RSS after full GC', afterGc.rssBytes / 1024 ** 2, 'MiB');
  row(ctx, 6, 'peak RSS', stats.maxRssBytes / 1024 ** 2, 'MiB', { op: '<=', limit: 600 });
  // What each player of the second half added to the peak, carried on to a million: every
  // per-player structure (caches, read models) grows linearly, so the line bounds what 1,000,000 players take.
  const perPlayerBytes = (stats.maxRssBytes - atHalf.maxRssBytes) / (config.rssPlayers - half);
  const projectedBytes = stats.maxRssBytes + perPlayerBytes * Math.max(0, MILLION - config.rssPlayers);
  log(
    `  peak RSS grew ${(perPlayerBytes / 1024).toFixed(2)} KiB per player: ${(projectedBytes / GIB).toFixed(2)} GiB projected at ${MILLION.toLocaleString('en')} players`,
  );
  row(ctx, 6, 'peak RSS added per player', perPlayerBytes / 1024, 'KiB');
  row(ctx, 6, 'peak RSS projected at 1,000,000 players', projectedBytes / 1024 ** 2, 'MiB', {
    op: '<=',
    limit: (2 * GIB) / 1024 ** 2,
    shown: '2048 (2 GiB)',
  });
  const players = config.rssPlayers.toLocaleString('en');
  for (const [at, r] of [
    [early, readsEarly],
    [config.rssPlayers, reads],
  ] as const) {
    if (!r) continue;
    log(
      `  leaderboard over ${at.toLocaleString('en')} players, p50 of one request at a time: top 10 ${r.top10P50Ms.toFixed(2)} ms, top 1,000 ${r.top1000P50Ms.toFixed(2)} ms; ` +
        `a player's rank ${r.rankP50Ms.toFixed(2)} ms (max ${r.rankMaxMs.toFixed(2)} ms, ${r.sampled} players, ranks down to ${r.lowestRank}); around=5 ${r.aroundP50Ms === null ? 'n/a (not served)' : `${r.aroundP50Ms.toFixed(2)} ms`}`,
    );
  }
  const targets = { top10P50Ms: 5, rankP50Ms: 5, aroundP50Ms: 10, top1000P50Ms: 50 } as const;
  const names = {
    top10P50Ms: 'top 10',
    rankP50Ms: "a player's rank (top=1, playerId)",
    aroundP50Ms: 'around me (around=5)',
    top1000P50Ms: 'top 1,000',
  } as const;
  for (const key of Object.keys(targets) as (keyof typeof targets)[]) {
    if (readsEarly) row(ctx, 6, `${names[key]} at ${early.toLocaleString('en')} players, p50`, readsEarly[key], 'ms');
    row(ctx, 6, `${names[key]} at ${players} players, p50`, reads[key], 'ms', { op: '<=', limit: targets[key] });
    // "Never scans" in numbers: the same read on the full board and on the small one.
    const small = readsEarly?.[key];
    const large = reads[key];
    if (small != null && large !== null)
      row(ctx, 6, `${names[key]}: ${players} / ${early.toLocaleString('en')} players`, large / small, 'x', {
        op: '<=',
        limit: 3,
      });
  }
  ctx.details.figure6 = {
    players: config.rssPlayers,
    seconds,
    perPlayerBytes,
    projectedBytes,
    atHalf,
    outcomes,
    requests: summaryOf(run),
    leaderboardReads: reads,
    leaderboardReadsEarly: readsEarly && { players: early, ...readsEarly },
    before,
    after: stats,
    afterFullGc: afterGc,
  };
}

// ---------------------------------------------------------------------------------------------
// Figure 7: restart over a large log.

async function figure7(ctx: Context): Promise<void> {
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
    `  first start ${(first.ms / 1000).toFixed(1)} s; restart ${(again.ms / 1000).toFixed(2)} s (process start to answering, read models at the log's head)`,
  );
  row(ctx, 7, 'first start (read models built from the log)', first.ms / 1000, 's');
  row(ctx, 7, 'restart to ready', again.ms / 1000, 's', { op: '<=', limit: 5 });
  ctx.details.figure7 = { generate: gen, firstStartMs: first.ms, restartMs: again.ms };
}

/** Starts the service over `dataDir`; how long from spawning it until it answers with its read models at the log's head. */
async function startedUntilCaughtUp(
  ctx: Context,
  name: string,
  dataDir: string,
): Promise<{ child: Child; ms: number }> {
  const spawned = performance.now();
  const child = await startServer(ctx, name, { dataDir });
  for (;;) {
    const stats = await child.ask<{ projectedPosition: number; headPosition: number }>('stats');
    if (stats.projectedPosition >= stats.headPosition) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { child, ms: performance.now() - spawned };
}

/**
 * Reads of the all-time board over the players just loaded, one at a time: pages of the top 1,000
 * and of the top 1, and the top 1 with the own standing of players spread over the load order
 * (their ranks run down to the last places, where a count of the players ahead would read nearly
 * all of them): the difference of the last two is what a rank costs.
 */
interface LeaderboardReads {
  top10P50Ms: number;
  top1000P50Ms: number;
  rankP50Ms: number;
  rankMaxMs: number;
  /** null: the service does not answer `around` (a version before it). */
  aroundP50Ms: number | null;
  sampled: number;
  lowestRank: number;
}

/** Figure 6's reads of the all-time board, one request at a time, over the first `players` players of the load order. */
async function leaderboardReads(port: number, tag: string, players: number): Promise<LeaderboardReads> {
  const agent = newAgent(1);
  const timed = async (
    path: string,
  ): Promise<[number, { data: { player?: { rank: number } | null; around?: unknown[] }[] }]> => {
    const startedAt = performance.now();
    const answer = await send(agent, port, { method: 'GET', path, headers: HEADERS });
    const ms = performance.now() - startedAt;
    if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.body}`);
    return [ms, JSON.parse(answer.body)];
  };
  const p50 = (values: number[]) => percentile(sortedOf(values), 50);
  try {
    const top10: number[] = [];
    const top1000: number[] = [];
    for (let i = 0; i < 20; i++) {
      top1000.push((await timed('/v1/admin/leaderboards/lb-all?top=1000'))[0]);
      top10.push((await timed('/v1/admin/leaderboards/lb-all?top=10'))[0]);
    }
    const sampled = 100;
    const rank: number[] = [];
    const around: number[] = [];
    let aroundServed = true;
    let lowestRank = 0;
    for (let i = 0; i < sampled; i++) {
      const player = playerId(tag, Math.floor((i * players) / sampled));
      const [ms, body] = await timed(`/v1/admin/leaderboards/lb-all?top=1&playerId=${player}`);
      rank.push(ms);
      lowestRank = Math.max(lowestRank, body.data[0].player?.rank ?? 0);
      const [aroundMs, aroundBody] = await timed(`/v1/admin/leaderboards/lb-all?top=1&playerId=${player}&around=5`);
      around.push(aroundMs);
      if (!Array.isArray(aroundBody.data[0].around)) aroundServed = false;
    }
    const ranks = sortedOf(rank);
    return {
      top10P50Ms: p50(top10),
      top1000P50Ms: p50(top1000),
      rankP50Ms: percentile(ranks, 50),
      rankMaxMs: ranks[ranks.length - 1],
      aroundP50Ms: aroundServed ? p50(around) : null,
      sampled,
      lowestRank,
    };
  } finally {
    agent.destroy();
  }
}

// ---------------------------------------------------------------------------------------------

function formatValue(value: number | null, unit: string): string {
  if (value === null || Number.isNaN(value)) return 'n/a';
  if (!Number.isFinite(value)) return 'inf';
  const digits = Math.abs(value) >= 1000 ? 0 : Math.abs(value) >= 100 ? 1 : 2;
  const text = value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return unit ? `${text} ${unit}` : text;
}

function table(rows: Row[]): string {
  const header = ['#', 'figure', 'measured', 'target', 'result'];
  const lines = rows.map((r) => [
    String(r.figure),
    r.name,
    formatValue(r.value, r.unit),
    r.target,
    r.pass === null ? '' : r.pass ? 'PASS' : 'FAIL',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells: string[]) =>
    cells.map((c, i) => (i === 2 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ');
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...lines.map(fmt)].join('\n');
}

/** Jiffies of all CPUs: total and stolen by the hypervisor (Linux only; null elsewhere). */
function cpuTimes(): { total: number; steal: number } | null {
  try {
    const [, ...fields] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    const values = fields.map(Number);
    return { total: values.reduce((a, b) => a + b, 0), steal: values[7] ?? 0 };
  } catch {
    return null;
  }
}

/** The code measured: others edit the tree while benchmarks run, so record what it was. */
function codeVersion(): { commit: string | null; changedFiles: string[] } {
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: path.resolve(BENCH_DIR, '..'),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  try {
    const changed = git('status', '--porcelain')
      .split('\n')
      .filter((l) => l.trim() && !l.slice(3).startsWith('bench/'));
    return { commit: git('rev-parse', 'HEAD').trim(), changedFiles: changed.map((l) => l.trim()) };
  } catch {
    return { commit: null, changedFiles: [] };
  }
}

const FIGURES: Record<number, (ctx: Context) => Promise<void>> = {
  1: figure1,
  2: figure2,
  3: figure3,
  4: figure4,
  5: figure5,
  6: figure6,
  7: figure7,
};

async function main(): Promise<void> {
  const config = readBenchConfig();
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(process.env.BENCH_TMPDIR || os.tmpdir(), 'benchrun-'));
  const ctx: Context = { config, tmp, rows: [], details: {}, profiles: [], children: new Set() };
  const started = Date.now();
  const failures: string[] = [];
  const loadBefore = os.loadavg();
  const cpuBefore = cpuTimes();
  const version = codeVersion();
  log(
    `${config.quick ? 'quick' : 'full'} run of figures ${[...config.only].join(', ')} on ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), node ${process.version}; code ${version.commit?.slice(0, 7) ?? '?'}${version.changedFiles.length ? ` + ${version.changedFiles.length} uncommitted files` : ''}; temp ${tmp}`,
  );
  for (const figure of [...config.only].sort()) {
    try {
      await FIGURES[figure](ctx);
    } catch (e) {
      const message = e instanceof Error ? (e.stack ?? e.message) : String(e);
      failures.push(`figure ${figure}: ${message}`);
      log(`figure ${figure} failed: ${message}`);
      ctx.rows.push({ figure, name: 'failed to run (see log)', value: null, unit: '', target: '', pass: false });
    } finally {
      for (const child of ctx.children) await child.stop();
      ctx.children.clear();
    }
  }
  const totalSeconds = (Date.now() - started) / 1000;

  console.log(`\n${table(ctx.rows)}\n`);
  const profileSummaries: Record<string, unknown> = {};
  for (const file of ctx.profiles) {
    if (!fs.existsSync(file)) continue;
    const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
    const summary = summarizeProfile(profile, 25);
    const inclusive = projectInclusive(profile, 20);
    profileSummaries[path.basename(file)] = { summary, inclusive };
    console.log(`${path.relative(process.cwd(), file)}:\n${formatSummary(summary, inclusive)}\n`);
  }
  const cpuAfter = cpuTimes();
  const stealPct =
    cpuBefore && cpuAfter && cpuAfter.total > cpuBefore.total
      ? (100 * (cpuAfter.steal - cpuBefore.steal)) / (cpuAfter.total - cpuBefore.total)
      : null;
  const result = {
    startedAt: new Date(started).toISOString(),
    code: version,
    totalSeconds,
    // Other processes on the machine skew every figure: the load averages tell whether there were.
    loadAverage: { before: loadBefore, after: os.loadavg() },
    cpuStealPct: stealPct,
    machine: {
      cpus: os.cpus().length,
      model: os.cpus()[0]?.model,
      totalMemBytes: os.totalmem(),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    },
    config: { ...config, only: [...config.only] },
    rows: ctx.rows,
    details: ctx.details,
    profiles: profileSummaries,
    failures,
  };
  const out = path.join(RESULTS_DIR, 'latest.json');
  fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
  log(
    `load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; CPU time stolen by the hypervisor ${stealPct === null ? 'n/a' : `${stealPct.toFixed(1)} %`}`,
  );
  log(`done in ${totalSeconds.toFixed(0)} s; results in ${path.relative(process.cwd(), out)}`);
  if (config.keep) log(`kept ${tmp}`);
  else fs.rmSync(tmp, { recursive: true, force: true });
  if (failures.length) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
