/**
 * A small HTTP load generator on node:http with a keep-alive Agent (no dependencies):
 * - closedLoop: N connections, each sending its next request as soon as the previous answered;
 * - openLoop: requests started at a fixed rate whatever the answers, latency counted from the
 *   scheduled start (no coordinated omission).
 * Latencies are in milliseconds.
 */
import http from 'node:http';

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

export interface Answer {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

export function newAgent(connections: number): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections, scheduling: 'fifo' });
}

export function send(agent: http.Agent, port: number, spec: RequestSpec): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = spec.body === undefined ? undefined : Buffer.from(spec.body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: spec.method,
        path: spec.path,
        agent,
        headers: {
          ...(body ? { 'Content-Type': 'application/json', 'Content-Length': String(body.length) } : {}),
          ...spec.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString(),
            headers: res.headers,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export interface LoadResult {
  /** Requests started in the measured window and answered. */
  requests: number;
  /** Transport errors (connection refused/reset): not counted in `requests`. */
  errors: number;
  /** Length of the measured window, ms. */
  elapsedMs: number;
  latencies: Float64Array;
  /** By HTTP status. */
  statuses: Record<string, number>;
}

class Recorder {
  latencies: number[] = [];
  statuses: Record<string, number> = {};
  errors = 0;
  record(ms: number, status: number): void {
    this.latencies.push(ms);
    this.statuses[status] = (this.statuses[status] ?? 0) + 1;
  }
  result(elapsedMs: number): LoadResult {
    return {
      requests: this.latencies.length,
      errors: this.errors,
      elapsedMs,
      latencies: Float64Array.from(this.latencies).sort(),
      statuses: this.statuses,
    };
  }
}

export interface ClosedLoopOptions {
  port: number;
  connections: number;
  /** Not measured: lets the JIT, caches and connections warm up. */
  warmupMs: number;
  durationMs: number;
  next(): RequestSpec;
  /** Every answer of the measured window (e.g. to count outcomes). */
  onAnswer?(spec: RequestSpec, answer: Answer): void;
  /** Called when the measured window opens and closes (e.g. to profile just that). */
  onWindow?(phase: 'start' | 'end'): void;
}

/**
 * Counts the answers that arrive inside the measured window (after the warm-up), whenever their
 * request started: with long requests (nested batches) that is the throughput of the window.
 */
export async function closedLoop(options: ClosedLoopOptions): Promise<LoadResult> {
  const agent = newAgent(options.connections);
  const recorder = new Recorder();
  const start = performance.now();
  const measureFrom = start + options.warmupMs;
  const end = measureFrom + options.durationMs;
  const timers = options.onWindow
    ? [
        setTimeout(() => options.onWindow!('start'), options.warmupMs),
        setTimeout(() => options.onWindow!('end'), options.warmupMs + options.durationMs),
      ]
    : [];
  const loop = async () => {
    for (;;) {
      const t0 = performance.now();
      if (t0 >= end) return;
      const spec = options.next();
      try {
        const answer = await send(agent, options.port, spec);
        const t1 = performance.now();
        if (t1 >= measureFrom && t1 < end) {
          recorder.record(t1 - t0, answer.status);
          options.onAnswer?.(spec, answer);
        }
      } catch {
        if (t0 >= measureFrom) recorder.errors++;
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections }, loop));
  for (const t of timers) clearTimeout(t);
  agent.destroy();
  return recorder.result(options.durationMs);
}

/** Sends every request `next` gives (until it gives null) over N connections; the whole run is measured. */
export async function runAll(options: {
  port: number;
  connections: number;
  next(): RequestSpec | null;
  onAnswer?(spec: RequestSpec, answer: Answer): void;
}): Promise<LoadResult> {
  const agent = newAgent(options.connections);
  const recorder = new Recorder();
  const start = performance.now();
  const loop = async () => {
    for (let spec = options.next(); spec; spec = options.next()) {
      const t0 = performance.now();
      try {
        const answer = await send(agent, options.port, spec);
        recorder.record(performance.now() - t0, answer.status);
        options.onAnswer?.(spec, answer);
      } catch {
        recorder.errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections }, loop));
  agent.destroy();
  return recorder.result(performance.now() - start);
}

export interface OpenLoopOptions {
  port: number;
  /** Requests per second. */
  rate: number;
  durationMs: number;
  /** Sockets; requests beyond wait in the agent's queue (their wait counts as latency). */
  connections: number;
  next(): RequestSpec;
  /** Called with each answer and the time it arrived; may start follow-up requests. */
  onAnswer?(spec: RequestSpec, answer: Answer, answeredAt: number): void | Promise<void>;
}

export async function openLoop(
  options: OpenLoopOptions,
): Promise<LoadResult & { scheduled: number; answeredInWindow: number }> {
  const agent = newAgent(options.connections);
  const recorder = new Recorder();
  const start = performance.now();
  const end = start + options.durationMs;
  const inFlight = new Set<Promise<void>>();
  let scheduled = 0;
  let answeredInWindow = 0;
  while (performance.now() < end) {
    const due = Math.min(
      Math.floor(((performance.now() - start) * options.rate) / 1000),
      Math.floor((options.durationMs * options.rate) / 1000),
    );
    for (; scheduled < due; scheduled++) {
      const at = start + (scheduled * 1000) / options.rate;
      const spec = options.next();
      const p = send(agent, options.port, spec).then(
        async (answer) => {
          const now = performance.now();
          recorder.record(now - at, answer.status);
          if (now < end) answeredInWindow++;
          await options.onAnswer?.(spec, answer, now);
        },
        () => {
          recorder.errors++;
        },
      );
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(inFlight);
  const elapsedMs = performance.now() - start;
  agent.destroy();
  return { ...recorder.result(elapsedMs), scheduled, answeredInWindow };
}

/** Several runs as one: counts added, latencies merged. */
export function mergeResults(results: LoadResult[]): LoadResult {
  const statuses: Record<string, number> = {};
  for (const r of results) for (const [k, v] of Object.entries(r.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
  const latencies = new Float64Array(results.reduce((n, r) => n + r.latencies.length, 0));
  let at = 0;
  for (const r of results) {
    latencies.set(r.latencies, at);
    at += r.latencies.length;
  }
  return {
    requests: results.reduce((n, r) => n + r.requests, 0),
    errors: results.reduce((n, r) => n + r.errors, 0),
    elapsedMs: results.reduce((n, r) => n + r.elapsedMs, 0),
    latencies: latencies.sort(),
    statuses,
  };
}

/** The p-th percentile (0..100) of ascending values, nearest rank. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (!sorted.length) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function sortedOf(values: readonly number[]): Float64Array {
  return Float64Array.from(values).sort();
}
