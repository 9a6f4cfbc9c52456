/** `jobs`: the business-time jobs queue, as an operator looks at it. */
import fs from 'node:fs';
import path from 'node:path';
import { openJobScheduler } from '../app/adapters';
import type { RunConfig } from '../shared/adapters/config/env';
import { iso, writeLine } from './output';

/** One line of counts, then one line per recent failure; with `json`, the overview as JSON. */
export async function showJobs(config: RunConfig, options: { json: boolean }): Promise<number> {
  const file = path.join(config.dataDir, 'jobs.sqlite');
  if (!config.redisUrl && !fs.existsSync(file))
    throw new Error(
      `no job store at ${file}: set DATA_DIR to the service's data directory, or REDIS_URL (and REDIS_PREFIX)`,
    );
  // The scheduler's own complaints (Redis away) go to stderr, apart from the answer.
  const jobs = openJobScheduler(config, {
    warn: (_details, message) => console.error(message),
    error: (_details, message) => console.error(message),
  });
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
