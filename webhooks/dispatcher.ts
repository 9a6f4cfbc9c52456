/**
 * Delivers the log's events to the webhooks: one job per webhook on the Jobs port (embedded
 * timers, or BullMQ on Redis), so exactly one process runs a webhook's deliveries at a time and
 * its retries survive restarts. Each run:
 * 1. takes the deliveries that wait (retries, and events queued behind them in their lane);
 * 2. reads the log after the webhook's cursor, keeping the event types the webhook takes;
 * 3. sends, lanes at the same time (a player's events in log order, one after another);
 * 4. records what still waits, then moves the cursor, then schedules itself again.
 * A crash anywhere re-reads from the cursor: every event is delivered at least once, never
 * skipped. Delivery runs apart from the requests: a slow or dead receiver never slows actions.
 *
 * A receiver that fails every attempt (two or more in a run, none delivered) pauses its webhook
 * as a whole, for its backoff: a run during the pause reads nothing but the cursor, and a run
 * after it first sends one probe, going on with the rest only if it is delivered. So a dead
 * receiver costs one attempt per backoff step, however many deliveries wait for it.
 */
import type { RunConfig } from '../shared/adapters/config/env';
import type { EventStore, RecordedEvent } from '../shared/adapters/event-store/port';
import type { JobScheduler } from '../shared/adapters/jobs/port';
import type { Logger } from '../shared/adapters/logging/logger';
import type { ServiceMetrics } from '../shared/adapters/metrics';
import type { Collection, ReadStore } from '../shared/adapters/read-store/port';
import type { Webhook } from './config';
import {
  deliveryId,
  laneOf,
  messageOf,
  RECENT_OUTCOMES,
  WEBHOOK_COLLECTIONS,
  type CursorDoc,
  type DeliveryDoc,
  type Outcome,
  type SummaryDoc,
} from './deliveries';
import type { Send } from './sender';

export const WEBHOOK_JOB = 'webhook-delivery';
const WEBHOOK_JOB_ID_PREFIX = 'webhook:';
export const webhookJobId = (hook: string): string => `${WEBHOOK_JOB_ID_PREFIX}${hook}`;

/**
 * Drops the waiting jobs of webhooks the webhooks file no longer has (none deliver them, so they
 * would wait for ever, a stuck queue to an operator), saying so once in the log.
 */
export async function dropRemovedWebhookJobs(
  jobs: JobScheduler,
  hooks: readonly Webhook[],
  log: Logger,
): Promise<void> {
  const configured = new Set(hooks.map((h) => webhookJobId(h.name)));
  const dropped = await jobs.drop(WEBHOOK_JOB, (jobId) => configured.has(jobId));
  if (dropped.length > 0)
    log.info(
      { jobIds: dropped },
      `dropped the jobs of webhooks no longer configured: ${dropped.map((id) => id.slice(WEBHOOK_JOB_ID_PREFIX.length)).join(', ')}`,
    );
}

/**
 * `concurrency`: deliveries of one webhook in flight at once (each in its own lane);
 * `retryBaseMs`: the wait after a first failed attempt, each next one twice as long, at most an
 * hour; `maxAttempts`: attempts of a delivery before it is given up (kept as failed; its lane
 * moves on). The attempt's timeout is the sender's.
 */
export type WebhookSettings = Pick<RunConfig['webhooks'], 'concurrency' | 'retryBaseMs' | 'maxAttempts'>;

