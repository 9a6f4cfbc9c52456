import { z } from 'zod';
import { runUseCase } from '../command';
import { jobMetadata, type CommandDeps } from '../deps';
import { leaguesOf } from '../../domain/rules/leagues';
import { SETTLE_LEAGUE, settleCohortDecider, settleLeagueJobId, type SettlePayload } from './decider';

/**
 * The job: settles every cohort of every tier of the period, one append each, until none is left.
 * Idempotent: each append expects the tier's stream as read, and a cohort settled is skipped, so a
 * rerun (a crash mid-way, a second worker) settles only what is left. Jobs survive a restart: a
 * service down at the period's end runs it when it starts.
 */
export async function settleLeague(payload: SettlePayload, deps: CommandDeps): Promise<void> {
  const jobId = settleLeagueJobId(payload.leagueUid, payload.period.start);
  // Found early: run again when the service's clock says it is time. The scheduler keeps real time,
  // which a service's clock set apart from it (a test's) does not: the wait is counted from now.
  const early = payload.settleAt - deps.now();
  if (early > 0) return deps.jobs.schedule(SETTLE_LEAGUE, jobId, Date.now() + early, { ...payload });
  const league = leaguesOf(deps.catalog().catalog).find((l) => l.uid === payload.leagueUid);
  for (const tier of league?.tiers ?? []) {
    for (;;) {
      const origin = { metadata: jobMetadata(jobId, deps), idempotency: null };
      const outcome = await runUseCase(deps, settleCohortDecider, { ...payload, tier: tier.uid }, origin);
      // Contended through every attempt: thrown, so that the job runs again.
      if (!outcome.ok) throw new Error(`settling league ${payload.leagueUid} ${tier.uid}: ${outcome.failure.message}`);
      if (outcome.value.answer === null) break;
    }
  }
}

const settlePayload = z.object({
  leagueUid: z.string(),
  period: z.object({ start: z.number(), end: z.number() }),
  settleAt: z.number(),
});

export function registerLeagueJobs(deps: CommandDeps): void {
  deps.jobs.handle(SETTLE_LEAGUE, async (payload) => settleLeague(settlePayload.parse(payload), deps));
}
