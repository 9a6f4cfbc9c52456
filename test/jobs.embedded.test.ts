import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteJobScheduler } from '../shared/adapters/jobs/embedded';
import type { JobLogger } from '../shared/adapters/jobs/port';
import {
  DEFAULT_ATTEMPTS,
  DEFAULT_BACKOFF_MS,
  DEFAULT_MAX_BACKOFF_MS,
  JOB_FAILED,
  retryDelay,
  StoreUnavailableError,
} from '../shared/adapters/jobs/port';
import { jobsContract } from './contracts/jobs.contract';
import { eventually } from './support/process';

/** A fresh directory per store, so the -wal and -shm files go with it. */
function tempJobsFile(): { file: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'jobs-'));
  return { file: join(dir, 'jobs.db'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const silent: JobLogger = { warn: () => {}, error: () => {} };

jobsContract('SqliteJobScheduler', async () => {
  const { file, remove } = tempJobsFile();
  return {
    // A short poll, so a second scheduler on the file sees the other's jobs within the test's time.
    open: async (options) => new SqliteJobScheduler(file, { ...options, pollIntervalMs: 50 }),
    destroy: async () => remove(),
  };
});

describe('SqliteJobScheduler specifics', () => {
  let file: string;
  let remove: () => void;
  const opened: SqliteJobScheduler[] = [];
  const open = (options: ConstructorParameters<typeof SqliteJobScheduler>[1] = {}) => {
    const scheduler = new SqliteJobScheduler(file, { logger: silent, pollIntervalMs: 50, ...options });
    opened.push(scheduler);
    return scheduler;
  };

  beforeEach(() => {
    ({ file, remove } = tempJobsFile());
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((scheduler) => scheduler.close()));
    remove();
  });

  it('runs again a job whose claim ran out (its process died mid-run)', async () => {
    // `stuck` never finishes its run, like a process that died holding the claim.
    let releaseStuck = () => {};
    const stuckRun = new Promise<void>((resolve) => (releaseStuck = resolve));
    const stuck = open({ lockMs: 200 });
    let stuckCalls = 0;
    stuck.handle('test', async () => {
      stuckCalls += 1;
      await stuckRun;
    });
    await stuck.start();
    // Before the claim, whenever the claim comes: a lower bound that a slow poll cannot move.
    const scheduledAt = Date.now();
    await stuck.schedule('test', 'job-1', scheduledAt, {});
    await eventually(() => stuckCalls === 1, 10_000, 10);

    const healthy = open();
    let healthyRunAt = 0;
    healthy.handle('test', async () => void (healthyRunAt = Date.now()));
    await healthy.start();
    await eventually(() => healthyRunAt > 0, 10_000, 10);

    releaseStuck();
    expect(stuckCalls).toBe(1);
    // Not before the claim ran out (200 ms after it was taken, which was after scheduledAt).
    expect(healthyRunAt - scheduledAt).toBeGreaterThanOrEqual(190);
  });

  it('counts a run whose claim ran out as an attempt, and fails the job when they are used', async () => {
    const logs: { level: string; message: string; details: object }[] = [];
    const logger: JobLogger = {
      warn: (details, message) => logs.push({ level: 'warn', message, details }),
      error: (details, message) => logs.push({ level: 'error', message, details }),
    };
    // Two processes whose runs never finish, like processes that died mid-run.
    let runs = 0;
    const releases: (() => void)[] = [];
    for (let n = 0; n < 2; n++) {
      const dying = open({ lockMs: 150, attempts: 2, logger });
      dying.handle('test', () => new Promise<void>((resolve) => void ((runs += 1), releases.push(resolve))));
      await dying.start();
      if (n === 0) await dying.schedule('test', 'job-1', Date.now(), {});
      await eventually(() => runs === n + 1, 10_000, 10);
    }
    // A healthy one finds both attempts used once the second claim runs out: failed, not run again.
    const healthy = open({ lockMs: 150, attempts: 2, logger });
    healthy.handle('test', async () => void (runs += 1));
    await healthy.start();
    await eventually(() => logs.some((entry) => entry.level === 'error'), 10_000, 10);
    // Failed for good: nothing waits or is delayed that could run it again.
    await eventually(async () =>
      expect(await healthy.overview()).toMatchObject({ waiting: 0, delayed: 0, running: 0, failed: 1 }),
    );
    releases.forEach((release) => release());
    expect(runs).toBe(2);
    expect(logs.filter((entry) => entry.level === 'error')).toEqual([
      {
        level: 'error',
        message: JOB_FAILED,
        details: expect.objectContaining({ jobId: 'job-1', type: 'test', attempt: 2 }),
      },
    ]);
    expect(logs.filter((entry) => entry.message.startsWith('job run interrupted'))).toHaveLength(1);
    expect(await healthy.overview()).toMatchObject({
      failed: 1,
      running: 0,
      recentFailures: [{ jobId: 'job-1', attempts: 2, reason: expect.stringContaining('interrupted') }],
    });
  });

  it('throws StoreUnavailableError when the file cannot be opened', () => {
    expect(() => new SqliteJobScheduler(join(file, 'missing-dir', 'jobs.db'))).toThrow(StoreUnavailableError);
  });

  it('throws StoreUnavailableError once closed', async () => {
    const scheduler = open();
    await scheduler.close();
    await scheduler.close();
    await expect(scheduler.schedule('test', 'job-1', Date.now(), {})).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(scheduler.overview()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(scheduler.start()).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});

describe('the jobs retry policy (both adapters)', () => {
  it('rides out a store outage of minutes: retries for over 15 minutes by default, none waiting over 5', () => {
    const waits = Array.from({ length: DEFAULT_ATTEMPTS - 1 }, (_, i) =>
      retryDelay(i + 1, DEFAULT_BACKOFF_MS, DEFAULT_MAX_BACKOFF_MS),
    );
    expect(waits.slice(0, 4)).toEqual([1000, 2000, 4000, 8000]);
    expect(Math.max(...waits)).toBe(300_000);
    expect(waits.reduce((a, b) => a + b, 0)).toBeGreaterThan(15 * 60_000);
  });
});
