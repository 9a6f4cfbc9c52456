/**
 * GET /v1/admin/jobs: the business-time jobs queue, for operators (Server and Auditor keys);
 * POST /v1/admin/jobs/retry: failed jobs put back to run (Server keys), served where jobs run.
 */
import { z } from 'zod';
import { OPERATORS } from '../../shared/adapters/auth/access';
import { text } from '../../shared/adapters/http/fields';
import { defineRoute, parseWith, requireObject, type AnyRoute } from '../../shared/adapters/http/route';
import type { JobScheduler } from '../../shared/adapters/jobs/port';
import { ok } from '../../domain/result';

export const jobsOverviewShape = z.object({
  waiting: z
    .number()
    .int()
    .describe('due, waiting for a free worker (for long only when no command process runs, or all are busy)'),
  delayed: z
    .number()
    .int()
    .describe('due later: Pending purchases and activated powerups, and retries waiting out their backoff'),
  running: z.number().int().describe('being run now, or by a process that died until its lock runs out'),
  failed: z.number().int().describe('attempts used up: each needs an operator'),
  recentFailures: z
    .array(
      z.object({
        type: z.string(),
        jobId: z.string(),
        attempts: z.number().int(),
        failedAt: z.number().int().describe('Unix ms'),
        reason: z.string(),
      }),
    )
    .describe('the latest failures, newest first'),
});

export function jobsRoute(jobs: Pick<JobScheduler, 'overview'>): AnyRoute {
  return defineRoute({
    method: 'GET',
    path: '/v1/admin/jobs',
    tiers: OPERATORS,
    doc: {
      operationId: 'jobs',
      summary:
        'The jobs queue (Pending purchase timeouts, powerup expiries): how many wait, are delayed, run and failed, and the latest failures',
      response: jobsOverviewShape,
      errors: {},
    },
    parse: () => ok({}),
    async handle() {
      return ok(await jobs.overview());
    },
  });
}

const retryBody = z.object({
  jobIds: z
    .array(text())
    .optional()
    .describe('the failed jobs to put back (ids as GET /v1/admin/jobs lists them); absent: every failed job'),
});

export function jobsRetryRoute(jobs: Pick<JobScheduler, 'retryFailed'>): AnyRoute {
  return defineRoute({
    method: 'POST',
    path: '/v1/admin/jobs/retry',
    tiers: ['Server'],
    doc: {
      operationId: 'retryFailedJobs',
      summary:
        'Puts failed jobs (attempts used up, e.g. through a store outage) back to run now with a fresh set of attempts: those named, or every one',
      body: retryBody,
      response: z.object({
        retried: z.array(z.string()).describe('the ids put back; a job named that has not failed is not among them'),
      }),
      errors: { 1001: 'jobIds is not a list of job ids' },
    },
    parse(input) {
      // No body: every failed job.
      const object = requireObject(input.body ?? {});
      return object.ok ? parseWith(retryBody, object.value) : object;
    },
    async handle({ jobIds }, ctx) {
      const retried = await jobs.retryFailed(jobIds);
      ctx.log.info({ retried }, 'failed jobs put back to run');
      return ok({ retried });
    },
  });
}
