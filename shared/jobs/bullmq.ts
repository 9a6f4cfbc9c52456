/**
 * Jobs adapter on BullMQ (Redis): one queue shared by every process; a process that calls
 * start() runs a Worker on it. BullMQ's delayed jobs, job ids, retries with exponential
 * backoff and stalled-job recovery give "runs once, at its time, survives restarts".
 */
import { DelayedError, Job, Queue, RedisConnection, RedisOptions, Worker } from 'bullmq';
import { createLogger } from '../logging/logger';
import {
  DEFAULT_ATTEMPTS,
  DEFAULT_BACKOFF_MS,
  JobHandler,
  JobLogger,
  JobPayload,
  JobScheduler,
  JobSchedulerOptions,
  StoreUnavailableError,
} from './port';

export interface BullMqJobSchedulerOptions extends JobSchedulerOptions {
  /** Redis URL, e.g. `redis://127.0.0.1:6379`. */
  connection: string;
  queueName: string;
  /** Prefix of the queue's Redis keys. Default 'bull'. */
  prefix?: string;
  /** Jobs this process runs at the same time. Default 10. */
  concurrency?: number;
  /** How long schedule()/cancel() wait for Redis before StoreUnavailableError. Default 2000. */
  timeoutMs?: number;
  /**
   * A worker that took a job of a type it has no handler for puts it back for this long, so a
   * process that has the handler can take it. Default 5000.
   */
  unhandledDelayMs?: number;
}

/** What a job carries in Redis: the caller's id (BullMQ's own id is an encoding of it). */
interface JobData {
  jobId: string;
  payload: JobPayload;
}

/** How long schedule()/cancel() wait for a run of that job in progress to end. */
const RUNNING_JOB_WAIT_MS = 10_000;

/**
 * BullMQ refuses custom ids that are integers or contain ':'. A fixed prefix and escaping of
 * '%' and ':' map every caller id to an allowed one, never two ids to the same one.
 */
