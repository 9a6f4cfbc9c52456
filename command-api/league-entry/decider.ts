/** The league step of processing an action (decided with it, in its append): what it adds to each league, who it enters, and the settlement it schedules. */
import type { Catalog } from '../../domain/catalog/types';
import type { LeagueContribution } from '../../domain/events/league-events';
import type { PlayerView } from '../../domain/player/state';
import { leagueContributions, leaguesOf } from '../../domain/rules/leagues';
import { leagueStream } from '../../domain/streams';
import type { ScheduledJob, StreamWrite } from '../decision';
import { settleLeagueJob } from '../settle-league/decider';

export interface LeagueStep {
  contributions: LeagueContribution[];
  writes: StreamWrite[];
  jobs: ScheduledJob[];
}

const NO_STEP: LeagueStep = { contributions: [], writes: [], jobs: [] };

/**
 * An action that counts adds its earned points (or 1, for a league counting it) to each league's
 * period of its timestamp. The first to add to a period enters the player: a LeagueEntered on the
 * period's tier stream, whose order is the order of entry, so cohorts are read off it without a
 * counter every entry would contend for ('any': an entry never conflicts; the settlement's append
 * expects the stream as it read it, so an entry it did not see makes it read again). That stream is
 * written once per player and period, never on their other actions. The entry schedules the
 * period's settlement (one job per period: scheduling it again keeps one).
 */
export function leagueStep(
  catalog: Catalog,
  player: PlayerView,
  action: { name: string; timestamp: number; points: number; playerId: string },
  now: number,
): LeagueStep {
  // Most catalogs have no league: nothing to look through.
  if (leaguesOf(catalog).length === 0) return NO_STEP;
  const contributions = leagueContributions(catalog, player, action, now);
  const step: LeagueStep = { contributions, writes: [], jobs: [] };
  for (const c of contributions) {
    if (!c.entered) continue;
    const cohortSize = leaguesOf(catalog).find((l) => l.uid === c.uid)!.cohortSize;
    step.writes.push({
      stream: leagueStream(c.uid, c.period.start, c.tier),
      events: [
        {
          type: 'LeagueEntered',
          data: { leagueUid: c.uid, period: c.period, tier: c.tier, playerId: action.playerId, cohortSize },
        },
      ],
      expectedRevision: 'any',
    });
    step.jobs.push(settleLeagueJob({ leagueUid: c.uid, period: c.period, settleAt: c.settleAt }));
  }
  return step;
}
