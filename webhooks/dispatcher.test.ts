/**
 * The delivery job's own rules, run by hand against a fake Jobs port: where a run leaves the
 * webhook's next run, how a webhook with a backlog of waiting deliveries goes on, what a stop
 * and a lost job do, where a new webhook starts, and how a dead receiver pauses its webhook.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import type { JobHandler, JobScheduler } from '../shared/adapters/jobs/port';
import { ServiceMetrics } from '../shared/adapters/metrics';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import type { ReadStore } from '../shared/adapters/read-store/port';
import type { Webhook } from './config';
import { WEBHOOK_COLLECTIONS, type CursorDoc, type DeliveryDoc } from './deliveries';
import { WebhookDispatcher, webhookJobId } from './dispatcher';
import type { Send } from './sender';
import { eventually } from '../test/support/process';

const HOOK: Webhook = {
  name: 'crm',
  url: 'http://127.0.0.1:9/hooks',
  secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
  events: new Set(['ActionProcessed']),
};

/** A Jobs port that records schedules and runs the webhook's job only when the test says so. */
class HandJobs implements Pick<JobScheduler, 'schedule' | 'handle'> {
  handler: JobHandler | null = null;
  schedules: number[] = [];
  failNext = 0;
  async schedule(_type: string, _id: string, runAt: number): Promise<void> {
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('jobs store away');
    }
    this.schedules.push(runAt);
  }
  handle(_type: string, handler: JobHandler): void {
    this.handler = handler;
  }
  run(): Promise<void> {
    return this.handler!({ hook: HOOK.name }, webhookJobId(HOOK.name));
  }
}

interface Rig {
  events: SqliteEventStore;
  store: ReadStore;
  jobs: HandJobs;
  sent: string[];
  dispatcher: WebhookDispatcher;
}

async function rig(
  options: {
    store?: ReadStore;
    events?: SqliteEventStore;
    send?: Send;
    watchMs?: number;
    now?: () => number;
    maxAttempts?: number;
  } = {},
): Promise<Rig> {
  const events = options.events ?? new SqliteEventStore(':memory:');
  const store = options.store ?? new MemoryReadStore();
  const jobs = new HandJobs();
  const sent: string[] = [];
  const send: Send = options.send ?? (async (_hook, eventId) => (sent.push(eventId), { ok: true, result: 'HTTP 204' }));
  const dispatcher = new WebhookDispatcher({
    hooks: [HOOK],
    events,
    store,
    jobs: jobs as unknown as JobScheduler,
    send,
    settings: { concurrency: 4, retryBaseMs: 1000, maxAttempts: options.maxAttempts ?? 3 },
    metrics: new ServiceMetrics(),
    log: pino({ level: 'silent' }),
    watchMs: options.watchMs,
    now: options.now,
  });
  await dispatcher.start();
  return { events, store, jobs, sent, dispatcher };
}

/** `count` ActionProcessed events, `perPlayer` to a player, in one append per player. */
async function appendActions(events: SqliteEventStore, count: number, perPlayer = 10): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < count; n += perPlayer) {
    const playerId = randomUUID();
    const batch = Array.from({ length: Math.min(perPlayer, count - n) }, () => ({
      id: randomUUID(),
      type: 'ActionProcessed',
      data: { playerId },
      metadata: METADATA,
    }));
    ids.push(...batch.map((e) => e.id));
    await events.appendToStreams([{ stream: `player-${playerId}`, events: batch, expectedRevision: 'any' }]);
  }
  return ids;
}

const METADATA = { correlationId: 'test', causationId: 'test', keyName: 'test', catalogVersion: 1 };

const cursorOf = async (store: ReadStore) =>
  (await store.collection<CursorDoc>(WEBHOOK_COLLECTIONS.cursors).findOne({ _id: HOOK.name }))!;