/** How often a webhook that has caught up looks for new events. */
const POLL_MS = 500;
/** How often a webhook with as many waiting deliveries as may looks again (when none is due sooner). */
const FULL_POLL_MS = 5_000;
/** How often every webhook's job is started again, in case it was lost. */
const WATCH_MS = 60_000;
/** Given-up deliveries kept per webhook (the newest); older ones are dropped. */
const FAILED_KEPT = 1_000;
/** Events a run takes per delivery in flight: a run is short, and a crash repeats little. */
const EVENTS_PER_SLOT = 8;
/** Events of the log a run reads at most (most may be of types the webhook does not take). */
const SCAN_PER_RUN = 5000;
const READ_PAGE = 500;
/** A run starts no attempt after this long; what it did not send waits for the next run. */
const RUN_BUDGET_MS = 10_000;
/** Deliveries that may wait per webhook; beyond, the cursor stays until they drain (the log keeps the rest). */
const MAX_WAITING = 10_000;
const MAX_BACKOFF_MS = 3_600_000;
/** A run that failed on its stores tries again after this long. */
const AFTER_STORE_FAILURE_MS = 5_000;

/** One event of a run, new from the log or read back from its delivery document. */
interface Pending {
  id: string;
  lane: string;
  position: number;
  eventId: string;
  type: string;
  /** Built from the event when read from the log; a stored delivery's is built again at its attempt. */
  body: string | null;
  attempts: number;
  nextAttemptAt: number;
  lastResult: string | null;
  /** Its delivery document exists. */
  stored: boolean;
  /** Attempted in this run: its document changes. */
  attempted: boolean;
}

interface RunResult {
  /** Documents to write (still waiting, or failed) and to delete (delivered). */
  keep: DeliveryDoc[];
  drop: string[];
  outcomes: Outcome[];
  /** The earliest time a lane left waiting may be tried again. */
  nextDue: number;
}

export interface WebhookDispatcherDeps {
  hooks: readonly Webhook[];
  events: EventStore;
  store: ReadStore;
  jobs: JobScheduler;
  send: Send;
  settings: WebhookSettings;
  metrics: ServiceMetrics;
  log: Logger;
  now?: () => number;
  /** How often every webhook's job is started again (default WATCH_MS). */
  watchMs?: number;
}

export class WebhookDispatcher {
  private readonly hooks: ReadonlyMap<string, Webhook>;
  private readonly now: () => number;
  private stopping = false;
  private watch: NodeJS.Timeout | undefined;

  constructor(private readonly deps: WebhookDispatcherDeps) {
    this.hooks = new Map(deps.hooks.map((h) => [h.name, h]));
    this.now = deps.now ?? Date.now;
  }

  /**
   * Gives each new webhook its cursor at the log's head (it gets the events appended from then
   * on), registers the job and starts every webhook's (a start replaces a job, never doubles it).
   * Then, every WATCH_MS, starts them again: a job lost (a schedule that failed, a process whose
   * webhooks file lacks the webhook took it) is back within that time.
   */
  async start(): Promise<void> {
    const { store, jobs, events } = this.deps;
    await store.ensureIndex(WEBHOOK_COLLECTIONS.deliveries, { hook: 1, status: 1, position: 1 });
    // The probe after a pause: the waiting delivery due first.
    await store.ensureIndex(WEBHOOK_COLLECTIONS.deliveries, { hook: 1, status: 1, nextAttemptAt: 1 });
    const head = await events.headPosition();
    for (const name of this.hooks.keys())
      await this.cursors().updateOne({ _id: name }, { $setOnInsert: { position: head, epoch: 0 } }, { upsert: true });
    jobs.handle(WEBHOOK_JOB, async (payload) => this.run(String(payload.hook)));
    await this.wakeAll();
    this.watch = setInterval(() => void this.wakeAll(), this.deps.watchMs ?? WATCH_MS);
    this.watch.unref();
  }

  /** Runs the webhook's job now (after a redelivery, or at start). */
  wake(name: string): Promise<void> {
    return this.deps.jobs.schedule(WEBHOOK_JOB, webhookJobId(name), this.now(), { hook: name });
  }

  /** Runs in progress start no new attempt: what they did not send waits, recorded, for the next run, in any process. */
  stop(): void {
    this.stopping = true;
    clearInterval(this.watch);
  }

