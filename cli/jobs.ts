/** `jobs`: the business-time jobs queue, as an operator looks at it. */
import fs from 'node:fs';
import path from 'node:path';
import { openJobScheduler } from '../app/adapters';
import type { RunConfig } from '../shared/adapters/config/env';
import type { JobScheduler } from '../shared/adapters/jobs/port';
import { iso, writeLine } from './output';

/** The service's job store (it must exist), its complaints (Redis away) on stderr, apart from the answer. */
function openJobs(config: RunConfig): JobScheduler {
  const file = path.join(config.dataDir, 'jobs.sqlite');
  if (!config.redisUrl && !fs.existsSync(file))
    throw new Error(
      `no job store at ${file}: set DATA_DIR to the service's data directory, or REDIS_URL (and REDIS_PREFIX)`,
    );
  return openJobScheduler(config, {
    warn: (_details, message) => console.error(message),
    error: (_details, message) => console.error(message),
  });
}

/**
 * `jobs retry [jobId...]`: the failed jobs (all, or those named) put back to run now with a fresh
 * set of attempts, one line per job and a count; exit 1 when a job named has not failed.
 */
export async function retryJobs(config: RunConfig, jobIds: readonly string[]): Promise<number> {
  const jobs = openJobs(config);
  try {
    const retried = await jobs.retryFailed(jobIds.length ? jobIds : undefined);
    for (const jobId of retried) await writeLine(`retried ${jobId}`);
    await writeLine(`${retried.length} failed job(s) put back to run now`);
    const notFailed = jobIds.filter((id) => !retried.includes(id));
    if (notFailed.length) console.error(`not failed (nothing to retry): ${notFailed.join(', ')}`);
    return notFailed.length ? 1 : 0;
  } finally {
    await jobs.close();
  }
}

/** One line of counts, then one line per recent failure; with `json`, the overview as JSON. */
export async function showJobs(config: RunConfig, options: { json: boolean }): Promise<number> {
  const jobs = openJobs(config);
  try {
    const overview = await jobs.overview();
    if (options.json) {
      await writeLine(JSON.stringify(overview));
      return 0;
    }
    await writeLine(
      `jobs: ${overview.waiting} waiting, ${overview.delayed} delayed, ${overview.running} running, ${overview.failed} failed`,
    );
    for (const f of overview.recentFailures)
      await writeLine(`failed ${iso(f.failedAt)}  ${f.type}  ${f.jobId}  after ${f.attempts} attempt(s): ${f.reason}`);
    return 0;
  } finally {
    await jobs.close();
  }
}