describe('the webhook delivery job', () => {
  it('starts a new webhook at the head when it starts, so that events appended before its first run are sent', async () => {
    const events = new SqliteEventStore(':memory:');
    await appendActions(events, 5);
    const store = new MemoryReadStore();
    const first = await rig({ events, store });
    first.dispatcher.stop();
    // Appended while nothing ran yet (the process that started it died before its first run).
    const after = await appendActions(events, 3);
    const second = await rig({ events, store });
    await second.jobs.run();
    expect(second.sent).toEqual(after);
    second.dispatcher.stop();
    await events.close();
  });

  it('never leaves its next run unbounded, and goes on with as many waiting deliveries as may, before or after its cursor', async () => {
    const r = await rig();
    const ids = await appendActions(r.events, 10_050, 50);
    const deliveries = r.store.collection<DeliveryDoc>(WEBHOOK_COLLECTIONS.deliveries);
    // A redelivery from the start, with 10,000 deliveries waiting after it (their first attempts failed).
    const all = await r.events.readAll({ fromPosition: 0 });
    for (const e of all.slice(0, 10_000)) {
      await deliveries.insertOne({
        _id: `${HOOK.name}|${e.id}`,
        hook: HOOK.name,
        lane: `player:${(e.data as { playerId: string }).playerId}`,
        position: e.position,
        eventId: e.id,
        type: e.type,
        status: 'waiting',
        attempts: 0,
        nextAttemptAt: 0,
        lastResult: null,
      });
    }
    await r.store
      .collection<CursorDoc>(WEBHOOK_COLLECTIONS.cursors)
      .replaceOne({ _id: HOOK.name }, { _id: HOOK.name, position: 0, epoch: 1 });
    for (let runs = 0; r.sent.length < ids.length; runs++) {
      expect(runs).toBeLessThan(1000);
      await r.jobs.run();
      expect(Number.isFinite(r.jobs.schedules[r.jobs.schedules.length - 1])).toBe(true);
    }
    expect(new Set(r.sent)).toEqual(new Set(ids));
    expect(r.sent).toHaveLength(ids.length);
    expect(await deliveries.countDocuments({})).toBe(0);
    expect((await cursorOf(r.store)).position).toBe(all[all.length - 1].position);
    r.dispatcher.stop();
    await r.events.close();
  });

  it('with every waiting delivery behind its cursor and not yet due, looks again later, not at once', async () => {
    let down = true;
    const sent: string[] = [];
    let clock = Date.now();
    const r = await rig({
      send: async (_hook, eventId) =>
        down ? { ok: false, result: 'HTTP 503' } : (sent.push(eventId), { ok: true, result: 'HTTP 204' }),
      now: () => clock,
    });
    await appendActions(r.events, 20, 1);
    const before = clock;
    await r.jobs.run();
    // Twenty lanes, each waiting on its retry (1 s): the next run is then, not now.
    expect(await r.store.collection(WEBHOOK_COLLECTIONS.deliveries).countDocuments({ status: 'waiting' })).toBe(20);
    const next = r.jobs.schedules[r.jobs.schedules.length - 1];
    expect(next).toBeGreaterThan(before);
    expect(next).toBeLessThanOrEqual(clock + 1000);
    down = false;
    clock += 1050;
    await r.jobs.run();
    expect(sent).toHaveLength(20);
    r.dispatcher.stop();
    await r.events.close();
  });

  it('a run while stopping sends nothing and hands the job on at once; a job lost to a failed schedule is started again by the watch', async () => {
    const r = await rig({ watchMs: 50 });
    await appendActions(r.events, 3);
    r.jobs.failNext = 1;
    await r.jobs.run();
    expect(r.sent).toHaveLength(3);
    // The schedule after that run failed: the watch schedules the job again.
    const scheduled = r.jobs.schedules.length;
    await eventually(() => r.jobs.schedules.length > scheduled, 10_000, 10);

    r.dispatcher.stop();
    await appendActions(r.events, 2);
    const at = Date.now();
    await r.jobs.run();
    expect(r.sent).toHaveLength(3);
    expect(r.jobs.schedules[r.jobs.schedules.length - 1]).toBeLessThanOrEqual(Date.now());
    expect(r.jobs.schedules[r.jobs.schedules.length - 1]).toBeGreaterThanOrEqual(at);
    await r.events.close();
  });
});

/** A receiver that refuses everything while `dead`, counting every attempt; `taken`: the events it took, in order. */
function receiver() {
  const r = {
    dead: true,
    attempts: 0,
    taken: [] as string[],
    send: (async (_hook, eventId) => {
      r.attempts++;
      if (r.dead) return { ok: false, result: 'ECONNREFUSED' };
      r.taken.push(eventId);
      return { ok: true, result: 'HTTP 204' };
    }) as Send,
  };
  return r;
}

