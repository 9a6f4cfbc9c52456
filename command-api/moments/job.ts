import { z } from 'zod';
import { MOMENT_JOB, momentJobAt, momentJobId } from '../../domain/rules/moments';
import { runUseCase } from '../command';
import { jobMetadata, type CommandDeps } from '../deps';
import { momentDecider, type MomentCommand } from './decider';

/**
 * The job; idempotent: it decides on the player's state as it finds it. Found early (a job of an
 * older schedule, a change of zone), or with a next moment to come, it schedules itself again then.
 */
export async function runMoment(command: MomentCommand, deps: CommandDeps): Promise<void> {
  const jobId = momentJobId(command.playerId, command.type, command.subject);
  const origin = { metadata: jobMetadata(jobId, deps), idempotency: null };
  const outcome = await runUseCase(deps, momentDecider, command, origin);
  // Contended through every attempt: thrown, so that the job runs again.
  if (!outcome.ok) throw new Error(`moment ${jobId}: ${outcome.failure.message}`);
  const { next } = outcome.value.answer;
  if (next) {
    const job = momentJobAt(command.playerId, next);
    await deps.jobs.schedule(job.type, job.id, job.runAt, job.payload);
  }
}

const momentPayload = z.object({
  playerId: z.string(),
  type: z.enum(['StreakAtRisk', 'MissionEnding', 'LeagueEnding', 'PlayerInactive']),
  subject: z.string(),
});

export function registerMomentJobs(deps: CommandDeps): void {
  deps.jobs.handle(MOMENT_JOB, async (payload) => runMoment(momentPayload.parse(payload), deps));
}
