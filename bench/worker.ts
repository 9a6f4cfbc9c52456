/**
 * Child process for the work without HTTP: writing event-store files (figures 4 and 5) and
 * timing a projection rebuild (figure 4), in a process of its own so its heap and CPU are not
 * the runner's. Requests: generate, seed-history, rebuild, simulate, store-floor, stop.
 */
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { simulateInShares } from '../app/simulate-shares';
import { readRunConfig } from '../shared/adapters/config/env';
import { PROJECTORS } from '../projections/projectors';
import { ProjectionRunner } from '../projections/runner';
import { analyticsRoute } from '../read-api/analytics/route';
import type { JsonRoute, RequestContext } from '../shared/adapters/http/route';
import type { ReadStore } from '../shared/adapters/read-store/port';
import type { NewEvent } from '../shared/adapters/event-store/port';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { newEventId } from '../domain/ids';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import { playerStream, referenceStream, TRIGGER_ACTIVATIONS } from '../domain/streams';
import { serveIpc, type IpcRequest } from './ipc';
import { startCpuProfile } from './profile';
import {
  appendHistory,
  loadBenchCatalog,
  playerHistory,
  publishBenchCatalog,
  purchaseDoubledDraft,
  SEED_METADATA,
} from './seed';
import { playerId, runTag } from './workload';

const DAY = 86_400_000;
/** Placeholders in template histories, replaced per player. */
const TEMPLATE_PLAYER = 'ffffffff-ffff-4fff-8fff-ffffffffffff';
const TEMPLATE_REF = 'TPLREF';
const ACTIVATIONS_PREFIX = `${TRIGGER_ACTIVATIONS.prefix}-`;

function freshFile(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
}

function fileBytes(file: string): number {
  return ['', '-wal'].reduce((sum, s) => sum + (fs.existsSync(file + s) ? fs.statSync(file + s).size : 0), 0);
}

/**
 * Figure 4's log: `events` player events over players of `perPlayer` events each. A few template
 * histories come from the real decider; each player gets one with its own playerId and
 * referenceIds (JSON text substitution, then parsed again, so every append stores fresh objects
 * exactly as the decider shaped them). One append per player: big batches, durable commits. As in
 * the service, the first players of the log take the limited triggers' activations (the bench
 * catalog's one trigger, once a player): they get templates made with activations left.
 */
async function generate(request: IpcRequest) {
  const file = String(request.file);
  const total = Number(request.events);
  const perPlayer = Number(request.perPlayer ?? 50);
  const templates = Number(request.templates ?? 64);
  freshFile(file);
  const started = performance.now();
  const { catalog, hash } = await loadBenchCatalog(String(request.catalogFile));
  const events = new SqliteEventStore(file);
  await publishBenchCatalog(events, catalog, hash);

  const span = 90 * DAY;
  // Past timestamps only: template t starts t hours later (all within 4 days).
  const startTs = Date.now() - span - 4 * DAY;
  // A template: the streams each event goes to and its JSON; `perPlayer` is the count of the player's own events.
  const template = (t: number, limitedLeft: boolean) =>
    [
      ...playerHistory(catalog, TEMPLATE_PLAYER, {
        actions: perPlayer * 2,
        maxEvents: perPlayer,
        startTs: startTs + t * 3_600_000,
        stepMs: Math.floor(span / perPlayer),
        refPrefix: TEMPLATE_REF,
        seed: 1000 + t,
        limitedLeft,
      }),
    ].map((e) => ({ stream: e.stream, type: e.type, json: JSON.stringify(e.data) }));
  const shapes = Array.from({ length: templates }, (_, t) => template(t, false));
  const takingShapes = Array.from({ length: templates }, (_, t) => template(t, true));
  const limit = Math.min(...catalog.triggers.flatMap((t) => (t.limited ? [t.limit] : [])));
  const templateMs = performance.now() - started;

  const tag = runTag();
  let written = 0;
  let players = 0;
  let dataBytes = 0;
  // Several players' appends in flight at once: the store may commit them together.
  const inFlight: Promise<unknown>[] = [];
  while (written < total) {
    const player = playerId(tag, players);
    const shape = (players < limit ? takingShapes : shapes)[players % shapes.length].slice(0, total - written);
    const refPrefix = `${tag}p${players}`;
    // Every uid of the template (a cost's provision, a powerup instance) is the player's own.
    const uids = new Map<string, string>();
    const own = (text: string) =>
      text
        .split(TEMPLATE_PLAYER)
        .join(player)
        .split(TEMPLATE_REF)
        .join(refPrefix)
        .replace(
          /\b[0-9a-f]{32}\b/g,
          (uid) => uids.get(uid) ?? (uids.set(uid, newEventId().replace(/-/g, '')), uids.get(uid)!),
        );
    const byStream = new Map<string, NewEvent[]>();
    for (const e of shape) {
      const json = own(e.json);
      dataBytes += json.length;
      const stream = own(e.stream);
      const list = byStream.get(stream) ?? [];
      list.push({ id: newEventId(), type: e.type, data: JSON.parse(json) as unknown, metadata: SEED_METADATA });
      byStream.set(stream, list);
    }
    // A limited trigger's stream is shared by the players who take its activations.
    inFlight.push(
      events.appendToStreams(
        [...byStream].map(([stream, list]) => ({
          stream,
          events: list,
          expectedRevision: stream.startsWith(ACTIVATIONS_PREFIX) ? ('any' as const) : ('no_stream' as const),
        })),
      ),
    );
    if (inFlight.length >= 20) await Promise.all(inFlight.splice(0));
    written += shape.length;
    players++;
  }
  await Promise.all(inFlight);
  const head = await events.headPosition();
  await events.close();
  const ms = performance.now() - started;
  return {
    events: written,
    players,
    head,
    ms,
    templateMs,
    eventsPerSec: written / (ms / 1000),
    avgDataBytes: dataBytes / written,
    fileBytes: fileBytes(file),
  };
}

