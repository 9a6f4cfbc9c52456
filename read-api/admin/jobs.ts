/** GET /v1/admin/jobs: the business-time jobs queue, for operators (Server and Auditor keys). */
import { OPERATORS } from '../../shared/adapters/auth/access';
import { defineRoute, type AnyRoute } from '../../shared/adapters/http/route';
import { jobsOverviewShape } from '../../shared/adapters/http/wire-shapes';
import type { JobScheduler } from '../../shared/adapters/jobs/port';
import { ok } from '../../shared/domain/result';

export function jobsRoute(jobs: Pick<JobScheduler, 'overview'>): AnyRoute {
  return defineRoute({
    method: 'GET',
    path: '/v1/admin/jobs',
    tiers: OPERATORS,
    doc: {
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