function bullJobId(jobId: string): string {
  return `j-${jobId.replace(/%/g, '%25').replace(/:/g, '%3A')}`;
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

/** How long close() waits for the worker's running jobs and for Redis. */
const CLOSE_WAIT_MS = 2000;

/** Whether `operation` settled within `ms`; it keeps running (and failing quietly) otherwise. */
async function within(operation: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([operation.then(() => true, () => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class BullMqJobScheduler implements JobScheduler {
  private readonly queue: Queue<JobData>;
  private worker: Worker<JobData> | undefined;
  private readonly handlers = new Map<string, JobHandler>();
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly timeoutMs: number;
  private readonly logger: JobLogger;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: BullMqJobSchedulerOptions) {
    this.attempts = options.attempts ?? DEFAULT_ATTEMPTS;
    this.backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.logger = options.logger ?? createLogger('info');
    // No offline queue: while Redis is down a command fails at once instead of piling up.
    this.queue = new Queue<JobData>(
      options.queueName,
      { connection: { ...this.connection(), enableOfflineQueue: false }, prefix: options.prefix },
      ClosableConnection,
    );
    // BullMQ emits connection trouble as 'error'; unheard, an 'error' event would crash the process.
    this.queue.on('error', (error) => this.logger.warn({ err: error }, 'job queue: redis error'));
  }

  async schedule(type: string, jobId: string, runAt: number, payload: JobPayload): Promise<void> {
    const id = bullJobId(jobId);
    // add() ignores an id that exists, so replacing is remove, then add.
    await this.removeWhenNotRunning(id, jobId);
    await this.redis(
      this.queue.add(
        type,
        { jobId, payload },
        {
          jobId: id,
          delay: Math.max(0, runAt - Date.now()),
          attempts: this.attempts,
          backoff: { type: 'exponential', delay: this.backoffMs },
          removeOnComplete: true,
          // Failed jobs stay a while for inspection; a later schedule() of the id removes it first.
          removeOnFail: { count: 1000 },
        },
      ),
    );
  }

  async cancel(jobId: string): Promise<void> {
    await this.removeWhenNotRunning(bullJobId(jobId), jobId);
  }

  handle(type: string, handler: JobHandler): void {
    this.handlers.set(type, handler);
  }

  async start(): Promise<void> {
    if (this.closing) throw new StoreUnavailableError('job scheduler is closed');
    if (this.worker) return;
    const worker = new Worker<JobData>(
      this.options.queueName,
      (job, token) => this.process(job, token),
      { connection: this.connection(), prefix: this.options.prefix, concurrency: this.options.concurrency ?? 10 },
      ClosableConnection,
    );
    worker.on('error', (error) => this.logger.warn({ err: error }, 'job worker: redis error'));
    // Emitted after every failed attempt; the job is final once its attempts are used up.
    worker.on('failed', (job, error) => {
      if (!job) return;
      const details = { jobId: job.data.jobId, type: job.name, attempt: job.attemptsMade, err: error };
      if (job.attemptsMade >= (job.opts.attempts ?? 1)) this.logger.error(details, 'job failed; attempts used up');
      else this.logger.warn(details, 'job failed; will retry');
    });
    this.worker = worker;
    await worker.waitUntilReady();
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      // The worker first: it finishes its running jobs, which still need the queue's connection.
      // With Redis gone that wait has no end, so it is bounded: a job cut off runs again elsewhere
      // (delivery is at least once), and a shutdown must not hang on a store that is away.
      if (this.worker && !(await within(this.worker.close(), CLOSE_WAIT_MS))) {
        this.logger.warn({ waitedMs: CLOSE_WAIT_MS }, 'job worker did not close in time (redis away?); closing it without waiting');
        await within(this.worker.close(true), CLOSE_WAIT_MS);
        // Drop the connections, or they keep trying to reconnect (and hold the process open).
        await within(this.worker.disconnect(), CLOSE_WAIT_MS);
      }
      if (!(await within(this.queue.close(), CLOSE_WAIT_MS))) await within(this.queue.disconnect(), CLOSE_WAIT_MS);
    })();
    return this.closing;
  }

  /**
   * Connection options for BullMQ, which then owns (and closes) the connection. Closing a
   * connection that never reached Redis otherwise keeps a 2 s ioredis timer alive, which
   * holds up the exit of a process (or of jest).
   */
  private connection(): RedisOptions {
    return { url: this.options.connection, disconnectTimeout: 200 };
  }

  private async process(job: Job<JobData>, token: string | undefined): Promise<void> {
    const handler = this.handlers.get(job.name);
    if (!handler) {
      // Not ours to run: put it back without using an attempt (DelayedError tells BullMQ so).
      this.logger.warn({ jobId: job.data.jobId, type: job.name }, 'job of a type without handler here; put back');
      await job.moveToDelayed(Date.now() + (this.options.unhandledDelayMs ?? 5000), token);
      throw new DelayedError();
    }
    await handler(job.data.payload, job.data.jobId);
  }

  /**
   * Removes the job unless a worker is running it right now (BullMQ then answers 0); in that
   * case waits for the run to end, so what the caller asked for applies to what comes after.
   */
  private async removeWhenNotRunning(id: string, jobId: string): Promise<void> {
    const deadline = Date.now() + RUNNING_JOB_WAIT_MS;
    while ((await this.redis(this.queue.remove(id))) === 0) {
      if (Date.now() > deadline) throw new Error(`job ${jobId} is still running after ${RUNNING_JOB_WAIT_MS} ms`);
      await sleep(50);
    }
  }

  /**
   * Bounds a Redis operation in time and turns connection failures into StoreUnavailableError.
   * BullMQ waits for a connection that is not ready yet without limit, hence the timer.
   */
  private async redis<T>(operation: Promise<T>): Promise<T> {
    // If the timer wins (or we are closed), the operation may still fail later: that must not
    // surface as an unhandled rejection.
    operation.catch(() => undefined);
    if (this.closing) throw new StoreUnavailableError('job scheduler is closed');
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

const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);

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
