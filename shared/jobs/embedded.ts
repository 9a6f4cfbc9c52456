/**
 * Embedded Jobs adapter: jobs live in their own SQLite file (better-sqlite3, WAL), so they
 * survive a restart; in-process timers run them. Several processes may share the file: a
 * job is claimed with one conditional UPDATE before it runs, so only one of them runs it.
 */
import Database from 'better-sqlite3';
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

export interface SqliteJobSchedulerOptions extends JobSchedulerOptions {
  /**
   * Longest wait between two looks at the file, for jobs scheduled by other processes (this
   * process's own schedule() re-arms the timer at once). Default 1000.
   */
  pollIntervalMs?: number;
  /**
   * How long a claimed job stays claimed. A process that dies mid-run leaves its claim
   * behind; once it runs out, the job runs again (in any process, the restarted one too).
   * A handler running longer than this may be run a second time elsewhere. Default 300000.
   */
  lockMs?: number;
  /** Jobs this process runs at the same time. Default 10. */
  concurrency?: number;
}

/**
 * `state` is 'scheduled', 'running' (claimed until `locked_until`) or 'failed' (attempts
 * used up, kept for inspection). `version` grows with every schedule() of the id: a run
 * settles only the version it claimed, so a re-schedule during a run is not lost.
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

/** Scheduled and due, or claimed by a process whose claim has run out. */
const DUE = `((state = 'scheduled' AND run_at <= @now) OR (state = 'running' AND locked_until <= @now))`;

/** SQLite result codes meaning the file cannot be used right now (503), not a bug. */
const UNAVAILABLE_CODES = /^SQLITE_(READONLY|CANTOPEN|IOERR|FULL|BUSY|LOCKED|PERM|PROTOCOL)/;

interface JobRow {
  id: string;
  type: string;
  payload: string;
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
  private readonly pollIntervalMs: number;
  private readonly lockMs: number;
  private readonly concurrency: number;
  private readonly logger: JobLogger;
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  private closing: Promise<void> | undefined;

  private readonly upsert: Database.Statement<[string, string, string, number]>;
  private readonly remove: Database.Statement<[string]>;
  private readonly selectDue: Database.Statement<[{ types: string; running: string; now: number; limit: number }], JobRow>;
  private readonly selectNextAt: Database.Statement<[{ types: string; running: string }], { at: number | null }>;
  private readonly claim: Database.Statement<[{ id: string; version: number; now: number; lockedUntil: number }]>;
  private readonly complete: Database.Statement<[string, number]>;
  private readonly retry: Database.Statement<[number, string, string, number]>;
  private readonly fail: Database.Statement<[string, string, number]>;

  constructor(filePath: string, options: SqliteJobSchedulerOptions = {}) {
    this.attempts = options.attempts ?? DEFAULT_ATTEMPTS;
    this.backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.lockMs = options.lockMs ?? 300_000;
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
      throw new StoreUnavailableError(`cannot open job store ${filePath}: ${String(error)}`, error);
    }
    this.db = db;
    this.upsert = db.prepare(`
      INSERT INTO jobs (id, type, payload, run_at, state, attempts, version) VALUES (?, ?, ?, ?, 'scheduled', 0, 1)
      ON CONFLICT (id) DO UPDATE SET
        type = excluded.type, payload = excluded.payload, run_at = excluded.run_at,
        state = 'scheduled', attempts = 0, version = version + 1, locked_until = NULL, last_error = NULL`);
    this.remove = db.prepare('DELETE FROM jobs WHERE id = ?');
    this.selectDue = db.prepare(
      `SELECT id, type, payload, version, attempts FROM jobs WHERE ${MINE} AND ${DUE} ORDER BY run_at LIMIT @limit`,
    );
    this.selectNextAt = db.prepare(`
      SELECT MIN(CASE state WHEN 'scheduled' THEN run_at ELSE locked_until END) AS at
      FROM jobs WHERE ${MINE} AND state IN ('scheduled', 'running')`);
    // The claim: of several processes that saw the job due, exactly one changes this row.
    this.claim = db.prepare(`
      UPDATE jobs SET state = 'running', locked_until = @lockedUntil, attempts = attempts + 1
      WHERE id = @id AND version = @version AND ${DUE}`);
    this.complete = db.prepare('DELETE FROM jobs WHERE id = ? AND version = ?');
    this.retry = db.prepare(
      `UPDATE jobs SET state = 'scheduled', run_at = ?, locked_until = NULL, last_error = ? WHERE id = ? AND version = ?`,
    );
    this.fail = db.prepare(
      `UPDATE jobs SET state = 'failed', locked_until = NULL, last_error = ? WHERE id = ? AND version = ?`,
    );
  }

  async schedule(type: string, jobId: string, runAt: number, payload: JobPayload): Promise<void> {
    this.guard(() => this.upsert.run(jobId, type, JSON.stringify(payload), runAt));
    this.arm();
  }

  async cancel(jobId: string): Promise<void> {
    this.guard(() => this.remove.run(jobId));
  }

  handle(type: string, handler: JobHandler): void {
    this.handlers.set(type, handler);
    this.arm();
  }

  async start(): Promise<void> {
    this.assertOpen();
    this.started = true;
    this.tick();
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      clearTimeout(this.timer);
      await Promise.all(this.running.values());
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
        const claimed = this.claim.run({ id: row.id, version: row.version, now, lockedUntil: now + this.lockMs });
        if (claimed.changes === 1) this.launch(row);
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
    const attempt = row.attempts + 1;
    try {
      await this.handlers.get(row.type)!(JSON.parse(row.payload) as JobPayload, row.id);
      this.settle(() => this.complete.run(row.id, row.version));
    } catch (error) {
      const details = { jobId: row.id, type: row.type, attempt, err: error };
      if (attempt < this.attempts) {
        const retryAt = Date.now() + this.backoffMs * 2 ** (attempt - 1);
        this.logger.warn({ ...details, retryAt }, 'job failed; will retry');
        this.settle(() => this.retry.run(retryAt, String(error), row.id, row.version));
      } else {
        this.logger.error(details, 'job failed; attempts used up');
        this.settle(() => this.fail.run(String(error), row.id, row.version));
      }
    }
  }

  /**
   * Records a run's outcome. If that fails, the claim stays until `lockMs` runs out and the
   * job runs again then: at least once, never lost.
   */
  private settle(write: () => void): void {
    try {
      write();
    } catch (error) {
      this.logger.error({ err: error }, 'job store: recording a job outcome failed');
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
    if (this.closing) throw new StoreUnavailableError('job store is closed');
  }
}