  private async wakeAll(): Promise<void> {
    for (const name of this.hooks.keys()) {
      await this.wake(name).catch((error: Error) =>
        this.deps.log.warn(
          { webhook: name, err: error.message },
          'webhook: starting its job failed; trying again later',
        ),
      );
    }
  }

  private cursors() {
    return this.deps.store.collection<CursorDoc>(WEBHOOK_COLLECTIONS.cursors);
  }

  private deliveries() {
    return this.deps.store.collection<DeliveryDoc>(WEBHOOK_COLLECTIONS.deliveries);
  }

  /** The wait after the `n`th failure in a row: retryBaseMs, doubling, at most an hour. */
  private backoff(n: number): number {
    return Math.min(MAX_BACKOFF_MS, this.deps.settings.retryBaseMs * 2 ** (n - 1));
  }

  private async run(name: string): Promise<void> {
    const hook = this.hooks.get(name);
    // Not in this process's webhooks file (removed from it): a process that has it starts it again.
    if (!hook) return;
    let next: number;
    try {
      next = this.stopping ? this.now() : await this.deliver(hook);
    } catch (error) {
      this.deps.log.warn(
        { webhook: name, err: (error as Error).message },
        'webhook run failed on a store; trying again',
      );
      next = this.now() + AFTER_STORE_FAILURE_MS;
    }
    // Also when stopping: another process (or the next start) goes on at once. If this fails,
    // the job ends here and the next wake (WATCH_MS) starts it again.
    await this.deps.jobs
      .schedule(WEBHOOK_JOB, webhookJobId(name), next, { hook: name })
      .catch((error: Error) =>
        this.deps.log.warn(
          { webhook: name, err: error.message },
          'webhook: scheduling its next run failed; it starts again within a minute',
        ),
      );
  }

  /** One run; returns when the next should start. */
  private async deliver(hook: Webhook): Promise<number> {
    let cursor = await this.cursorOf(hook.name);
    const pausedUntil = cursor.pausedUntil ?? 0;
    // Its receiver failing: waiting deliveries and the log are not read until the pause ends.
    if (pausedUntil > this.now()) return pausedUntil;
    if (cursor.pauses) {
      const probe = await this.probe(hook, cursor);
      if (probe === 'stopped') return this.now();
      if (probe === 'failed') return this.pause(hook.name, cursor, cursor.pauses + 1);
      // Delivered, or nothing to probe: the receiver gets the rest, as before it failed.
      if (!(await this.unpause(hook.name, cursor))) return this.now();
      if (probe === 'delivered')
        this.deps.log.info(
          { webhook: hook.name, pauses: cursor.pauses },
          'webhook receiver answers again; delivering what waits',
        );
      cursor = await this.cursorOf(hook.name);
    }
    return this.deliverAll(hook, cursor);
  }

  private async cursorOf(name: string): Promise<CursorDoc> {
    const cursor = await this.cursors().findOne({ _id: name });
    // Made at start; gone only with the read store's data, which this run cannot make up for.
    if (!cursor) throw new Error(`no cursor for webhook ${name}`);
    return cursor;
  }

