/**
 * What every JobScheduler adapter must do, written once and run against each of them. Each
 * test gets a fresh store (file, queue); several schedulers opened on it stand for several
 * processes sharing it. Delays are a few hundred ms so the suite stays fast.
 */
import { randomUUID } from 'node:crypto';
import type { JobLogger, JobPayload, JobScheduler, JobSchedulerOptions } from '../../shared/adapters/jobs/port';
import { JOB_FAILED } from '../../shared/adapters/jobs/port';
import { eventually } from '../support/process';

export interface JobStoreFixture {
  /** A scheduler on this fixture's store; every scheduler opened shares it. */
  open(options: JobSchedulerOptions): Promise<JobScheduler>;
  /** Deletes the store; runs after every scheduler opened on it is closed. */
  destroy(): Promise<void>;
}

interface Run {
  type: string;
  jobId: string;
  payload: JobPayload;
  at: number;
}

interface LogEntry {
  level: 'warn' | 'error';
  message: string;
  details: object;
}

/**
 * No run is left to come: the store holds no job waiting, delayed or running (a duplicate, a
 * retry or a second run would be one of them until it has run, and then be in the test's runs).
 */
const settled = (scheduler: JobScheduler) =>
  eventually(
    async () => expect(await scheduler.overview()).toMatchObject({ waiting: 0, delayed: 0, running: 0 }),
    5000,
    20,
  );

