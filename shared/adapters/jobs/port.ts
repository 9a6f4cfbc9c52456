/**
 * The Jobs port: delayed jobs that survive a restart and run once even with several workers
 * (a Pending provision's timeout, a powerup's expiry).
 *
 * Delivery is at least once: a process that dies while running a job, or a handler that
 * throws, gets the job run again, until its attempts are used (an interrupted run counts as an
 * attempt). Handlers must be idempotent (check the current state of the stream they act on
 * before appending), and may find their job early: they decide against the state they find and
 * schedule themselves again when it is not yet their time.
 *
 * Adapters: `SqliteJobScheduler` (embedded, in-process timers over a SQLite file) and
 * `BullMqJobScheduler` (Redis). Both throw `StoreUnavailableError` from schedule and overview
 * when their backing store cannot be reached, which the HTTP layer maps to 503.
 */
export { StoreUnavailableError } from '../event-store/port';

export type JobPayload = Record<string, unknown>;
export type JobHandler = (payload: JobPayload, jobId: string) => Promise<void>;

export interface JobScheduler {
  /**
   * Schedules `type` with `payload` (JSON-serialisable) to run at `runAt` (Unix ms); a time
   * in the past runs as soon as a worker is free. One atomic replace per jobId (ids are unique
   * across types): scheduling an existing id again keeps one job, with the new time and
   * payload, and of concurrent schedules of one id the last one wins. A handler may schedule
   * its own job: the run in progress finishes, and the job runs again at the new time. A job
   * already due and waiting for a free worker runs as it is.
   */
  schedule(type: string, jobId: string, runAt: number, payload: JobPayload): Promise<void>;
  /**
   * Registers the handler for a type; jobs run only in processes that registered a handler
   * for their type and called start(). A handler that throws is retried (with backoff) until
   * its attempts are used, then the job is logged as failed and kept for the operator.
   */
  handle(type: string, handler: JobHandler): void;
  /**
   * Removes the jobs of `type` that wait to run (not running now, not failed) and whose id `keep`
   * refuses, e.g. the jobs of something no longer configured; answers their ids. For types with
   * few jobs: it looks at each of them.
   */
  drop(type: string, keep: (jobId: string) => boolean): Promise<string[]>;
  /**
   * Puts failed jobs (attempts used up) back to run now with a fresh set of attempts: every one
   * of them, or those of `jobIds`; answers the ids put back. A job scheduled again since it
   * failed runs as scheduled, and its failed run is put back too (handlers are idempotent).
   */
  retryFailed(jobIds?: readonly string[]): Promise<string[]>;
  /** Starts running due jobs in this process. Jobs already overdue run at once. */
  start(): Promise<void>;
  /** What an operator watches: how many jobs wait, are delayed, run and failed, and the latest failures. */
  overview(): Promise<JobsOverview>;
  /** Stops taking jobs, waits for the running ones, and releases the store. Safe to call twice. */
  close(): Promise<void>;
}

export interface JobsOverview {
  /** Due, waiting for a free worker (none for long, unless no worker runs or all are busy). */
  waiting: number;
  /** Due later: scheduled, or a retry waiting out its backoff. */
  delayed: number;
  /** Being run now (or by a process that died, until its lock runs out). */
  running: number;
  /** Attempts used up: kept for inspection (the latest FAILED_JOBS_KEPT). */
  failed: number;
  /** The latest failures, newest first (at most RECENT_FAILURES). */
  recentFailures: FailedJob[];
}

export interface FailedJob {
  type: string;
  jobId: string;
  /** Runs started, interrupted ones included. */
  attempts: number;
  /** Unix ms. */
  failedAt: number;
  reason: string;
}

/** The part of a pino logger the schedulers use (a pino `Logger` fits). */
export interface JobLogger {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** Options both adapters take. */
export interface JobSchedulerOptions {
  /** Runs of a job before it is logged as failed, the first and interrupted ones included. Default 5. */
  attempts?: number;
  /** Delay before the first retry; each next retry waits twice as long, up to maxBackoffMs. Default 1000. */
  backoffMs?: number;
  /** Longest wait before a retry. Default 5 minutes. */
  maxBackoffMs?: number;
  /**
   * How long a run holds its job without a sign of life: the job of a process that died
   * mid-run runs again elsewhere once this has passed. Default 30000.
   */
  lockMs?: number;
  /** Where retries and failures are reported. Default: a pino logger at level info. */
  logger?: JobLogger;
}

/**
 * With the default backoff, a job is retried for about 18 minutes (1 s doubling to 5 min, then
 * every 5 min): a store away for minutes (a Redis or KurrentDB restart, a fail-over) delays the
 * jobs due meanwhile rather than failing them for good.
 */
export const DEFAULT_ATTEMPTS = 12;
export const DEFAULT_BACKOFF_MS = 1000;
export const DEFAULT_MAX_BACKOFF_MS = 300_000;

/** The wait before run `attempt + 1` of a job whose run `attempt` (1 for the first) failed. */
export function retryDelay(attempt: number, backoffMs: number, maxBackoffMs: number): number {
  return Math.min(backoffMs * 2 ** (attempt - 1), maxBackoffMs);
}
export const DEFAULT_LOCK_MS = 30_000;
/** Failed jobs kept for the operator; older ones are dropped. */
export const FAILED_JOBS_KEPT = 1000;
/** Failures listed by overview(). */
export const RECENT_FAILURES = 20;

/** The log message of a job whose attempts are used up: the one line an operator alerts on. */
export const JOB_FAILED = 'job failed; attempts used up';