/**
 * A backlog as a receiver dead for long leaves it: `lanes` players of `perLane` events each, all
 * waiting, the heads with one attempt made; the cursor past them.
 */
async function queueBacklog(
  r: Rig,
  lanes: number,
  perLane: number,
  now: number,
): Promise<Map<string, { lane: string; position: number }>> {
  await appendActions(r.events, lanes * perLane, perLane);
  const all = await r.events.readAll({ fromPosition: 0 });
  const byId = new Map<string, { lane: string; position: number }>();
  const seen = new Set<string>();
  const docs: DeliveryDoc[] = all.map((e) => {
    const lane = `player:${(e.data as { playerId: string }).playerId}`;
    byId.set(e.id, { lane, position: e.position });
    const head = !seen.has(lane);
    seen.add(lane);
    return {
      _id: `${HOOK.name}|${e.id}`,
      hook: HOOK.name,
      lane,
      position: e.position,
      eventId: e.id,
      type: e.type,
      status: 'waiting',
      attempts: head ? 1 : 0,
      nextAttemptAt: head ? now : 0,
      lastResult: head ? 'ECONNREFUSED' : null,
    };
  });
  await r.store
    .collection<DeliveryDoc>(WEBHOOK_COLLECTIONS.deliveries)
    .bulkWrite(docs.map((d) => ({ replaceOne: { filter: { _id: d._id }, replacement: d, upsert: true } })));
  await r.store
    .collection<CursorDoc>(WEBHOOK_COLLECTIONS.cursors)
    .updateOne({ _id: HOOK.name }, { $set: { position: all[all.length - 1].position } });
  return byId;
}

/** Whether a run reads anything but the webhook's cursor: the waiting deliveries, the log. */
function readsOf(r: Rig): () => number {
  const deliveries = r.store.collection(WEBHOOK_COLLECTIONS.deliveries);
  const spies = [
    jest.spyOn(deliveries, 'find'),
    jest.spyOn(deliveries, 'findOne'),
    jest.spyOn(deliveries, 'countDocuments'),
    jest.spyOn(r.events, 'readAll'),
  ];
  return () => spies.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
}

