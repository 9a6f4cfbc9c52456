import { z } from 'zod';
import { fail } from '../../shared/result';
import { runCommand, type ScheduledJob } from '../command';
import { decisionEnv, jobMetadata, type CommandDeps } from '../deps';
import { decideTimeout } from './decider';
import { readTransaction } from './handler';

/**
 * `provision-timeout`: a Pending provision not completed within the catalog's
 * `pendingTimeoutSeconds` fails (TimedOut), its currency and stock returned. The purchase
 * schedules it before its append, so no Pending provision is ever without it; a job whose
 * purchase never got written finds no provision and does nothing.
 */
export const PROVISION_TIMEOUT = 'provision-timeout';
const timeoutJobId = (provisionUid: string): string => `provision-timeout-${provisionUid}`;

export const provisionTimeout = (provisionUid: string, runAt: number): ScheduledJob => ({ type: PROVISION_TIMEOUT, id: timeoutJobId(provisionUid), runAt, payload: { provisionUid } });

/** The job: decides against the provision as it is now, so a rerun, or a provision completed meanwhile, changes nothing. */
export async function timeOutProvision(provisionUid: string, deps: CommandDeps): Promise<void> {
  const env = decisionEnv(deps);
  const outcome = await runCommand(deps, jobMetadata(timeoutJobId(provisionUid), deps), async (read) => {
    const state = await readTransaction(read, provisionUid);
    return state ? { ok: true, value: decideTimeout(state, { ...env, catalog: deps.catalog().catalog }) } : fail(9004, 'Transaction does not exist');
  });
  if (!outcome.ok) {
    if (outcome.failure.code === 9004) return;
    // Contended through every attempt: thrown, so that the job runs again.
    throw new Error(`timing out provision ${provisionUid}: ${outcome.failure.message}`);
  }
  const { dueAt } = outcome.value.answer;
  if (dueAt !== null) {
    const job = provisionTimeout(provisionUid, dueAt);
    await deps.jobs.schedule(job.type, job.id, job.runAt, job.payload);
  }
}

const timeoutPayload = z.object({ provisionUid: z.string() });

export function registerProvisionJobs(deps: CommandDeps): void {
  deps.jobs.handle(PROVISION_TIMEOUT, async (payload) => timeOutProvision(timeoutPayload.parse(payload).provisionUid, deps));
}
