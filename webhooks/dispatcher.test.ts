/**
 * The delivery job's own rules, run by hand against a fake Jobs port: where a run leaves the
 * webhook's next run, how a webhook with a backlog of waiting deliveries goes on, what a stop
 * and a lost job do, and where a new webhook starts.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { SqliteEventStore } from '../shared/event-store/sqlite';
import type { JobHandler, JobScheduler } from '../shared/jobs/port';
import { ServiceMetrics } from '../shared/metrics';
import { MemoryReadStore } from '../shared/read-store/memory';
import type { ReadStore } from '../shared/read-store/port';
import type { Webhook } from './config';
import { WEBHOOK_COLLECTIONS, type CursorDoc, type DeliveryDoc } from './deliveries';
import { WebhookDispatcher, webhookJobId } from './dispatcher';
import type { Send } from './sender';

const HOOK: Webhook = { name: 'crm', url: 'http://127.0.0.1:9/hooks', secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`, events: new Set(['ActionProcessed']) };

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

async function rig(options: { store?: ReadStore; events?: SqliteEventStore; send?: Send; watchMs?: number } = {}): Promise<Rig> {
  const events = options.events ?? new SqliteEventStore(':memory:');
  const store = options.store ?? new MemoryReadStore();
  const jobs = new HandJobs();
  const sent: string[] = [];
  const send: Send = options.send ?? (async (_hook, eventId) => (sent.push(eventId), { ok: true, result: 'HTTP 204' }));
  const dispatcher = new WebhookDispatcher({ hooks: [HOOK], events, store, jobs: jobs as unknown as JobScheduler, send, settings: { concurrency: 4, retryBaseMs: 1000, maxAttempts: 3 }, metrics: new ServiceMetrics(), log: pino({ level: 'silent' }), watchMs: options.watchMs });
  await dispatcher.start();
  return { events, store, jobs, sent, dispatcher };
}

/** `count` ActionProcessed events, `perPlayer` to a player, in one append per player. */
async function appendActions(events: SqliteEventStore, count: number, perPlayer = 10): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < count; n += perPlayer) {
    const playerId = randomUUID();
    const batch = Array.from({ length: Math.min(perPlayer, count - n) }, () => ({ id: randomUUID(), type: 'ActionProcessed', data: { playerId }, metadata: METADATA }));
    ids.push(...batch.map((e) => e.id));
    await events.appendToStreams([{ stream: `player-${playerId}`, events: batch, expectedRevision: 'any' }]);
  }
  return ids;
}

const METADATA = { correlationId: 'test', causationId: 'test', keyName: 'test', catalogVersion: 1 };

const cursorOf = async (store: ReadStore) => (await store.collection<CursorDoc>(WEBHOOK_COLLECTIONS.cursors).findOne({ _id: HOOK.name }))!;

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
      await deliveries.insertOne({ _id: `${HOOK.name}|${e.id}`, hook: HOOK.name, lane: `player:${(e.data as { playerId: string }).playerId}`, position: e.position, eventId: e.id, type: e.type, body: '{}', status: 'waiting', attempts: 0, nextAttemptAt: 0, lastResult: null });
    }
    await r.store.collection<CursorDoc>(WEBHOOK_COLLECTIONS.cursors).replaceOne({ _id: HOOK.name }, { _id: HOOK.name, position: 0, epoch: 1 });
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
    const r = await rig({ send: async (_hook, eventId) => (down ? { ok: false, result: 'HTTP 503' } : (sent.push(eventId), { ok: true, result: 'HTTP 204' })) });
    await appendActions(r.events, 20, 1);
    const before = Date.now();
    await r.jobs.run();
    // Twenty lanes, each waiting on its retry (1 s): the next run is then, not now.
    expect(await r.store.collection(WEBHOOK_COLLECTIONS.deliveries).countDocuments({ status: 'waiting' })).toBe(20);
    const next = r.jobs.schedules[r.jobs.schedules.length - 1];
    expect(next).toBeGreaterThan(before);
    expect(next).toBeLessThanOrEqual(Date.now() + 1000);
    down = false;
    await new Promise((resolve) => setTimeout(resolve, 1050));
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
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(r.jobs.schedules.length).toBeGreaterThan(scheduled);

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
