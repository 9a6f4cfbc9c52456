/**
 * Jobs adapter on BullMQ (Redis): one queue per job type, shared by every process; a process
 * that calls start() runs a Worker on the queue of each type it handles, so a worker only ever
 * takes jobs it can run. BullMQ's delayed jobs, deduplication ids, retries with exponential
 * backoff and stalled-job recovery give "runs once, at its time, survives restarts".
 */
import type { Job, RedisOptions } from 'bullmq';
import { Queue, RedisConnection, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { createLogger } from '../logging/logger';
import type { JobHandler, JobLogger, JobPayload, JobScheduler, JobSchedulerOptions, JobsOverview } from './port';
import {
  DEFAULT_ATTEMPTS,
  DEFAULT_BACKOFF_MS,
  DEFAULT_LOCK_MS,
  DEFAULT_MAX_BACKOFF_MS,
  FAILED_JOBS_KEPT,
  JOB_FAILED,
  RECENT_FAILURES,
  retryDelay,
  StoreUnavailableError,
} from './port';

export interface BullMqJobSchedulerOptions extends JobSchedulerOptions {
  /** Redis URL, e.g. `redis://127.0.0.1:6379`. */
  connection: string;
  /** The queues are `<queueName>-<type>`. */
  queueName: string;
  /** Prefix of the queues' Redis keys. Default 'bull'. */
  prefix?: string;
  /** Jobs of each type this process runs at the same time. Default 10. */
  concurrency?: number;
  /** How long schedule() and overview() wait for Redis before StoreUnavailableError. Default 2000. */
  timeoutMs?: number;
}

/** What a job carries in Redis: the caller's id (BullMQ numbers its jobs itself). */
interface JobData {
  jobId: string;
  payload: JobPayload;
}

/**
 * BullMQ's connection, closed before it ever reached Redis, reports that failed first
 * connection as an 'error' event after close() has removed every listener: an unhandled
 * error that would crash the process. Nobody listening after close means nobody to tell.
 */
class ClosableConnection extends RedisConnection {
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'error' && this.listenerCount('error') === 0) return false;
    return super.emit(event, ...args);
  }
}

/** The jobs' backoff type: the worker's strategy (retryDelay), which BullMQ calls for a type it does not know. */
const CAPPED_BACKOFF = 'capped';

/** How long close() waits for the worker's running jobs and for Redis. */
const CLOSE_WAIT_MS = 2000;

