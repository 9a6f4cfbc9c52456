import { randomUUID } from 'node:crypto';
import { BullMqJobScheduler } from '../shared/adapters/jobs/bullmq';
import type { JobLogger } from '../shared/adapters/jobs/port';
import { JOB_FAILED, StoreUnavailableError } from '../shared/adapters/jobs/port';
import { jobsContract } from './contracts/jobs.contract';
import { eventually, freePort } from './support/process';
import { deleteRedisKeys, TEST_REDIS_URL } from './support/redis';

/** Every fixture gets its own key prefix on the shared Redis; destroy deletes all of its keys. */
jobsContract('BullMqJobScheduler', async () => {
  const prefix = `test-jobs-${randomUUID()}`;
  return {
    open: async (options) =>
      new BullMqJobScheduler({ ...options, connection: TEST_REDIS_URL, queueName: 'jobs', prefix }),
    destroy: () => deleteRedisKeys(`${prefix}:`),
  };
});

describe('BullMqJobScheduler specifics', () => {
  const silent: JobLogger = { warn: () => {}, error: () => {} };

  it('rejects schedule and overview with StoreUnavailableError, promptly, when Redis cannot be reached', async () => {
    const scheduler = new BullMqJobScheduler({
      connection: `redis://127.0.0.1:${await freePort()}`,
      queueName: `test-jobs-${randomUUID()}`,
      timeoutMs: 500,
      logger: silent,
    });
    try {
      const startedAt = Date.now();
      await expect(scheduler.schedule('test', 'job-1', Date.now(), {})).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(scheduler.overview()).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - startedAt).toBeLessThan(2000);
    } finally {
      await scheduler.close();
    }
  });

  it('throws StoreUnavailableError once closed', async () => {
    const scheduler = new BullMqJobScheduler({ connection: TEST_REDIS_URL, queueName: `test-jobs-${randomUUID()}` });
    await scheduler.close();
    await scheduler.close();
    await expect(scheduler.schedule('test', 'job-1', Date.now(), {})).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(scheduler.overview()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(scheduler.start()).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('runs again a job whose process stopped mid-run, each interrupted run counting as an attempt, and fails it when they are used', async () => {
    const prefix = `test-jobs-${randomUUID()}`;
    const logs: { level: string; message: string; details: object }[] = [];
    const logger: JobLogger = {
      warn: (details, message) => logs.push({ level: 'warn', message, details }),
      error: (details, message) => logs.push({ level: 'error', message, details }),
    };
    // A short lock, so that a run cut off is noticed within the test's time.
    const open = () =>
      new BullMqJobScheduler({
        connection: TEST_REDIS_URL,
        queueName: 'jobs',
        prefix,
        attempts: 2,
        lockMs: 500,
        logger,
      });
    const hung: BullMqJobScheduler[] = [];
    let runs = 0;
    /** A process whose run never ends, shut down while it runs: after 2 s its worker is closed without waiting. */
    const stuckProcess = async () => {
      const scheduler = open();
      hung.push(scheduler);
      scheduler.handle('stuck', () => {
        runs += 1;
        return new Promise<void>(() => undefined);
      });
      await scheduler.start();
      return scheduler;
    };
    try {
      const first = await stuckProcess();
      await first.schedule('stuck', 'job-1', Date.now(), {});
      await eventually(() => runs === 1, 5000, 20);
      await first.close();

      // The next process takes the job again once the lock has run out: attempt 2, cut off too.
      const second = await stuckProcess();
      await eventually(() => runs === 2, 10_000, 20);
      await second.close();

      // A third process finds the job with both attempts used: failed, not run a third time.
      const third = open();
      hung.push(third);
      third.handle('stuck', async () => void (runs += 1));
      await third.start();
      await eventually(() => logs.some((entry) => entry.level === 'error'), 10_000, 20);
      expect(runs).toBe(2);
      expect(logs.filter((entry) => entry.level === 'error')).toEqual([
        { level: 'error', message: JOB_FAILED, details: expect.objectContaining({ jobId: 'job-1', type: 'stuck' }) },
      ]);
      expect(logs.some((entry) => entry.message.startsWith('job run interrupted'))).toBe(true);
      expect(await third.overview()).toMatchObject({
        waiting: 0,
        delayed: 0,
        running: 0,
        failed: 1,
        recentFailures: [{ type: 'stuck', jobId: 'job-1', attempts: 2 }],
      });
    } finally {
      await Promise.all(hung.map((scheduler) => scheduler.close()));
      await deleteRedisKeys(`${prefix}:`);
    }
  }, 40_000);
});