/** Figure 5's data directory: one player with `events` prior events, straight from the decider. */
async function seedHistory(request: IpcRequest) {
  const dataDir = String(request.dataDir);
  const file = path.join(dataDir, 'events.sqlite');
  freshFile(file);
  const started = performance.now();
  const { catalog, hash } = await loadBenchCatalog(String(request.catalogFile));
  const events = new SqliteEventStore(file);
  await publishBenchCatalog(events, catalog, hash);
  const count = Number(request.events);
  const stepMs = 60_000;
  const player = String(request.player);
  const written = await appendHistory(
    events,
    player,
    playerHistory(catalog, player, {
      actions: count * 2,
      maxEvents: count,
      startTs: Date.now() - (count + 60) * stepMs,
      stepMs,
      refPrefix: `${runTag()}-hist`,
      seed: 7,
    }),
    1000,
  );
  await events.close();
  return { events: written, ms: performance.now() - started, fileBytes: fileBytes(file) };
}

/**
 * Figure 4: a fresh runner (empty in-memory read models, the service's projectors but those named
 * in `leaveOut`) catching up on the whole log; then, with `overviewLoads`, the Overview's reads.
 */
async function rebuild(request: IpcRequest) {
  const file = String(request.file);
  const events = new SqliteEventStore(file);
  const head = await events.headPosition();
  const store = new MemoryReadStore();
  const leaveOut = (request.leaveOut as string[] | undefined) ?? [];
  const runner = new ProjectionRunner(
    events,
    store,
    PROJECTORS.filter((p) => !leaveOut.includes(p.name)),
    pino({ level: 'silent' }),
  );
  const stop = request.profileFile ? await startCpuProfile(1000) : null;
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  await runner.start();
  const done = await runner.waitFor(head, 60 * 60_000);
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpu0);
  if (stop) await stop(String(request.profileFile));
  const scores = await store.collection('lb_scores').countDocuments({});
  await runner.stop();
  await events.close();
  const overview = request.overviewLoads ? await overviewReads(store, Number(request.overviewLoads)) : null;
  return {
    events: head,
    done,
    ms,
    eventsPerSec: head / (ms / 1000),
    cpuMs: (cpu.user + cpu.system) / 1000,
    scoreDocs: scores,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    overview,
  };
}

/**
 * Figure 4's simulation: the log replayed under purchaseDoubledDraft, every action decided again,
 * as `POST /v1/audit/simulate` does in the all-in-one service (split between threads, the log read
 * through the players' keys). `file` is the log, named `events.sqlite` as in a DATA_DIR. The rate
 * counts every event of the log, as the rebuild's does: the streams a replay does not use are
 * skipped inside the store.
 */
async function simulateDraft(request: IpcRequest) {
  const file = String(request.file);
  if (path.basename(file) !== 'events.sqlite') throw new Error(`simulate: ${file} is not a DATA_DIR's events.sqlite`);
  const config = readRunConfig({ DATA_DIR: path.dirname(file) });
  const events = new SqliteEventStore(file, { readonly: true });
  const head = await events.headPosition();
  const draft = purchaseDoubledDraft();
  // The process's CPU: its threads' included.
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const report = await simulateInShares(config, events, draft, { top: 100 });
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpu0);
  await events.close();
  return {
    events: head,
    ms,
    eventsPerSec: head / (ms / 1000),
    cpuMs: (cpu.user + cpu.system) / 1000,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    eventsReplayed: report.eventsReplayed,
    actionsRedecided: report.actionsRedecided,
    playersAffected: report.playersAffected,
    problems: report.problems.length,
  };
}