/** A gate a handler can wait on until the test opens it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

export function jobsContract(name: string, newStore: () => Promise<JobStoreFixture>): void {
  describe(`JobScheduler contract: ${name}`, () => {
    let store: JobStoreFixture;
    let opened: JobScheduler[];
    let logs: LogEntry[];
    const logger: JobLogger = {
      warn: (details, message) => logs.push({ level: 'warn', message, details }),
      error: (details, message) => logs.push({ level: 'error', message, details }),
    };

    beforeEach(async () => {
      store = await newStore();
      opened = [];
      logs = [];
    });

    afterEach(async () => {
      await Promise.all(opened.map((scheduler) => scheduler.close()));
      await store.destroy();
    });

    /** Three attempts, 50 ms first backoff: retries show up within a test's time. */
    async function open(): Promise<JobScheduler> {
      const scheduler = await store.open({ attempts: 3, backoffMs: 50, logger });
      opened.push(scheduler);
      return scheduler;
    }

    /** A started scheduler recording every run of `type` into `runs`. */
    async function worker(
      runs: Run[],
      type = 'test',
      work: () => Promise<void> = async () => {},
    ): Promise<JobScheduler> {
      const scheduler = await open();
      scheduler.handle(type, async (payload, jobId) => {
        runs.push({ type, jobId, payload, at: Date.now() });
        await work();
      });
      await scheduler.start();
      return scheduler;
    }

    const newId = () => `job:${randomUUID()}`;

    it('runs a job at (not before) its time, with its payload and id', async () => {
      const runs: Run[] = [];
      const scheduler = await worker(runs);
      const payload = { playerId: 'p-1', amount: 0.5, nested: { list: [1, 'two', null], flag: true } };
      const jobId = newId();
      const runAt = Date.now() + 300;
      await scheduler.schedule('test', jobId, runAt, payload);

      await eventually(() => runs.length === 1, 5000, 10);
      expect(runs[0]).toMatchObject({ type: 'test', jobId, payload });
      expect(runs[0].at).toBeGreaterThanOrEqual(runAt);
      expect(runs[0].at).toBeLessThan(runAt + 1000);
    });

    it('runs a job whose time has passed at once', async () => {
      const runs: Run[] = [];
      const scheduler = await worker(runs);
      const scheduledAt = Date.now();
      await scheduler.schedule('test', newId(), scheduledAt - 60_000, {});
      await eventually(() => runs.length === 1, 5000, 10);
      expect(runs[0].at - scheduledAt).toBeLessThan(1000);
    });

    it('takes ids of any shape, each its own job', async () => {
      const runs: Run[] = [];
      const scheduler = await worker(runs);
      const ids = ['42', 'a:b', 'a%3Ab', 'provision-timeout:x:y:z', 'with space/and/slash'];
      for (const jobId of ids) await scheduler.schedule('test', jobId, Date.now(), { jobId });
      await eventually(() => runs.length === ids.length, 5000, 10);
      expect(runs.map((run) => run.jobId).sort()).toEqual([...ids].sort());
      expect(runs.every((run) => run.payload.jobId === run.jobId)).toBe(true);
    });

    it('keeps one job per id: scheduling again replaces its time and payload', async () => {
      const runs: Run[] = [];
      const scheduler = await worker(runs);
      const jobId = newId();
      await scheduler.schedule('test', jobId, Date.now() + 150, { version: 1 });
      const laterRunAt = Date.now() + 400;
      await scheduler.schedule('test', jobId, laterRunAt, { version: 2 });

      await eventually(() => runs.length === 1, 5000, 10);
      await settled(scheduler);
      expect(runs).toHaveLength(1);
      expect(runs[0].payload).toEqual({ version: 2 });
      expect(runs[0].at).toBeGreaterThanOrEqual(laterRunAt);
    });

    it('keeps the last of concurrent schedules of one id', async () => {
      const runs: Run[] = [];
      const scheduler = await worker(runs);
      const jobId = newId();
      const runAt = Date.now() + 300;
      // Not awaited one by one: they reach the store together.
      await Promise.all([1, 2, 3, 4, 5].map((version) => scheduler.schedule('test', jobId, runAt, { version })));

      await eventually(() => runs.length === 1, 5000, 10);
      await settled(scheduler);
      expect(runs).toHaveLength(1);
      expect(runs[0].payload).toEqual({ version: 5 });
    });

    it('lets a handler schedule its own job: the run finishes, and the job runs again at the new time', async () => {
      const scheduler = await open();
      const runs: Run[] = [];
      let againAt = 0;
      scheduler.handle('self', async (payload, jobId) => {
        runs.push({ type: 'self', jobId, payload, at: Date.now() });
        if (payload.round === 1) {
          againAt = Date.now() + 300;
          await scheduler.schedule('self', jobId, againAt, { round: 2 });
        }
      });
      await scheduler.start();
      const jobId = newId();
      await scheduler.schedule('self', jobId, Date.now(), { round: 1 });

      await eventually(() => runs.length === 2, 5000, 10);
      await settled(scheduler);
      expect(runs.map((run) => run.payload)).toEqual([{ round: 1 }, { round: 2 }]);
      expect(runs[1].at).toBeGreaterThanOrEqual(againAt);
      // The first run ended well: nothing was retried or failed.
      expect(logs).toEqual([]);
    });

    it('retries a throwing handler with backoff until it succeeds', async () => {
      const scheduler = await open();
      const calls: number[] = [];
      scheduler.handle('flaky', async () => {
        calls.push(Date.now());
        if (calls.length < 3) throw new Error(`failure ${calls.length}`);
      });
      await scheduler.start();
      const jobId = newId();
      await scheduler.schedule('flaky', jobId, Date.now(), {});

      await eventually(() => calls.length === 3, 5000, 10);
      await settled(scheduler);
      expect(calls).toHaveLength(3);
      // Backoff 50 ms, then 100 ms (a little slack for ms rounding).
      expect(calls[1] - calls[0]).toBeGreaterThanOrEqual(45);
      expect(calls[2] - calls[1]).toBeGreaterThanOrEqual(95);
      expect(logs.map((entry) => entry.level)).toEqual(['warn', 'warn']);
      expect(logs[0].details).toMatchObject({ jobId, type: 'flaky' });
    });

    it('gives up after the attempts and logs the job as failed', async () => {
      const scheduler = await open();
      let calls = 0;
      scheduler.handle('broken', async () => {
        calls += 1;
        throw new Error('always fails');
      });
      await scheduler.start();
      const jobId = newId();
      await scheduler.schedule('broken', jobId, Date.now(), {});

      await eventually(() => logs.some((entry) => entry.level === 'error'), 5000, 10);
      await settled(scheduler);
      expect(calls).toBe(3);
      // Two retries announced, then one failure: the last attempt never says it will retry.
      expect(logs.map((entry) => [entry.level, entry.message])).toEqual([
        ['warn', 'job failed; will retry'],
        ['warn', 'job failed; will retry'],
        ['error', JOB_FAILED],
      ]);
      expect(logs[2].details).toMatchObject({ jobId, type: 'broken', attempt: 3 });
      // ...and the operator sees it.
      const overview = await scheduler.overview();
      expect(overview).toMatchObject({
        failed: 1,
        recentFailures: [{ type: 'broken', jobId, attempts: 3, reason: expect.stringContaining('always fails') }],
      });
      expect(Math.abs(overview.recentFailures[0].failedAt - Date.now())).toBeLessThan(5000);
    });

    it('doubles the wait between retries up to maxBackoffMs, no further', async () => {
      // Uncapped, eight retries from 20 ms would take 5 s; capped at 40 ms, a third of a second.
      const scheduler = await store.open({ attempts: 9, backoffMs: 20, maxBackoffMs: 40, logger });
      opened.push(scheduler);
      const calls: number[] = [];
      scheduler.handle('outage', async () => {
        calls.push(Date.now());
        throw new Error('store unavailable');
      });
      await scheduler.start();
      await scheduler.schedule('outage', newId(), Date.now(), {});
      await eventually(() => logs.some((entry) => entry.level === 'error'), 10_000, 10);
      expect(calls).toHaveLength(9);
      // Each wait at least its backoff (a little slack for ms rounding): 20 ms, then 40 ms from then on.
      for (let i = 1; i < calls.length; i++) expect(calls[i] - calls[i - 1]).toBeGreaterThanOrEqual(i === 1 ? 15 : 35);
    });

    it('puts failed jobs back with a fresh set of attempts when the operator retries them', async () => {
      const scheduler = await open();
      let healthy = false;
      const succeeded: string[] = [];
      scheduler.handle('stuck', async (_payload, jobId) => {
        if (!healthy) throw new Error('store unavailable');
        succeeded.push(jobId);
      });
      await scheduler.start();
      const [first, second] = [newId(), newId()];
      await scheduler.schedule('stuck', first, Date.now(), {});
      await scheduler.schedule('stuck', second, Date.now(), {});
      const failures = () => logs.filter((entry) => entry.level === 'error').length;
      await eventually(() => failures() === 2, 10_000, 10);
      expect((await scheduler.overview()).failed).toBe(2);
      expect(await scheduler.retryFailed(['no-such-job'])).toEqual([]);

      // Still failing: the job put back uses a fresh set of attempts, all of them, and fails again.
      logs = [];
      expect(await scheduler.retryFailed([first])).toEqual([first]);
      await eventually(() => failures() === 1, 10_000, 10);
      expect(logs.map((entry) => entry.level)).toEqual(['warn', 'warn', 'error']);
      expect((await scheduler.overview()).failed).toBe(2);

      // The store is back: every failed job put back runs.
      healthy = true;
      expect((await scheduler.retryFailed()).sort()).toEqual([first, second].sort());
      await eventually(() => succeeded.length === 2, 10_000, 10);
      expect(succeeded.sort()).toEqual([first, second].sort());
      expect(await scheduler.overview()).toMatchObject({ failed: 0, recentFailures: [] });
    });

    it('shows the operator how many jobs wait, are delayed, run and failed', async () => {
      const running = gate();
      const scheduler = await open();
      let started = 0;
      scheduler.handle('slow', async () => {
        started += 1;
        await running.wait;
      });
      expect(await scheduler.overview()).toEqual({ waiting: 0, delayed: 0, running: 0, failed: 0, recentFailures: [] });
      // Not started yet: a due job waits, a later one is delayed.
      await scheduler.schedule('slow', newId(), Date.now() - 1000, {});
      await scheduler.schedule('slow', newId(), Date.now() + 60_000, {});
      expect(await scheduler.overview()).toMatchObject({ waiting: 1, delayed: 1, running: 0, failed: 0 });

      await scheduler.start();
      await eventually(() => started === 1, 5000, 10);
      expect(await scheduler.overview()).toMatchObject({ waiting: 0, delayed: 1, running: 1, failed: 0 });
      running.open();
    });

    it('keeps jobs across a restart: scheduled by one process, run by the next', async () => {
      // A process that only schedules (never started), then goes away.
      const first = await open();
      const overdue = newId();
      const future = newId();
      const overdueAt = Date.now() + 100;
      await first.schedule('test', overdue, overdueAt, { which: 'overdue' });
      const futureRunAt = Date.now() + 700;
      await first.schedule('test', future, futureRunAt, { which: 'future' });
      await first.close();
      // `overdue` falls due while nothing runs.
      await eventually(() => Date.now() > overdueAt, 5000, 10);

      const runs: Run[] = [];
      await worker(runs);
      await eventually(() => runs.length === 2, 5000, 10);
      expect(runs.map((run) => run.jobId)).toEqual([overdue, future]);
      expect(runs[1].at).toBeGreaterThanOrEqual(futureRunAt);
    });

    it('keeps the next run a handler schedules while its process closes: the next process runs it', async () => {
      const first = await open();
      const running = gate();
      const started = gate();
      const firstRuns: Run[] = [];
      first.handle('self', async (payload, jobId) => {
        firstRuns.push({ type: 'self', jobId, payload, at: Date.now() });
        started.open();
        await running.wait;
        await first.schedule('self', jobId, Date.now(), { round: 2 });
      });
      await first.start();
      const jobId = newId();
      await first.schedule('self', jobId, Date.now(), { round: 1 });
      await started.wait;
      const closed = first.close();
      running.open();
      await closed;
      expect(logs).toEqual([]);

      const runs: Run[] = [];
      await worker(runs, 'self');
      await eventually(() => runs.length === 1, 5000, 10);
      expect(firstRuns.map((run) => run.payload)).toEqual([{ round: 1 }]);
      expect(runs.map((run) => [run.jobId, run.payload])).toEqual([[jobId, { round: 2 }]]);
    });

    it('keeps a job when the process that would run it closes before its time', async () => {
      const earlyRuns: Run[] = [];
      const first = await worker(earlyRuns);
      const jobId = newId();
      await first.schedule('test', jobId, Date.now() + 400, {});
      await first.close();

      const runs: Run[] = [];
      await worker(runs);
      await eventually(() => runs.length === 1, 5000, 10);
      expect(earlyRuns).toEqual([]);
      expect(runs[0].jobId).toBe(jobId);
    });

    it('runs each job exactly once with two workers on one store', async () => {
      const runsA: Run[] = [];
      const runsB: Run[] = [];
      // A short await in the handler lets the two workers' runs overlap.
      const a = await worker(runsA, 'test', () => new Promise((resolve) => setTimeout(resolve, 5)));
      const b = await worker(runsB, 'test', () => new Promise((resolve) => setTimeout(resolve, 5)));
      const count = 30;
      const ids = Array.from({ length: count }, (_, n) => `job-${n}-${randomUUID()}`);
      const runAt = Date.now() + 250;
      await Promise.all(ids.map((jobId, n) => (n % 2 === 0 ? a : b).schedule('test', jobId, runAt, { n })));

      await eventually(() => runsA.length + runsB.length >= count, 5000, 10);
      await settled(a);
      const all = [...runsA, ...runsB];
      expect(all.map((run) => run.jobId).sort()).toEqual([...ids].sort());
      expect(all.every((run) => run.at >= runAt)).toBe(true);
    });

    it('runs a job only in a process that handles its type', async () => {
      const alphaRuns: Run[] = [];
      const betaRuns: Run[] = [];
      const alpha = await worker(alphaRuns, 'alpha');
      await worker(betaRuns, 'beta');
      const alphaIds = [newId(), newId(), newId()];
      const betaIds = [newId(), newId(), newId()];
      for (const jobId of alphaIds) await alpha.schedule('alpha', jobId, Date.now() + 50, {});
      for (const jobId of betaIds) await alpha.schedule('beta', jobId, Date.now() + 50, {});

      await eventually(() => alphaRuns.length === 3 && betaRuns.length === 3, 5000, 10);
      expect(alphaRuns.map((run) => run.jobId).sort()).toEqual([...alphaIds].sort());
      expect(betaRuns.map((run) => run.jobId).sort()).toEqual([...betaIds].sort());
    });

    it('drops the waiting jobs of a type its id filter refuses, not the running ones nor other types; a dropped id can be scheduled again', async () => {
      const running = gate();
      const runs: Run[] = [];
      const scheduler = await worker(runs, 'held', () => running.wait);
      const [busy, gone, kept, later, other] = ['busy', 'gone', 'kept', 'later', 'other'].map((n) => `${n}-${newId()}`);
      await scheduler.schedule('held', busy, Date.now(), {});
      await eventually(() => runs.length === 1, 5000, 10);
      const idle = await open(); // schedules only: no handler, nothing runs there
      await idle.schedule('gone', gone, Date.now() - 1000, {});
      await idle.schedule('gone', kept, Date.now() - 1000, {});
      await idle.schedule('gone', later, Date.now() + 60_000, {});
      await idle.schedule('other', other, Date.now() - 1000, {});
      expect(await idle.overview()).toMatchObject({ waiting: 3, delayed: 1, running: 1 });

      expect((await idle.drop('gone', (id) => id === kept)).sort()).toEqual([gone, later].sort());
      expect(await idle.drop('held', () => false)).toEqual([]);
      expect(await idle.overview()).toMatchObject({ waiting: 2, delayed: 0, running: 1 });

      running.open();
      const again: Run[] = [];
      await worker(again, 'gone');
      await idle.schedule('gone', gone, Date.now(), {});
      await eventually(() => again.length === 2, 5000, 10);
      expect(again.map((r) => r.jobId).sort()).toEqual([gone, kept].sort());
    });

    it('runs a job again when it is scheduled again while running', async () => {
      const runs: Run[] = [];
      const firstRun = gate();
      const scheduler = await worker(runs, 'test', async () => {
        if (runs.length === 1) await firstRun.wait;
      });
      const jobId = newId();
      await scheduler.schedule('test', jobId, Date.now(), { version: 1 });
      await eventually(() => runs.length === 1, 5000, 10);

      const againAt = Date.now() + 200;
      // Answered while the run goes on: it does not wait for the run (a handler may schedule its own job).
      await scheduler.schedule('test', jobId, againAt, { version: 2 });
      expect(runs).toHaveLength(1);
      firstRun.open();

      await eventually(() => runs.length === 2, 5000, 10);
      expect(runs[1].payload).toEqual({ version: 2 });
      expect(runs[1].at).toBeGreaterThanOrEqual(againAt);
    });

    it('a job scheduled again from another process while it runs is not started there before the run ends', async () => {
      const runsA: Run[] = [];
      const runsB: Run[] = [];
      const firstRun = gate();
      const a = await worker(runsA, 'test', async () => {
        if (runsA.length === 1) await firstRun.wait;
      });
      const jobId = newId();
      await a.schedule('test', jobId, Date.now(), { version: 1 });
      await eventually(() => runsA.length === 1, 5000, 10);
      const b = await open();
      b.handle('test', async (payload, id) => void runsB.push({ type: 'test', jobId: id, payload, at: Date.now() }));
      const probed: string[] = [];
      b.handle('probe', async (_payload, id) => void probed.push(id));
      await b.start();

      await b.schedule('test', jobId, Date.now(), { version: 2 });
      // B has looked for due jobs since: a probe due after the job has run there (due jobs are taken in the order of their time).
      const probe = newId();
      await b.schedule('probe', probe, Date.now() + 1, {});
      await eventually(() => probed.includes(probe), 5000, 10);
      expect([...runsA, ...runsB]).toHaveLength(1);
      firstRun.open();

      await eventually(() => runsA.length + runsB.length === 2, 5000, 10);
      await settled(b);
      expect([...runsA, ...runsB].map((run) => run.payload)).toEqual([{ version: 1 }, { version: 2 }]);
    });
  });
}