  /** Every lane whose turn has come, with the log's new events; see the file's comment. */
  private async deliverAll(hook: Webhook, cursor: CursorDoc): Promise<number> {
    const started = this.now();
    const cursors = this.cursors();
    const deliveries = this.deliveries();
    const waiting = await deliveries.find(
      { hook: hook.name, status: 'waiting' },
      { sort: { position: 1 }, limit: MAX_WAITING },
    );
    // As many waiting as may, all before the cursor (a receiver down for long): the log waits until they drain.
    const full = waiting.length === MAX_WAITING && waiting[waiting.length - 1].position <= cursor.position;
    const read = full ? { events: [], to: cursor.position, more: false } : await this.readEvents(hook, cursor.position);
    const readTo = read.to;
    const lanes = new Map<string, Pending[]>();
    const queue = (p: Pending) => {
      const lane = lanes.get(p.lane);
      if (lane) lane.push(p);
      else lanes.set(p.lane, [p]);
    };
    // Events that already have a delivery (waiting, or given up) are not new, even when read
    // again (a crash between recording a run and moving the cursor).
    const givenUp = await deliveries.find({ hook: hook.name, status: 'failed', position: { $gt: cursor.position } });
    const known = new Set([...waiting, ...givenUp].map((d) => d._id));
    // A waiting delivery after the events read (after a redelivery moved the cursor back) waits
    // for the log to be read up to it, so that its lane keeps log order.
    for (const d of waiting) if (d.position <= readTo) queue(stored(d));
    for (const event of read.events) if (!known.has(deliveryId(hook.name, event.id))) queue(fresh(hook.name, event));
    for (const lane of lanes.values()) lane.sort((a, b) => a.position - b.position);

    const result = emptyResult();
    const deadline = started + RUN_BUDGET_MS;
    const pool = [...lanes.values()];
    await Promise.all(
      Array.from({ length: Math.min(this.deps.settings.concurrency, pool.length) }, async () => {
        for (let lane = pool.shift(); lane; lane = pool.shift()) await this.deliverLane(hook, lane, deadline, result);
      }),
    );

    await this.record(hook.name, deliveries, result);
    // Moved only if no redelivery moved it meanwhile (it would be undone).
    if (readTo > cursor.position)
      await cursors.updateOne({ _id: hook.name, epoch: cursor.epoch }, { $set: { position: readTo } });
    // Two deliveries or more refused, none taken: the receiver fails, not a delivery it refuses
    // for itself (that one is retried on its own backoff while the others go on).
    if (result.outcomes.length >= 2 && !result.outcomes.some((o) => o.outcome === 'delivered'))
      return this.pause(hook.name, cursor, 1);
    if (read.more) return this.now();
    return Math.min(this.now() + (full ? FULL_POLL_MS : POLL_MS), result.nextDue);
  }

  /**
   * The one attempt of a run after a pause: the log's next event if its lane waits for nothing
   * (whether the receiver takes anything at all, apart from deliveries it may refuse for
   * themselves), else the waiting delivery due first. Recorded like any attempt. `none`: nothing
   * to probe (the deliveries retried were given up), so the run goes on as usual; `stopped`: not
   * sent, the process stopping.
   */
  private async probe(hook: Webhook, cursor: CursorDoc): Promise<'delivered' | 'failed' | 'none' | 'stopped'> {
    const deliveries = this.deliveries();
    const next = await this.nextFresh(hook, cursor);
    let probe = next && fresh(hook.name, next);
    if (!probe) {
      // Only a lane's head is ever attempted: one with attempts is a head still.
      const [due] = await deliveries.find(
        { hook: hook.name, status: 'waiting', attempts: { $gt: 0 } },
        { sort: { nextAttemptAt: 1, position: 1 }, limit: 1 },
      );
      if (!due) return 'none';
      // The webhook's pause paces it now, not its own backoff.
      probe = { ...stored(due), nextAttemptAt: 0 };
    }
    const result = emptyResult();
    await this.deliverLane(hook, [probe], Infinity, result);
    await this.record(hook.name, deliveries, result);
    // Only events of other types lie between the cursor and a new event probed.
    if (next)
      await this.cursors().updateOne({ _id: hook.name, epoch: cursor.epoch }, { $set: { position: next.position } });
    const outcome = result.outcomes[0]?.outcome;
    return !outcome ? 'stopped' : outcome === 'delivered' ? 'delivered' : 'failed';
  }