describe('a dead receiver', () => {
  const BASE = 1000;
  const last = (r: Rig) => r.jobs.schedules[r.jobs.schedules.length - 1];

  it('with a backlog of many lanes gets one probe per backoff step, and nothing is read while its webhook waits; recovery delivers every lane in order', async () => {
    let clock = 1_000_000;
    const dead = receiver();
    const r = await rig({ send: dead.send, now: () => clock, maxAttempts: 15 });
    const backlog = await queueBacklog(r, 500, 3, clock);
    // The first run finds every lane due: all refused, so the webhook pauses.
    await r.jobs.run();
    expect(dead.attempts).toBe(500);
    expect(last(r)).toBe(clock + BASE);
    const reads = readsOf(r);
    for (let step = 1; step <= 6; step++) {
      const pauseEnds = last(r);
      // Runs during the pause (the minute's watch, a restart) send and read nothing.
      clock = pauseEnds - 1;
      const attempts = dead.attempts;
      const read = reads();
      await r.jobs.run();
      expect(dead.attempts).toBe(attempts);
      expect(reads()).toBe(read);
      expect(last(r)).toBe(pauseEnds);
      // Then one probe, and the pause doubles.
      clock = pauseEnds;
      await r.jobs.run();
      expect(dead.attempts).toBe(attempts + 1);
      expect(last(r)).toBe(clock + BASE * 2 ** step);
    }
    expect(dead.taken).toEqual([]);
    // Each probe spent an attempt of one delivery only, the one due first.
    const deliveries = r.store.collection<DeliveryDoc>(WEBHOOK_COLLECTIONS.deliveries);
    expect(await deliveries.countDocuments({ status: 'waiting' })).toBe(1500);
    expect(await deliveries.countDocuments({ attempts: 3 })).toBe(6);
    expect(await deliveries.countDocuments({ attempts: { $gt: 3 } })).toBe(0);

    // Events appended meanwhile wait in the log; the receiver comes back.
    const later = await appendActions(r.events, 20, 2);
    dead.dead = false;
    for (let runs = 0; dead.taken.length < backlog.size + later.length; runs++) {
      expect(runs).toBeLessThan(100);
      clock = Math.max(clock, last(r));
      await r.jobs.run();
    }
    expect(new Set(dead.taken)).toEqual(new Set([...backlog.keys(), ...later]));
    for (const e of await r.events.readAll({ fromPosition: 0 }))
      backlog.set(e.id, { lane: `player:${(e.data as { playerId: string }).playerId}`, position: e.position });
    const firstPerLane = new Map<string, number[]>();
    for (const id of new Set(dead.taken)) {
      const { lane, position } = backlog.get(id)!;
      firstPerLane.set(lane, [...(firstPerLane.get(lane) ?? []), position]);
    }
    for (const positions of firstPerLane.values()) expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(await deliveries.countDocuments({})).toBe(0);
    expect(await cursorOf(r.store)).toMatchObject({ pauses: 0, pausedUntil: 0 });
    r.dispatcher.stop();
    await r.events.close();
  });

  it('keeps its webhook paused across a restart, and the pause goes on doubling', async () => {
    let clock = 1_000_000;
    const dead = receiver();
    const events = new SqliteEventStore(':memory:');
    const store = new MemoryReadStore();
    const first = await rig({ events, store, send: dead.send, now: () => clock });
    await queueBacklog(first, 50, 2, clock);
    await first.jobs.run();
    clock = last(first);
    await first.jobs.run();
    const pauseEnds = last(first);
    expect(pauseEnds).toBe(clock + 2 * BASE);
    first.dispatcher.stop();

    // Another process takes over (as after a kill -9): its start runs the job at once.
    clock += 10;
    const second = await rig({ events, store, send: dead.send, now: () => clock });
    const attempts = dead.attempts;
    await second.jobs.run();
    expect(dead.attempts).toBe(attempts);
    expect(last(second)).toBe(pauseEnds);
    clock = pauseEnds;
    await second.jobs.run();
    expect(dead.attempts).toBe(attempts + 1);
    expect(last(second)).toBe(clock + 4 * BASE);
    second.dispatcher.stop();
    await events.close();
  });

  it('is told from a receiver refusing one delivery for itself: that one is retried alone while the other lanes go on', async () => {
    let clock = 1_000_000;
    let poisoned = '';
    const taken: string[] = [];
    const send: Send = async (_hook, eventId) =>
      eventId === poisoned
        ? { ok: false, result: 'HTTP 400' }
        : (taken.push(eventId), { ok: true, result: 'HTTP 204' });
    const r = await rig({ send, now: () => clock });
    [poisoned] = await appendActions(r.events, 1);
    await r.jobs.run();
    // One refusal is no sign of a dead receiver: the next run is the usual poll, not a pause.
    expect(last(r)).toBe(clock + 500);
    expect((await cursorOf(r.store)).pauses ?? 0).toBe(0);
    const others = await appendActions(r.events, 3, 1);
    clock += 500;
    await r.jobs.run();
    expect(taken).toEqual(others);
    r.dispatcher.stop();
    await r.events.close();
  });

  it('paused by deliveries refused for themselves, probes with a new event first: the other lanes go on once it is taken', async () => {
    let clock = 1_000_000;
    const taken: string[] = [];
    let refused = new Set<string>();
    const send: Send = async (_hook, eventId) =>
      refused.has(eventId)
        ? { ok: false, result: 'HTTP 400' }
        : (taken.push(eventId), { ok: true, result: 'HTTP 204' });
    const r = await rig({ send, now: () => clock });
    refused = new Set(await appendActions(r.events, 2, 1));
    await r.jobs.run();
    // Two refused, none taken: like a dead receiver.
    expect(last(r)).toBe(clock + BASE);
    const fresh = await appendActions(r.events, 3, 1);
    clock = last(r);
    await r.jobs.run();
    expect(taken).toEqual(fresh);
    expect(await cursorOf(r.store)).toMatchObject({ pauses: 0 });
    r.dispatcher.stop();
    await r.events.close();
  });
});
