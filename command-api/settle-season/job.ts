import { z } from 'zod';
import { runUseCase } from '../command';
import { jobMetadata, type CommandDeps } from '../deps';
import { lastPrizeRank, prizeBoardsOf } from '../../domain/rules/seasons';
import {
  SETTLE_SEASON,
  settleSeasonDecider,
  settleSeasonJobId,
  type SeasonStanding,
  type SettleSeasonPayload,
} from './decider';

/** What the settlement reads besides the log: the board's standings, once the projector has caught up. */
export interface SeasonStandingsDeps extends CommandDeps {
  /** Resolves true once the read models have projected the log up to `position` (false: not in time). */
  waitForProjected(position: number): Promise<boolean>;
  /** The first `count` standings of a board's season, best first. */
  seasonStandings(leaderboardUid: string, season: string, count: number): Promise<SeasonStanding[]>;
}

/**
 * The job: at the season's end plus the board's grace, waits until the projector has applied every
 * event recorded so far (the log's head now, past the settlement time), reads the top of the
 * standings, and settles in one append. Idempotent: the append expects no settlement stream, so a
 * rerun (a crash before the append, a second worker) reads the standings again, which only events
 * recorded after the settlement time can have changed, and one settles; after the append, every
 * rerun finds the season settled. Jobs survive a restart: a service down at the season's end
 * settles when it starts.
 */
export async function settleSeason(payload: SettleSeasonPayload, deps: SeasonStandingsDeps): Promise<void> {
  const jobId = settleSeasonJobId(payload.leaderboardUid, payload.season.key);
  // Found early (a service's clock set apart from real time, a test's): run again when it is time.
  const early = payload.settleAt - deps.now();
  if (early > 0) return deps.jobs.schedule(SETTLE_SEASON, jobId, Date.now() + early, { ...payload });
  const board = prizeBoardsOf(deps.catalog().catalog).find((b) => b.uid === payload.leaderboardUid);
  if (!board) return;
  const head = await deps.events.headPosition();
  // Thrown, so that the job runs again: standings read before the projector caught up would miss scores.
  if (!(await deps.waitForProjected(head)))
    throw new Error(`settling season ${payload.season.key} of ${payload.leaderboardUid}: the read models lag the log`);
  const standings = await deps.seasonStandings(board.uid, payload.season.key, lastPrizeRank(board));
  const origin = { metadata: jobMetadata(jobId, deps), idempotency: null };
  const outcome = await runUseCase(deps, settleSeasonDecider, { ...payload, standings }, origin);
  // Contended through every attempt: thrown, so that the job runs again.
  if (!outcome.ok)
    throw new Error(`settling season ${payload.season.key} of ${payload.leaderboardUid}: ${outcome.failure.message}`);
}

const settlePayload = z.object({
  leaderboardUid: z.string(),
  season: z.object({ key: z.string(), start: z.number(), end: z.number() }),
  settleAt: z.number(),
});

export function registerSeasonJobs(deps: SeasonStandingsDeps): void {
  deps.jobs.handle(SETTLE_SEASON, async (payload) => settleSeason(settlePayload.parse(payload), deps));
}
