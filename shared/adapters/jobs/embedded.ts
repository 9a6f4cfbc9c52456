/**
 * Embedded Jobs adapter: jobs live in their own SQLite file (better-sqlite3, WAL), so they
 * survive a restart; in-process timers run them. Several processes may share the file: a
 * job is claimed with one conditional UPDATE before it runs, so only one of them runs it.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
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

export interface SqliteJobSchedulerOptions extends JobSchedulerOptions {
  /**
   * Longest wait between two looks at the file, for jobs scheduled by other processes (this
   * process's own schedule() re-arms the timer at once). Default 1000.
   */
  pollIntervalMs?: number;
  /** Jobs this process runs at the same time. Default 10. */
  concurrency?: number;
}

/**
 * `state` is 'scheduled', 'running' (claimed until `locked_until`) or 'failed' (attempts
 * used up, kept for inspection; `run_at` is then when it failed). `attempts` counts the runs
 * started. `version` grows with every schedule() of the id: a run settles only the version it
 * claimed, so a re-schedule during a run is not lost.
 *
 * A claim is not renewed: a process that dies mid-run leaves it behind, and once `lockMs` has
 * passed the job runs again (in any process, the restarted one too), counted as an attempt. A
 * handler running longer than `lockMs` may be run a second time elsewhere.
 */
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS jobs (
    id           TEXT    PRIMARY KEY,
    type         TEXT    NOT NULL,
    payload      TEXT    NOT NULL,
    run_at       INTEGER NOT NULL,
    state        TEXT    NOT NULL,
    attempts     INTEGER NOT NULL,
    version      INTEGER NOT NULL,
    locked_until INTEGER,
    last_error   TEXT
  );
  CREATE INDEX IF NOT EXISTS jobs_by_state_time ON jobs (state, run_at)`;

/**
 * Jobs this process may take: of a type it handles (JSON array parameter), and not already
 * running here (a claim of ours that ran out would otherwise look due to ourselves).
 */
const MINE = `type IN (SELECT value FROM json_each(@types)) AND id NOT IN (SELECT value FROM json_each(@running))`;

/** Claimed by a run whose claim has not run out (the row's old values, in an upsert's SET). */
const LIVE_CLAIM = `state = 'running' AND locked_until > @now`;

/** Scheduled and due, or claimed by a process whose claim has run out. */
const DUE = `((state = 'scheduled' AND run_at <= @now) OR (state = 'running' AND locked_until <= @now))`;

/** SQLite result codes meaning the file cannot be used right now (503), not a bug. */
const UNAVAILABLE_CODES = /^SQLITE_(READONLY|CANTOPEN|IOERR|FULL|BUSY|LOCKED|PERM|PROTOCOL)/;

/**
 * The row as this run claimed it: a run settles its outcome only if nothing came since, neither a
 * schedule() of the id (version) nor another claim after this one ran out (attempts).
 */
const CLAIMED = `id = @id AND version = @version AND attempts = @attempt AND state = 'running'`;

interface Claim {
  id: string;
  version: number;
  /** The attempt the claim started (the row's attempts after it). */
  attempt: number;
}

interface JobRow {
  id: string;
  type: string;
  payload: string;
  state: 'scheduled' | 'running';
  version: number;
  attempts: number;
}

export class SqliteJobScheduler implements JobScheduler {
  private readonly db: Database.Database;
  private readonly handlers = new Map<string, JobHandler>();
  /** Runs in progress in this process, by job id. */
  private readonly running = new Map<string, Promise<void>>();
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly pollIntervalMs: number;
  private readonly lockMs: number;
  private readonly concurrency: number;
  private readonly logger: JobLogger;
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  private closing: Promise<void> | undefined;
  /** Set once the runs in progress have ended: until then a run finishing may still schedule its next one. */
  private closed = false;

  private readonly upsert: Database.Statement<
    [{ id: string; type: string; payload: string; runAt: number; now: number }]
  >;
  private readonly selectDue: Database.Statement<
    [{ types: string; running: string; now: number; limit: number }],
    JobRow
  >;
  private readonly selectNextAt: Database.Statement<[{ types: string; running: string }], { at: number | null }>;
  private readonly claim: Database.Statement<[{ id: string; version: number; now: number; lockedUntil: number }]>;
  private readonly complete: Database.Statement<[Claim]>;
  private readonly release: Database.Statement<[Omit<Claim, 'version'>]>;
  private readonly retry: Database.Statement<[Claim & { retryAt: number; error: string }]>;
  private readonly fail: Database.Statement<[Claim & { now: number; error: string }]>;
  private readonly failInterrupted: Database.Statement<[{ id: string; version: number; now: number; error: string }]>;
  private readonly dropOldFailures: Database.Statement<[number]>;
  private readonly selectFailed: Database.Statement<[], { id: string }>;
  private readonly requeueFailed: Database.Statement<[{ id: string; now: number }]>;
  private readonly selectWaiting: Database.Statement<[{ type: string; now: number }], { id: string }>;
  private readonly deleteWaiting: Database.Statement<[{ id: string; now: number }]>;
  private readonly countByState: Database.Statement<
    [{ now: number }],
    { waiting: number; delayed: number; running: number; failed: number }
  >;
  private readonly selectFailures: Database.Statement<
    [number],
    { id: string; type: string; attempts: number; run_at: number; last_error: string | null }
  >;

  constructor(filePath: string, options: SqliteJobSchedulerOptions = {}) {
    this.attempts = options.attempts ?? DEFAULT_ATTEMPTS;
    this.backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
    this.maxBackoffMs = options.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.lockMs = options.lockMs ?? DEFAULT_LOCK_MS;
    this.concurrency = options.concurrency ?? 10;
    this.logger = options.logger ?? createLogger('info');
    let db: Database.Database | undefined;
    try {
      db = new Database(filePath, { timeout: 5000 });
      db.pragma('journal_mode = WAL');
      // A scheduled job is as durable as the event that asked for it: synced on every commit.
      db.pragma('synchronous = FULL');
      db.exec(SCHEMA);
    } catch (error) {
      db?.close();
      const { code, message } = error as { code?: string; message: string };
      throw new StoreUnavailableError(
        `cannot open job store ${filePath} (${code ?? 'error'}: ${message}); make ${path.dirname(filePath)} and the files in it writable by the user the service runs as`,
        error,
      );
    }
    this.db = db;
    // A job running under a live claim keeps its claim: no other process may start it before that
    // run ends; the run then finds its version changed and hands the job back, scheduled (release).
    this.upsert = db.prepare(`
      INSERT INTO jobs (id, type, payload, run_at, state, attempts, version) VALUES (@id, @type, @payload, @runAt, 'scheduled', 0, 1)
      ON CONFLICT (id) DO UPDATE SET
        type = excluded.type, payload = excluded.payload, run_at = excluded.run_at, version = version + 1, last_error = NULL,
        state = CASE WHEN ${LIVE_CLAIM} THEN 'running' ELSE 'scheduled' END,
        attempts = CASE WHEN ${LIVE_CLAIM} THEN attempts ELSE 0 END,
        locked_until = CASE WHEN ${LIVE_CLAIM} THEN locked_until ELSE NULL END`);
    this.selectDue = db.prepare(
      `SELECT id, type, payload, state, version, attempts FROM jobs WHERE ${MINE} AND ${DUE} ORDER BY run_at LIMIT @limit`,
    );
    this.selectNextAt = db.prepare(`
      SELECT MIN(CASE state WHEN 'scheduled' THEN run_at ELSE locked_until END) AS at
      FROM jobs WHERE ${MINE} AND state IN ('scheduled', 'running')`);
    // The claim: of several processes that saw the job due, exactly one changes this row.
    this.claim = db.prepare(`
      UPDATE jobs SET state = 'running', locked_until = @lockedUntil, attempts = attempts + 1
      WHERE id = @id AND version = @version AND ${DUE}`);
    this.complete = db.prepare(`DELETE FROM jobs WHERE ${CLAIMED}`);
    // The run's job was scheduled again while it ran (its version changed): it becomes a fresh job.
    this.release = db.prepare(
      `UPDATE jobs SET state = 'scheduled', attempts = 0, locked_until = NULL WHERE id = @id AND attempts = @attempt AND state = 'running'`,
    );
    this.retry = db.prepare(
      `UPDATE jobs SET state = 'scheduled', run_at = @retryAt, locked_until = NULL, last_error = @error WHERE ${CLAIMED}`,
    );
    this.fail = db.prepare(
      `UPDATE jobs SET state = 'failed', run_at = @now, locked_until = NULL, last_error = @error WHERE ${CLAIMED}`,
    );
    // Of several processes that saw an interrupted run with no attempt left, exactly one fails it.
    this.failInterrupted = db.prepare(`
      UPDATE jobs SET state = 'failed', run_at = @now, locked_until = NULL, last_error = @error
      WHERE id = @id AND version = @version AND state = 'running' AND locked_until <= @now`);
    this.dropOldFailures = db.prepare(
      `DELETE FROM jobs WHERE state = 'failed' AND id NOT IN (SELECT id FROM jobs WHERE state = 'failed' ORDER BY run_at DESC LIMIT ?)`,
    );
    this.selectFailed = db.prepare(`SELECT id FROM jobs WHERE state = 'failed'`);
    // Due now, its runs counted from zero again.
    this.requeueFailed = db.prepare(
      `UPDATE jobs SET state = 'scheduled', run_at = @now, attempts = 0, locked_until = NULL WHERE id = @id AND state = 'failed'`,
    );
    // Waiting to run: scheduled, or claimed by a run that was interrupted (its claim ran out).
    const waiting = `(state = 'scheduled' OR (state = 'running' AND locked_until <= @now))`;
    this.selectWaiting = db.prepare(`SELECT id FROM jobs WHERE type = @type AND ${waiting}`);
    this.deleteWaiting = db.prepare(`DELETE FROM jobs WHERE id = @id AND ${waiting}`);
    this.countByState = db.prepare(`
      SELECT
        COALESCE(SUM(state = 'scheduled' AND run_at <= @now), 0) AS waiting,
        COALESCE(SUM(state = 'scheduled' AND run_at > @now), 0) AS delayed,
        COALESCE(SUM(state = 'running'), 0) AS running,
        COALESCE(SUM(state = 'failed'), 0) AS failed
      FROM jobs`);
    this.selectFailures = db.prepare(
      `SELECT id, type, attempts, run_at, last_error FROM jobs WHERE state = 'failed' ORDER BY run_at DESC LIMIT ?`,
    );
  }

  async schedule(type: string, jobId: string, runAt: number, payload: JobPayload): Promise<void> {
    this.guard(() => this.upsert.run({ id: jobId, type, payload: JSON.stringify(payload), runAt, now: Date.now() }));
    this.arm();
  }

  handle(type: string, handler: JobHandler): void {
    this.handlers.set(type, handler);
    this.arm();
  }

  async drop(type: string, keep: (jobId: string) => boolean): Promise<string[]> {
    return this.guard(() =>
      this.db.transaction(() => {
        const dropped = this.selectWaiting
          .all({ type, now: Date.now() })
          .map((r) => r.id)
          .filter((id) => !keep(id));
        for (const id of dropped) this.deleteWaiting.run({ id, now: Date.now() });
        return dropped;
      })(),
    );
  }

  async retryFailed(jobIds?: readonly string[]): Promise<string[]> {
    const only = jobIds ? new Set(jobIds) : undefined;
    const retried = this.guard(() =>
      this.db.transaction(() => {
        const ids = this.selectFailed
          .all()
          .map((r) => r.id)
          .filter((id) => !only || only.has(id));
        for (const id of ids) this.requeueFailed.run({ id, now: Date.now() });
        return ids;
      })(),
    );
    this.arm();
    return retried;
  }

  async start(): Promise<void> {
    if (this.closing) throw new StoreUnavailableError('job store is closed');
    this.started = true;
    this.tick();
  }

  async overview(): Promise<JobsOverview> {
    return this.guard(() => ({
      ...this.countByState.get({ now: Date.now() })!,
      recentFailures: this.selectFailures.all(RECENT_FAILURES).map((row) => ({
        type: row.type,
        jobId: row.id,
        attempts: row.attempts,
        failedAt: row.run_at,
        reason: row.last_error ?? '',
      })),
    }));
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      clearTimeout(this.timer);
      await Promise.all(this.running.values());
      this.closed = true;
      this.db.close();
    })();
    return this.closing;
  }

  /** Runs what is due now (up to the free concurrency), then sleeps until the next due job. */
  private tick(): void {
    if (this.closing) return;
    try {
      const now = Date.now();
      const limit = this.concurrency - this.running.size;
      for (const row of this.selectDue.all({ ...this.mine(), now, limit })) {
        // A claim that ran out: its run was interrupted (the process died), and that run was an attempt.
        const interrupted = row.state === 'running';
        if (interrupted && row.attempts >= this.attempts) {
          const error = `interrupted: its last run never finished (attempt ${row.attempts} of ${this.attempts})`;
          if (this.failInterrupted.run({ id: row.id, version: row.version, now, error }).changes === 1)
            this.failed(row, row.attempts, error);
          continue;
        }
        const claimed = this.claim.run({ id: row.id, version: row.version, now, lockedUntil: now + this.lockMs });
        if (claimed.changes !== 1) continue;
        if (interrupted)
          this.logger.warn(
            { jobId: row.id, type: row.type, attempt: row.attempts + 1 },
            'job run interrupted (its process stopped); running it again',
          );
        this.launch(row);
      }
    } catch (error) {
      // A busy or unreadable file: log and try again on the next poll.
      this.logger.warn({ err: error }, 'job store: looking for due jobs failed');
    }
    this.arm();
  }

  private launch(row: JobRow): void {
    const run = this.execute(row).finally(() => {
      this.running.delete(row.id);
      this.arm();
    });
    this.running.set(row.id, run);
  }

  private async execute(row: JobRow): Promise<void> {
    const claim: Claim = { id: row.id, version: row.version, attempt: row.attempts + 1 };
    try {
      await this.handlers.get(row.type)!(JSON.parse(row.payload) as JobPayload, row.id);
      if (!this.settle(() => this.complete.run(claim))) this.settle(() => this.release.run(claim));
    } catch (error) {
      const details = { jobId: row.id, type: row.type, attempt: claim.attempt, err: error };
      if (claim.attempt < this.attempts) {
        const retryAt = Date.now() + retryDelay(claim.attempt, this.backoffMs, this.maxBackoffMs);
        if (this.settle(() => this.retry.run({ ...claim, retryAt, error: String(error) })))
          this.logger.warn({ ...details, retryAt }, 'job failed; will retry');
        else this.settle(() => this.release.run(claim));
      } else if (this.settle(() => this.fail.run({ ...claim, now: Date.now(), error: String(error) }))) {
        this.failed(row, claim.attempt, error);
      } else this.settle(() => this.release.run(claim));
    }
  }

  /** A job whose attempts are used up: logged as failed; the oldest failures beyond those kept are dropped. */
  private failed(row: JobRow, attempts: number, error: unknown): void {
    this.logger.error({ jobId: row.id, type: row.type, attempt: attempts, err: error }, JOB_FAILED);
    this.settle(() => this.dropOldFailures.run(FAILED_JOBS_KEPT));
  }

  /**
   * Records a run's outcome; whether it applied (a run whose claim ran out, or whose job was
   * scheduled again meanwhile, has nothing left to settle). If the write fails, the claim stays
   * until `lockMs` runs out and the job runs again then: at least once, never lost.
   */
  private settle(write: () => Database.RunResult): boolean {
    try {
      return write().changes === 1;
    } catch (error) {
      this.logger.error({ err: error }, 'job store: recording a job outcome failed');
      return false;
    }
  }

  /**
   * Sets the one timer for the earliest due job, or the next poll if that is sooner. With
   * every slot busy there is no timer: the next run to finish re-arms it.
   */
  private arm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.started || this.closing || this.running.size >= this.concurrency) return;
    const now = Date.now();
    let wakeAt = now + this.pollIntervalMs;
    try {
      const next = this.selectNextAt.get(this.mine())?.at;
      if (next !== null && next !== undefined) wakeAt = Math.min(wakeAt, next);
    } catch (error) {
      this.logger.warn({ err: error }, 'job store: looking for the next job failed');
    }
    this.timer = setTimeout(() => this.tick(), Math.max(0, wakeAt - now));
  }

  private mine(): { types: string; running: string } {
    return { types: JSON.stringify([...this.handlers.keys()]), running: JSON.stringify([...this.running.keys()]) };
  }

  private guard<T>(operation: () => T): T {
    this.assertOpen();
    try {
      return operation();
    } catch (error) {
      if (error instanceof Database.SqliteError && UNAVAILABLE_CODES.test(error.code)) {
        throw new StoreUnavailableError(`job store unavailable: ${error.message}`, error);
      }
      throw error;
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreUnavailableError('job store is closed');
  }
}
