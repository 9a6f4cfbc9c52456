/**
 * The Jobs port: delayed jobs that survive a restart and run once even with several workers
 * (the pending-provision timeout of decisions.md §9, powerup expiry of §11).
 *
 * Delivery is at least once: a process that dies while running a job, or a handler that
 * throws, gets the job run again. Handlers must be idempotent (check the current state of
 * the stream they act on before appending).
 *
 * Adapters: `SqliteJobScheduler` (embedded, in-process timers over a SQLite file) and
 * `BullMqJobScheduler` (Redis). Both throw `StoreUnavailableError` from schedule/cancel
 * when their backing store cannot be reached, which the HTTP layer maps to 503.
 */
export { StoreUnavailableError } from '../event-store/port';

export type JobPayload = Record<string, unknown>;
export type JobHandler = (payload: JobPayload, jobId: string) => Promise<void>;

export interface JobScheduler {
  /**
   * Schedules `type` with `payload` (JSON-serialisable) to run at `runAt` (Unix ms); a time
   * in the past runs as soon as a worker is free. Idempotent per jobId: scheduling an existing
   * id again keeps one job, with the new time and payload. If that job is running right now,
   * the run finishes and the job runs again at the new time.
   */
  schedule(type: string, jobId: string, runAt: number, payload: JobPayload): Promise<void>;
  /** Removes the job and its pending retries; an unknown id is fine. A run in progress finishes first. */
  cancel(jobId: string): Promise<void>;
  /**
   * Registers the handler for a type; jobs run only in processes that registered a handler
   * for their type and called start(). A handler that throws is retried (with backoff, a
   * few times) then logged as failed.
   */
  handle(type: string, handler: JobHandler): void;
  /** Starts running due jobs in this process. Jobs already overdue run at once. */
  start(): Promise<void>;
  /** Stops taking jobs, waits for the running ones, and releases the store. Safe to call twice. */
  close(): Promise<void>;
}

/** The part of a pino logger the schedulers use (a pino `Logger` fits). */
export interface JobLogger {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** Options both adapters take. */
export interface JobSchedulerOptions {
  /** Runs of a job before it is logged as failed, the first included. Default 5. */
  attempts?: number;
  /** Delay before the first retry; each next retry waits twice as long. Default 1000. */
  backoffMs?: number;
  /** Where retries and failures are reported. Default: a pino logger at level info. */
  logger?: JobLogger;
}

export const DEFAULT_ATTEMPTS = 5;
export const DEFAULT_BACKOFF_MS = 1000;
