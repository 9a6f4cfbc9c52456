import { isConflict } from '../../shared/domain/result';
import { z } from 'zod';
import { runCommand } from '../command';
import type { ScheduledJob } from '../decision';
import { decisionEnv, jobMetadata, type CommandDeps } from '../deps';
import { decideTimeout } from './decider';
import { readTransaction } from './handler';
import { ERRORS, refuse } from '../../shared/domain/errors';

/**
 * `provision-timeout`: a Pending provision not completed within the catalog's
 * `pendingTimeoutSeconds` fails (TimedOut), its currency and stock returned. The purchase
 * schedules it before its append, so no Pending provision is ever without it.
 */
export const PROVISION_TIMEOUT = 'provision-timeout';
const timeoutJobId = (provisionUid: string): string => `provision-timeout-${provisionUid}`;

/**
 * How long after its decision a purchase may still be on its way to the store (its retries on
 * contention, a store's timeouts), by far: a job that finds no provision looks again until then.
 */
export const PURCHASE_WRITE_WINDOW_MS = 5 * 60_000;
/** How soon a job that found no provision yet looks again. */
export const NOT_YET_WRITTEN_RETRY_MS = 1000;

/** `writtenBy`: the time after which a provision still missing was never written. */
export const provisionTimeout = (provisionUid: string, runAt: number, writtenBy: number): ScheduledJob => ({
  type: PROVISION_TIMEOUT,
  id: timeoutJobId(provisionUid),
  runAt,
  payload: { provisionUid, writtenBy },
});

/**
 * The job: decides against the provision as it is now, so a rerun, or a provision completed
 * meanwhile, changes nothing. A job can run before its purchase's append has landed (a short
 * timeout, a slow append): finding no provision, it looks again until `writtenBy`, and only
 * then takes the purchase as never written.
 */
export async function timeOutProvision(provisionUid: string, writtenBy: number, deps: CommandDeps): Promise<void> {
  const env = decisionEnv(deps);
  const outcome = await runCommand(deps, jobMetadata(timeoutJobId(provisionUid), deps), async (read) => {
    const state = await readTransaction(read, provisionUid);
    return state ? decideTimeout({}, state, env) : refuse(ERRORS.TRANSACTION_NOT_FOUND);
  });
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