/** Whether `operation` settled within `ms`; it keeps running (and failing quietly) otherwise. */
async function within(operation: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      operation.then(
        () => true,
        () => true,
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export class BullMqJobScheduler implements JobScheduler {
  private readonly queues = new Map<string, Queue<JobData>>();
  private readonly workers = new Map<string, Worker<JobData>>();
  private readonly handlers = new Map<string, JobHandler>();
  /** The job types ever scheduled on this Redis and prefix, so that any process can list their queues. */
  private readonly types: Redis;
  private readonly typesKey: string;
  /** Types this process has added to that set. */
  private readonly recorded = new Set<string>();
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly lockMs: number;
  private readonly timeoutMs: number;
  private readonly logger: JobLogger;
  private started = false;
  private closing: Promise<void> | undefined;
  /** Set once the workers have drained: until then a run finishing may still schedule its next one. */
  private queuesClosed = false;

  constructor(private readonly options: BullMqJobSchedulerOptions) {
    this.attempts = options.attempts ?? DEFAULT_ATTEMPTS;
    this.backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
    this.maxBackoffMs = options.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS;
    this.lockMs = options.lockMs ?? DEFAULT_LOCK_MS;
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.logger = options.logger ?? createLogger('info');
    this.typesKey = `${options.prefix ?? 'bull'}:${options.queueName}:types`;
    // While Redis is down a command fails at the next failed reconnection instead of piling up.
    this.types = new Redis(options.connection, { maxRetriesPerRequest: 0, disconnectTimeout: 200 });
    this.types.on('error', (error) => this.logger.warn({ err: error }, 'job queue: redis error'));
  }

  async schedule(type: string, jobId: string, runAt: number, payload: JobPayload): Promise<void> {
    const queue = this.queue(type);
    await this.redis(
      (async () => {
        if (!this.recorded.has(type)) {
          await this.types.sadd(this.typesKey, type);
          this.recorded.add(type);
        }
        await queue.add(
          type,
          { jobId, payload },
          {
            delay: Math.max(0, runAt - Date.now()),
            attempts: this.attempts,
            // Doubling up to maxBackoffMs, reckoned by the worker (its backoffStrategy): BullMQ's exponential has no ceiling.
            backoff: { type: CAPPED_BACKOFF },
            removeOnComplete: true,
            removeOnFail: { count: FAILED_JOBS_KEPT },
            // One atomic step in Redis: a delayed job of this id is replaced; one running now
            // (its own handler may be the caller) finishes, then runs again with what came last.
            deduplication: { id: jobId, replace: true, keepLastIfActive: true },
          },
        );
      })(),
    );
  }

  handle(type: string, handler: JobHandler): void {
    this.handlers.set(type, handler);
    if (this.started) this.work(type);
  }

  async drop(type: string, keep: (jobId: string) => boolean): Promise<string[]> {
    const queue = this.queue(type);
    return this.redis(
      (async () => {
        const dropped: string[] = [];
        for (const job of await queue.getJobs(['wait', 'paused', 'prioritized', 'delayed'])) {
          if (keep(job.data.jobId)) continue;
          // Removing takes its deduplication id too, so scheduling the id again makes a new job. A
          // job a worker took meanwhile is running now, and is left to finish.
          const removed = await job.remove().then(
            () => true,
            (error: Error) => {
              if (/locked/.test(error.message)) return false;
              throw error;
            },
          );
          if (removed) dropped.push(job.data.jobId);
        }
        return dropped;
      })(),
    );
  }

  async retryFailed(jobIds?: readonly string[]): Promise<string[]> {
    const only = jobIds ? new Set(jobIds) : undefined;
    return this.redis(
      (async () => {
        const retried: string[] = [];
        for (const type of await this.types.smembers(this.typesKey)) {
          for (const job of await this.queue(type).getFailed(0, -1)) {
            if (only && !only.has(job.data.jobId)) continue;
            // Back to wait, with its runs counted from zero again (maxStartedAttempts counts the started ones).
            await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
            retried.push(job.data.jobId);
          }
        }
        return retried;
      })(),
    );
  }

  async start(): Promise<void> {
    if (this.closing) throw new StoreUnavailableError('job scheduler is closed');
    this.started = true;
    for (const type of this.handlers.keys()) this.work(type);
    await Promise.all([...this.workers.values()].map((worker) => worker.waitUntilReady()));
  }

  async overview(): Promise<JobsOverview> {
    return this.redis(
      (async () => {
        const overview: JobsOverview = { waiting: 0, delayed: 0, running: 0, failed: 0, recentFailures: [] };
        for (const type of await this.types.smembers(this.typesKey)) {
          const queue = this.queue(type);
          const counts = await queue.getJobCounts('wait', 'paused', 'prioritized', 'delayed', 'active', 'failed');
          overview.waiting += counts.wait + counts.paused + counts.prioritized;
          overview.delayed += counts.delayed;
          overview.running += counts.active;
          overview.failed += counts.failed;
          for (const job of await queue.getFailed(0, RECENT_FAILURES - 1)) {
            overview.recentFailures.push({
              type,
              jobId: job.data.jobId,
              attempts: this.attemptsUsed(job),
              failedAt: job.finishedOn ?? job.timestamp,
              reason: job.failedReason,
            });
          }
        }
        overview.recentFailures = overview.recentFailures
          .sort((a, b) => b.failedAt - a.failedAt)
          .slice(0, RECENT_FAILURES);
        return overview;
      })(),
    );
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      // The workers first: they stop taking jobs and finish their running ones, which still need the
      // queues' connections. With Redis gone (or a run that hangs) that wait has no end, so it is
      // bounded: a run cut off runs again elsewhere once its lock runs out (an attempt used), and a
      // shutdown must not hang on a store that is away.
      await Promise.all(
        [...this.workers.values()].map(async (worker) => {
          // Paused at once; the promise ends when the runs in progress have.
          if (!(await within(worker.pause(), CLOSE_WAIT_MS))) {
            this.logger.warn(
              { waitedMs: CLOSE_WAIT_MS, queue: worker.name },
              'job runs did not finish in time (redis away?); closing the worker without waiting',
            );
          }
          // Forced: no more waiting for runs, and their locks are no longer renewed.
          if (!(await within(worker.close(true), CLOSE_WAIT_MS))) await within(worker.disconnect(), CLOSE_WAIT_MS);
        }),
      );
      this.queuesClosed = true;
      await Promise.all(
        [...this.queues.values()].map(async (queue) => {
          if (!(await within(queue.close(), CLOSE_WAIT_MS))) await within(queue.disconnect(), CLOSE_WAIT_MS);
        }),
      );
      this.types.disconnect();
    })();
    return this.closing;
  }

  private queue(type: string): Queue<JobData> {
    if (this.queuesClosed) throw new StoreUnavailableError('job scheduler is closed');
    let queue = this.queues.get(type);
    if (!queue) {
      queue = new Queue<JobData>(
        this.queueName(type),
        { connection: { ...this.connection(), enableOfflineQueue: false }, prefix: this.options.prefix },
        ClosableConnection,
      );
      // BullMQ emits connection trouble as 'error'; unheard, an 'error' event would crash the process.
      queue.on('error', (error) => this.logger.warn({ err: error }, 'job queue: redis error'));
      this.queues.set(type, queue);
    }
    return queue;
  }

  /** Runs the jobs of `type` in this process. */
  private work(type: string): void {
    if (this.workers.has(type)) return;
    const handler = this.handlers.get(type)!;
    const worker = new Worker<JobData>(
      this.queueName(type),
      (job) => handler(job.data.payload, job.data.jobId),
      {
        connection: this.connection(),
        prefix: this.options.prefix,
        concurrency: this.options.concurrency ?? 10,
        // A run holds its job's lock, renewed while it runs; a process that died leaves a lock that
        // runs out, and the next check for stalled jobs puts its job back to run again.
        lockDuration: this.lockMs,
        stalledInterval: this.lockMs,
        // Every run started counts as an attempt, interrupted ones included: a job started more
        // often than its attempts is failed, not run again; BullMQ's own limit on stalls never comes first.
        maxStartedAttempts: this.attempts,
        maxStalledCount: this.attempts,
        settings: {
          backoffStrategy: (attemptsMade) => retryDelay(attemptsMade, this.backoffMs, this.maxBackoffMs),
        },
      },
      ClosableConnection,
    );
    worker.on('error', (error) => this.logger.warn({ err: error }, 'job worker: redis error'));
    worker.on('stalled', (bullJobId) =>
      this.logger.warn({ type, bullJobId }, 'job run interrupted (its process stopped); running it again'),
    );
    // Emitted after every failed attempt; only a job that will not run again has finished.
    worker.on('failed', (job: Job<JobData> | undefined, error: Error) => {
      if (!job) return;
      const details = { jobId: job.data.jobId, type, attempt: this.attemptsUsed(job), err: error };
      if (job.finishedOn !== undefined) this.logger.error(details, JOB_FAILED);
      else this.logger.warn(details, 'job failed; will retry');
    });
    this.workers.set(type, worker);
  }

  /** Runs started; one more is counted when a job is taken only to be failed for having used them all. */
  private attemptsUsed(job: Job<JobData>): number {
    return Math.min(job.attemptsStarted, this.attempts);
  }

  private queueName(type: string): string {
    return `${this.options.queueName}-${type}`;
  }

  /**
   * Connection options for BullMQ, which then owns (and closes) the connection. Closing a
   * connection that never reached Redis otherwise keeps a 2 s ioredis timer alive, which
   * holds up the exit of a process (or of jest).
   */
  private connection(): RedisOptions {
    return { url: this.options.connection, disconnectTimeout: 200 };
  }

  /**
   * Bounds a Redis operation in time and turns connection failures into StoreUnavailableError.
   * BullMQ waits for a connection that is not ready yet without limit, hence the timer.
   */
  private async redis<T>(operation: Promise<T>): Promise<T> {
    // If the timer wins (or we are closed), the operation may still fail later: that must not
    // surface as an unhandled rejection.
    operation.catch(() => undefined);
    if (this.queuesClosed) throw new StoreUnavailableError('job scheduler is closed');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new StoreUnavailableError(`job queue: no answer from redis within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    try {
      return await Promise.race([operation, timeout]);
    } catch (error) {
      if (error instanceof StoreUnavailableError || !isConnectionError(error)) throw error;
      throw new StoreUnavailableError(`job queue: redis unavailable: ${(error as Error).message}`, error);
    } finally {
      clearTimeout(timer);
    }
  }
}

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
]);

/**
 * Failures of the connection (ioredis while Redis is down or unreachable), as opposed to
 * errors BullMQ or Redis report about the operation itself, which stay as they are.
 */
function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return (
    error.name === 'MaxRetriesPerRequestError' ||
    (code !== undefined && CONNECTION_ERROR_CODES.has(code)) ||
    /Stream isn't writeable|Connection is closed|Command timed out/.test(error.message)
  );
}