  /** The webhook's next event in the log if nothing waits in its lane and the backlog may grow. */
  private async nextFresh(hook: Webhook, cursor: CursorDoc): Promise<RecordedEvent | null> {
    const deliveries = this.deliveries();
    const [event] = (await this.readEvents(hook, cursor.position, 1)).events;
    if (!event) return null;
    if (await deliveries.findOne({ _id: deliveryId(hook.name, event.id) })) return null;
    if (await deliveries.findOne({ hook: hook.name, status: 'waiting', lane: laneOf(event) })) return null;
    return (await deliveries.countDocuments({ hook: hook.name, status: 'waiting' })) < MAX_WAITING ? event : null;
  }

  /** Pauses the webhook for its `pauses`th backoff; returns when its next run should start. */
  private async pause(name: string, cursor: CursorDoc, pauses: number): Promise<number> {
    const until = this.now() + this.backoff(pauses);
    // A redelivery meanwhile ended the pause, and is to be attempted at once.
    const { matchedCount } = await this.cursors().updateOne(
      { _id: name, epoch: cursor.epoch },
      { $set: { pauses, pausedUntil: until } },
    );
    if (!matchedCount) return this.now();
    if (pauses === 1)
      this.deps.log.warn(
        { webhook: name, pauseMs: until - this.now() },
        'webhook receiver fails every attempt; pausing the webhook, then one attempt per backoff step',
      );
    return until;
  }

  /** False when a redelivery moved the cursor meanwhile: the next run starts over from it. */
  private async unpause(name: string, cursor: CursorDoc): Promise<boolean> {
    const { matchedCount } = await this.cursors().updateOne(
      { _id: name, epoch: cursor.epoch },
      { $set: { pauses: 0, pausedUntil: 0 } },
    );
    return matchedCount > 0;
  }

  /**
   * The webhook's events after `from`: `wanted`, by default about as many as a run delivers (so
   * that a crash repeats little), reading at most SCAN_PER_RUN events of the log. `to`: the last
   * event read.
   */
  private async readEvents(
    hook: Webhook,
    from: number,
    wanted = this.deps.settings.concurrency * EVENTS_PER_SLOT,
  ): Promise<{ events: RecordedEvent[]; to: number; more: boolean }> {
    const events: RecordedEvent[] = [];
    let to = from;
    for (let scanned = 0; scanned < SCAN_PER_RUN;) {
      const page = await this.deps.events.readAll({ fromPosition: to, maxCount: READ_PAGE });
      for (const event of page) {
        to = event.position;
        scanned++;
        if (!hook.events.has(event.type)) continue;
        events.push(event);
        if (events.length === wanted) return { events, to, more: true };
      }
      if (page.length < READ_PAGE) return { events, to, more: false };
    }
    return { events, to, more: true };
  }

  /** A lane's deliveries in order, until one fails (the rest wait behind it) or the run is over. */
  private async deliverLane(hook: Webhook, lane: Pending[], deadline: number, result: RunResult): Promise<void> {
    const { settings, metrics } = this.deps;
    for (let i = 0; i < lane.length; i++) {
      const p = lane[i];
      if (p.nextAttemptAt > this.now() || this.now() >= deadline || this.stopping) {
        this.leaveWaiting(hook.name, lane.slice(i), result);
        return;
      }
      const attempt = await this.deps.send(hook, p.eventId, p.body ?? (await this.bodyOf(p)));
      const at = this.now();
      p.attempts++;
      p.attempted = true;
      p.lastResult = attempt.result;
      const outcome = (o: Outcome['outcome']): Outcome => ({
        eventId: p.eventId,
        type: p.type,
        position: p.position,
        outcome: o,
        attempts: p.attempts,
        at,
        result: attempt.result,
      });
      if (attempt.ok) {
        if (p.stored) result.drop.push(p.id);
        result.outcomes.push(outcome('delivered'));
        metrics.webhookDelivery(hook.name, 'delivered');
        continue;
      }
      if (p.attempts >= settings.maxAttempts) {
        result.keep.push(documentOf(hook.name, p, 'failed'));
        result.outcomes.push(outcome('failed'));
        metrics.webhookDelivery(hook.name, 'failed');
        this.deps.log.warn(
          {
            webhook: hook.name,
            eventId: p.eventId,
            position: p.position,
            attempts: p.attempts,
            result: attempt.result,
          },
          'webhook delivery failed; attempts used up',
        );
        continue;
      }
      p.nextAttemptAt = at + this.backoff(p.attempts);
      result.outcomes.push(outcome('retrying'));
      metrics.webhookDelivery(hook.name, 'retried');
      this.leaveWaiting(hook.name, lane.slice(i), result);
      return;
    }
  }

