import { isConflict } from '../../domain/result';
import { z } from 'zod';
import { runUseCase } from '../command';
import type { ScheduledJob } from '../decision';
import { jobMetadata, type CommandDeps } from '../deps';
import { NOT_YET_WRITTEN_RETRY_MS, PROVISION_TIMEOUT, provisionTimeout, timeoutDecider, timeoutJobId } from './decider';

/**
 * The job: decides against the provision as it is now, so a rerun, or a provision completed
 * meanwhile, changes nothing. A job can run before its purchase's append has landed (a short
 * timeout, a slow append): finding no provision, it looks again until `writtenBy`, and only
 * then takes the purchase as never written.
 */
export async function timeOutProvision(provisionUid: string, writtenBy: number, deps: CommandDeps): Promise<void> {
  const origin = { metadata: jobMetadata(timeoutJobId(provisionUid), deps), idempotency: null };
  const outcome = await runUseCase(deps, timeoutDecider, { provisionUid }, origin);
  if (!outcome.ok) {
    if (!isConflict(outcome.failure) && outcome.failure.code === 9004) {
      const now = deps.now();
      if (now < writtenBy)
        await schedule(
          provisionTimeout(provisionUid, Math.min(now + NOT_YET_WRITTEN_RETRY_MS, writtenBy), writtenBy),
          deps,
        );
      return;
    }
    // Contended through every attempt: thrown, so that the job runs again.
    throw new Error(`timing out provision ${provisionUid}: ${outcome.failure.message}`);
  }
  const { dueAt } = outcome.value.answer;
  if (dueAt !== null) await schedule(provisionTimeout(provisionUid, dueAt, writtenBy), deps);
}

function schedule(job: ScheduledJob, deps: CommandDeps): Promise<void> {
  return deps.jobs.schedule(job.type, job.id, job.runAt, job.payload);
}

const timeoutPayload = z.object({ provisionUid: z.string(), writtenBy: z.number() });

export function registerProvisionJobs(deps: CommandDeps): void {
  deps.jobs.handle(PROVISION_TIMEOUT, async (payload) => {
    const { provisionUid, writtenBy } = timeoutPayload.parse(payload);
    await timeOutProvision(provisionUid, writtenBy, deps);
  });
}
