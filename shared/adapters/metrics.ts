/**
 * The service's metrics in the Prometheus text format (prom-client): what operators watch. Each
 * service instance has its own registry (a process may run several, as the tests do).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AppendResult, EventStore, StreamAppend, SubscribeOptions } from './event-store/port';
import type { JobScheduler } from './jobs/port';

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Seconds: a request, an append, a projection's lag. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly appends = new Histogram({
    name: 'event_store_append_duration_seconds',
    help: 'Atomic appends to the event store, until durable',
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly groupCommits = new Histogram({
    name: 'event_store_group_commit_appends',
    help: 'Appends the embedded store committed together in one transaction and one disk sync',
    buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500],
    registers: [this.registry],
  });
  private readonly projectionLag = new Histogram({
    name: 'projection_lag_seconds',
    help: 'From an event being recorded to the read models having it',
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly rateLimited = new Counter({
    name: 'rate_limit_refusals_total',
    help: 'Requests refused for a key over its rate limit',
    labelNames: ['key'],
    registers: [this.registry],
  });
  private readonly webhookDeliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts by hook and outcome',
    labelNames: ['hook', 'outcome'],
    registers: [this.registry],
  });

  private readonly simulations = new Counter({
    name: 'simulations_total',
    help: 'POST /v1/audit/simulate runs by outcome: answered, busy (another was running), stopping or memory (stopped before the answer: the service stopped, or its heap passed the ceiling)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  request(method: string, route: string, status: number, seconds: number): void {
    this.requests.observe({ method, route, status: String(status) }, seconds);
  }

  groupCommit(appends: number): void {
    this.groupCommits.observe(appends);
  }

  projected(lagSeconds: number): void {
    this.projectionLag.observe(Math.max(0, lagSeconds));
  }

  /** The jobs queue's depth by state, asked of the scheduler at each scrape (left as it was when the scheduler does not answer). */
  watchJobs(jobs: Pick<JobScheduler, 'overview'>): void {
    new Gauge({
      name: 'jobs',
      help: 'Business-time jobs and webhook runs by state: waiting (due), delayed, running, failed',
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        const overview = await jobs.overview().catch(() => null);
        if (!overview) return;
        for (const state of ['waiting', 'delayed', 'running', 'failed'] as const) this.set({ state }, overview[state]);
      },
    });
  }

  /** Whether the projections have failed (see ProjectionRunner.problem) and how often their subscription dropped, asked at each scrape. */
  watchProjections(projections: { problem(): string | null; readonly drops: number }): void {
    new Gauge({
      name: 'projection_failed',
      help: '1 while the projections are failing (faults in a row that are not a store out of reach) or stopped by a store fault',
      registers: [this.registry],
      collect() {
        this.set(projections.problem() ? 1 : 0);
      },
    });
    let counted = 0;
    new Counter({
      name: 'projection_drops_total',
      help: 'Subscriptions to the event log that dropped or failed and were retried',
      registers: [this.registry],
      collect() {
        this.inc(projections.drops - counted);
        counted = projections.drops;
      },
    });
  }

  /** Log lines the logger could not write and dropped (a full disk: see LogDestination), asked at each scrape. */
  watchLogDrops(dropped: () => number): void {
    let counted = 0;
    new Counter({
      name: 'log_lines_dropped_total',
      help: 'Log lines that could not be written (a full disk, a closed pipe, too many waiting) and were dropped',
      registers: [this.registry],
      collect() {
        const now = dropped();
        this.inc(now - counted);
        counted = now;
      },
    });
  }

  rateLimitRefused(keyName: string): void {
    this.rateLimited.inc({ key: keyName });
  }

  webhookDelivery(hook: string, outcome: 'delivered' | 'retried' | 'failed'): void {
    this.webhookDeliveries.inc({ hook, outcome });
  }

  simulated(outcome: 'answered' | 'busy' | 'stopping' | 'memory'): void {
    this.simulations.inc({ outcome });
  }

  /** The event store, with the latency of each append measured. */
  measured(events: EventStore): EventStore {
    return new MeasuredEventStore(events, this.appends);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

class MeasuredEventStore implements EventStore {
  constructor(
    private readonly events: EventStore,
    private readonly appends: Histogram,
  ) {}

  async appendToStreams(batch: readonly StreamAppend[]): Promise<AppendResult> {
    const stop = this.appends.startTimer();
    try {
      return await this.events.appendToStreams(batch);
    } finally {
      stop();
    }
  }

  readStream(...args: Parameters<EventStore['readStream']>) {
    return this.events.readStream(...args);
  }

  streamRevision(stream: string) {
    return this.events.streamRevision(stream);
  }

  readAll(...args: Parameters<EventStore['readAll']>) {
    return this.events.readAll(...args);
  }

  headPosition() {
    return this.events.headPosition();
  }

  writeProblem() {
    return this.events.writeProblem();
  }

  subscribeToAll(options: SubscribeOptions) {
    return this.events.subscribeToAll(options);
  }

  close() {
    return this.events.close();
  }
}