  /** A stored delivery's body, from its event in the log (its personal fields `[erased]` once the player is). */
  private async bodyOf(p: Pending): Promise<string> {
    const [event] = await this.deps.events.readAll({ fromPosition: p.position - 1, maxCount: 1 });
    // The log is append-only: a delivery's event is in it, unless the store lost data.
    if (event?.id !== p.eventId) throw new Error(`event ${p.eventId} of a delivery is not at position ${p.position}`);
    return messageOf(event);
  }

  /** The rest of a lane, from its head on, waits for a later run; the head says when. */
  private leaveWaiting(hook: string, rest: Pending[], result: RunResult): void {
    result.nextDue = Math.min(result.nextDue, rest[0].nextAttemptAt);
    for (const p of rest) if (!p.stored || p.attempted) result.keep.push(documentOf(hook, p, 'waiting'));
  }

  private async record(name: string, deliveries: Collection<DeliveryDoc>, result: RunResult): Promise<void> {
    const writes = [
      ...result.keep.map((doc) => ({ replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } })),
      ...(result.drop.length ? [{ deleteMany: { filter: { _id: { $in: result.drop } } } }] : []),
    ];
    if (writes.length) await deliveries.bulkWrite(writes);
    if (!result.outcomes.length) return;
    if (result.outcomes.some((o) => o.outcome === 'failed')) {
      const beyond = await deliveries.find(
        { hook: name, status: 'failed' },
        { sort: { position: -1 }, skip: FAILED_KEPT },
      );
      if (beyond.length) await deliveries.deleteMany({ _id: { $in: beyond.map((d) => d._id) } });
    }
    const summaries = this.deps.store.collection<SummaryDoc>(WEBHOOK_COLLECTIONS.summaries);
    const summary = (await summaries.findOne({ _id: name })) ?? { _id: name, delivered: 0, failed: 0, recent: [] };
    const newest = [...result.outcomes].sort((a, b) => b.at - a.at || b.position - a.position);
    await summaries.replaceOne(
      { _id: name },
      {
        _id: name,
        delivered: summary.delivered + result.outcomes.filter((o) => o.outcome === 'delivered').length,
        failed: summary.failed + result.outcomes.filter((o) => o.outcome === 'failed').length,
        recent: [...newest, ...summary.recent].slice(0, RECENT_OUTCOMES),
      },
      { upsert: true },
    );
  }
}

function emptyResult(): RunResult {
  return { keep: [], drop: [], outcomes: [], nextDue: Infinity };
}

function stored(d: DeliveryDoc): Pending {
  return { ...d, id: d._id, body: null, stored: true, attempted: false };
}

function fresh(hook: string, event: RecordedEvent): Pending {
  return {
    id: deliveryId(hook, event.id),
    lane: laneOf(event),
    position: event.position,
    eventId: event.id,
    type: event.type,
    body: messageOf(event),
    attempts: 0,
    nextAttemptAt: 0,
    lastResult: null,
    stored: false,
    attempted: false,
  };
}

function documentOf(hook: string, p: Pending, status: DeliveryDoc['status']): DeliveryDoc {
  return {
    _id: p.id,
    hook,
    lane: p.lane,
    position: p.position,
    eventId: p.eventId,
    type: p.type,
    status,
    attempts: p.attempts,
    nextAttemptAt: p.nextAttemptAt,
    lastResult: p.lastResult,
  };
}
