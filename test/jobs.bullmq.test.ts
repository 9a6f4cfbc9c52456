import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { BullMqJobScheduler } from '../shared/jobs/bullmq';
import { JobLogger, StoreUnavailableError } from '../shared/jobs/port';
import { jobsContract } from './contracts/jobs.contract';
import { freePort } from './support/process';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Every fixture gets its own queue on the shared Redis; destroy deletes all of its keys. */
jobsContract('BullMqJobScheduler', async () => {
  const queueName = `test-jobs-${randomUUID()}`;
  return {
    // Put back quickly a job the other worker has no handler for, to stay within the test's time.
    open: async (options) =>
      new BullMqJobScheduler({ ...options, connection: REDIS_URL, queueName, unhandledDelayMs: 100 }),
    destroy: async () => {
      const queue = new Queue(queueName, { connection: { url: REDIS_URL } });
      await queue.obliterate({ force: true });
      await queue.close();
    },
  };
});

describe('BullMqJobScheduler specifics', () => {
  it('rejects schedule and cancel with StoreUnavailableError, promptly, when Redis cannot be reached', async () => {
    const silent: JobLogger = { warn: () => {}, error: () => {} };
    const scheduler = new BullMqJobScheduler({
      connection: `redis://127.0.0.1:${await freePort()}`,
      queueName: `test-jobs-${randomUUID()}`,
      timeoutMs: 500,
      logger: silent,
    });
    try {
      const startedAt = Date.now();
      await expect(scheduler.schedule('test', 'job-1', Date.now(), {})).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(scheduler.cancel('job-1')).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - startedAt).toBeLessThan(2000);
    } finally {
      await scheduler.close();
    }
  });

  it('throws StoreUnavailableError once closed', async () => {
    const scheduler = new BullMqJobScheduler({ connection: REDIS_URL, queueName: `test-jobs-${randomUUID()}` });
    await scheduler.close();
    await scheduler.close();
    await expect(scheduler.schedule('test', 'job-1', Date.now(), {})).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(scheduler.cancel('job-1')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(scheduler.start()).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
