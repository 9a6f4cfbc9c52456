/**
 * Settling a league period, one cohort per append: each player's LeagueFinished (rank, outcome,
 * next tier) with the prize of their rank granted, and the cohort marked settled on its tier's
 * stream, at the revision read: a second run, or a crash and a restart, finds it settled and
 * settles nobody twice.
 */
import { addAmounts } from '../../domain/amount';
import type { League } from '../../domain/catalog/types';
import { indexCatalog } from '../../domain/catalog/catalog-index';
import { noEffects, type Effects } from '../../domain/events/common';
import type { LeagueFinished, LeaguePeriodBounds } from '../../domain/events/league-events';
import {
  cohortCount,
  cohortEntries,
  entryRevision,
  LEAGUE_TIER_FOLD,
  type LeagueTierState,
} from '../../domain/league-stream';
import { leagueEventOf } from '../../domain/events';
import { scopedAttributes } from '../../domain/player/attributes';
import { PLAYER_FOLD } from '../../domain/player/fold';
import type { PlayerState } from '../../domain/player/state';
import { ok } from '../../domain/result';
import { effectsOfGrants, grantOf } from '../../domain/rules/grants';
import { leaguesOf, outcomeOf, prizeOf, standingsOf } from '../../domain/rules/leagues';
import { levelsReachedAt } from '../../domain/rules/levels';
import { leagueStream, playerStream } from '../../domain/streams';
import { currencyExpiryJobs } from '../currency-expiry/decider';
import { decision, type Decider, type ScheduledJob, type StreamWrite } from '../decision';
import { eventAt, folded, type UseCase } from '../use-case';

export const SETTLE_LEAGUE = 'settle-league';

/** One job per league and period. */
export const settleLeagueJobId = (leagueUid: string, periodStart: number): string =>
  `settle-league-${leagueUid}-${periodStart}`;

export interface SettlePayload {
  leagueUid: string;
  period: LeaguePeriodBounds;
  settleAt: number;
}

/** The job that settles a period, scheduled with each entry into it (one job per period: scheduling it again keeps one). */
export const settleLeagueJob = (payload: SettlePayload): ScheduledJob => ({
  type: SETTLE_LEAGUE,
  id: settleLeagueJobId(payload.leagueUid, payload.period.start),
  runAt: payload.settleAt,
  payload: { ...payload },
  oncePerProcess: true,
});

export interface SettleCohortCommand extends SettlePayload {
  tier: string;
}

export interface SettleCohortState {
  tier: LeagueTierState;
  /** The members of the first cohort not settled, in the order they entered (empty: all are settled). */
  cohort: number;
  players: PlayerState[];
}

/** The cohort settled (null: every cohort of the tier was settled already, or the league or tier is gone). */
export type SettleAnswer = { cohort: number; players: string[] } | null;

/** The first cohort of the tier not yet settled, with its members' states. */
function* cohortToSettle(cmd: SettleCohortCommand) {
  const { state: tier } = yield* folded(leagueStream(cmd.leagueUid, cmd.period.start, cmd.tier), LEAGUE_TIER_FOLD);
  let cohort = 1;
  while (cohort <= cohortCount(tier) && tier.settled.includes(cohort)) cohort++;
  const players: PlayerState[] = [];
  const stream = leagueStream(cmd.leagueUid, cmd.period.start, cmd.tier);
  if (cohort <= cohortCount(tier))
    for (const index of cohortEntries(tier, cohort)) {
      const recorded = yield* eventAt(stream, entryRevision(tier, index));
      const entry = recorded && leagueEventOf(recorded);
      if (entry?.type !== 'LeagueEntered') throw new Error(`${stream}: no entry at ${entryRevision(tier, index)}`);
      players.push((yield* folded(playerStream(entry.data.playerId), PLAYER_FOLD)).state);
    }
  return { tier, cohort, players };
}

export const decideSettleCohort: Decider<SettleCohortCommand, SettleCohortState, SettleAnswer> = (cmd, state, env) => {
  const { catalog } = env;
  const league: League | undefined = leaguesOf(catalog).find((l) => l.uid === cmd.leagueUid);
  const tierIndex = league?.tiers.findIndex((t) => t.uid === cmd.tier) ?? -1;
  if (!league || tierIndex < 0 || state.players.length === 0) return ok(decision(null, []));
  const tier = league.tiers[tierIndex];
  const members = state.players.map((player, entry) => {
    const standing = player.leagues.get(league.uid)?.open.find((o) => o.start === cmd.period.start);
    return {
      player,
      playerId: player.playerId,
      entry,
      metric: standing?.metric ?? 0,
      reachedAt: standing?.reachedAt ?? 0,
    };
  });
  const ranked = standingsOf(members);
  const byUid = indexCatalog(catalog).deliverableByUid;
  const writes: StreamWrite[] = [];
  const jobs: ScheduledJob[] = [];
  for (const [i, { player, playerId, metric }] of ranked.entries()) {
    const rank = i + 1;
    const { outcome, nextTier } = outcomeOf(league, tierIndex, rank, ranked.length);
    // An erased player keeps their place (the cohort never changes) but wins nothing.
    const prize = player.erased ? null : prizeOf(tier, rank);
    const grants = (prize?.deliverables ?? []).map((g) => grantOf(byUid.get(g.deliverable)!, g.amount));
    const levels =
      prize && prize.points > 0 ? levelsReachedAt(catalog, player, addAmounts(player.points, prize.points)) : [];
    const clock = { timestamp: env.now, timeZone: player.timeZone ?? catalog.settings.timezone };
    const granted = effectsOfGrants(catalog, grants.concat(levels.flatMap((l) => l.grants)), env, noEffects(), clock);
    if (!granted.ok) return granted;
    const effects: Effects = granted.value;
    effects.points = prize?.points ?? 0;
    const finished: LeagueFinished = {
      playerId,
      leagueUid: league.uid,
      period: cmd.period,
      tier: tier.uid,
      cohort: state.cohort,
      rank,
      metric,
      outcome,
      nextTier,
      prize: prize ? { points: prize.points, deliverables: prize.deliverables } : null,
      grants,
      levels,
      settledAt: env.now,
      effects,
    };
    const scopes = scopedAttributes(catalog, player.attributes);
    if (scopes) finished.attributes = scopes;
    writes.push({ stream: playerStream(playerId), events: [{ type: 'LeagueFinished', data: finished }] });
    jobs.push(...currencyExpiryJobs(playerId, effects.lots));
  }
  const players = ranked.map((m) => m.playerId);
  writes.push({
    stream: leagueStream(league.uid, cmd.period.start, tier.uid),
    events: [
      {
        type: 'LeagueCohortSettled',
        data: {
          leagueUid: league.uid,
          period: cmd.period,
          tier: tier.uid,
          cohort: state.cohort,
          players,
          settledAt: env.now,
        },
      },
    ],
  });
  return ok(decision({ cohort: state.cohort, players }, writes, jobs));
};

/** One cohort's settlement: decided on the tier's stream and its members' streams. */
export const settleCohortDecider: UseCase<SettleCohortCommand, SettleCohortState, SettleAnswer> = {
  read: cohortToSettle,
  decide: decideSettleCohort,
};