/** The series the console's Overview asks for on each load. */
const OVERVIEW_SERIES = ['active-players', 'actions', 'points', 'deliverables', 'levels', 'badges', 'purchases'];

/**
 * The Overview's requests over the last 90 days (the span of figure 4's log), `loads` times: each
 * timed from parsing the query to the answer's JSON, through the route itself (no HTTP, whose
 * share figure 1 measures). Also the largest split series over the most days a request may ask.
 */
async function overviewReads(store: ReadStore, loads: number) {
  const route = analyticsRoute({ store }) as JsonRoute<unknown>;
  const day = (back: number) => new Date(Date.now() - back * DAY).toISOString().slice(0, 10);
  const timed = async (
    series: string,
    from: string,
    to: string,
  ): Promise<{ ms: number; points: number; bytes: number }> => {
    const started = performance.now();
    const input = route.parse({ body: undefined, params: { series }, query: { from, to }, header: () => undefined });
    if (!input.ok) throw new Error(input.failure.message);
    // The handler reads nothing of the request's context.
    const reply = await route.handle(input.value, {} as RequestContext);
    if (!reply.ok) throw new Error(reply.failure.message);
    const bytes = JSON.stringify({ code: 200, data: reply.value }).length;
    return { ms: performance.now() - started, points: (reply.value as { points: unknown[] }).points.length, bytes };
  };
  const bySeries: Record<string, number[]> = Object.fromEntries(OVERVIEW_SERIES.map((s) => [s, []]));
  const answers: Record<string, { points: number; bytes: number }> = {};
  for (let i = 0; i < loads; i++) {
    for (const series of OVERVIEW_SERIES) {
      const { ms, points, bytes } = await timed(series, day(89), day(0));
      bySeries[series].push(ms);
      answers[series] = { points, bytes };
    }
  }
  const year: number[] = [];
  for (let i = 0; i < loads; i++) year.push((await timed('deliverables', day(365), day(0))).ms);
  const p = (values: number[], q: number) =>
    [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((q / 100) * values.length))];
  const all = Object.values(bySeries).flat();
  return {
    loads,
    p50Ms: p(all, 50),
    p99Ms: p(all, 99),
    bySeries: Object.fromEntries(OVERVIEW_SERIES.map((s) => [s, { p50Ms: p(bySeries[s], 50), ...answers[s] }])),
    deliverables366DaysP50Ms: p(year, 50),
  };
}

/**
 * Figure 2's floor: the event store alone doing what one action costs it (one atomic append of
 * the player's event at its revision and the referenceId's record, expected new), with events
 * the size of the service's (about 960 and 130 bytes of data), `concurrency` actions in flight,
 * each on a player of its own at a time, for `durationMs`. No HTTP, rules or projections.
 */
async function storeFloor(request: IpcRequest) {
  const file = String(request.file);
  freshFile(file);
  const events = new SqliteEventStore(file);
  const concurrency = Number(request.concurrency);
  const players = Math.max(concurrency, Number(request.players));
  const durationMs = Number(request.durationMs);
  const tag = runTag();
  const revisions = new Map<string, number>();
  const event = (type: string, data: object) => ({ id: newEventId(), type, data, metadata: SEED_METADATA });
  let actions = 0;
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const loop = async (lane: number) => {
    // Lane i takes players i, i + concurrency, ...: no two actions of one player at once.
    for (let n = lane; performance.now() - started < durationMs; n += concurrency) {
      const referenceId = `${tag}-f${n}`;
      const player = playerStream(playerId(tag, n % players));
      const reference = referenceStream(referenceId);
      const revision = revisions.get(player) ?? -1;
      const appended = await events.appendToStreams([
        {
          stream: player,
          events: [event('ActionProcessed', { referenceId, pad: 'p'.repeat(900) })],
          expectedRevision: revision === -1 ? 'no_stream' : revision,
        },
        {
          stream: reference,
          events: [
            event('ReferenceRecorded', {
              referenceId,
              playerId: player,
              actionName: 'bench',
              playerRevision: revision + 1,
              pad: 'r'.repeat(40),
            }),
          ],
          expectedRevision: 'no_stream',
        },
      ]);
      revisions.set(player, appended.revisions[player]);
      actions++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, lane) => loop(lane)));
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpu0);
  await events.close();
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  return { actions, actionsPerSec: actions / (ms / 1000), cpuUsPerAction: (cpu.user + cpu.system) / actions };
}

serveIpc(
  {
    generate,
    'store-floor': storeFloor,
    'seed-history': seedHistory,
    rebuild,
    simulate: simulateDraft,
    stop: () => process.exit(0),
  },
  {},
);
