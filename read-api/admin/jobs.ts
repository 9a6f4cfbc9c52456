/** GET /v1/admin/jobs: the business-time jobs queue, for operators (Server and Auditor keys). */
import { z } from 'zod';
import { OPERATORS } from '../../shared/adapters/auth/access';
import { defineRoute, type AnyRoute } from '../../shared/adapters/http/route';
import type { JobScheduler } from '../../shared/adapters/jobs/port';
import { ok } from '../../shared/domain/result';

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
