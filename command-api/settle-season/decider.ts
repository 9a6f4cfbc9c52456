/**
 * Settling a leaderboard season's prizes (docs/catalog.md, "leaderboards"): each rewarded player's
 * LeaderboardSeasonFinished (rank, score) with the rank's prize granted, and the season's
 * LeaderboardSeasonSettled with the standings it was decided on, in one append that expects no
 * settlement stream yet: a second run, or a crash and a restart, finds it and rewards nobody twice.
 *
 * Why the standings come in the command: a board's standings live only in its read model (the
 * projector's lb_scores), not in a stream of their own as a league cohort's entries do. The job
 * reads them there once the projector has caught up with the log at the settlement time (job.ts),
 * and the events record the ranks and scores it used: replaying the log (rebuild, verify, simulate)
 * reads the decision and never ranks again. Folding each season's standings from every player's
 * stream instead would read the whole log at each season's end for the same answer.
 */
import { addAmounts } from '../../domain/amount';
import { indexCatalog } from '../../domain/catalog/catalog-index';
import { noEffects } from '../../domain/events/common';
import type { LeaderboardSeasonFinished } from '../../domain/events/season-events';
import { seasonEventOf } from '../../domain/events';
import { scopedAttributes } from '../../domain/player/attributes';
import { PLAYER_FOLD } from '../../domain/player/fold';
import type { PlayerState } from '../../domain/player/state';
import { ok } from '../../domain/result';
import { effectsOfGrants, grantOf } from '../../domain/rules/grants';
import { levelsReachedAt } from '../../domain/rules/levels';
import {
  prizeBoardsOf,
  rankPrizeOf,
  seasonAt,
  seasonPrizesOf,
  seasonSettleAt,
  type SeasonBounds,
} from '../../domain/rules/seasons';
import type { Catalog } from '../../domain/catalog/types';
import type { StreamFold } from '../../domain/stream-fold';
import { playerStream, seasonStream } from '../../domain/streams';
import { currencyExpiryJobs } from '../currency-expiry/decider';
import { decision, type Decider, type ScheduledJob, type StreamWrite } from '../decision';
import { folded, type UseCase } from '../use-case';

export const SETTLE_SEASON = 'settle-season';

/** One job per board and season. */
export const settleSeasonJobId = (leaderboardUid: string, season: string): string =>
  `settle-season-${leaderboardUid}-${season}`;

export interface SettleSeasonPayload {
  leaderboardUid: string;
  season: SeasonBounds;
  settleAt: number;
}

/** The job that settles a season, named by every action counted in it (one job per season: scheduling it again keeps one). */
export const settleSeasonJob = (payload: SettleSeasonPayload): ScheduledJob => ({
  type: SETTLE_SEASON,
  id: settleSeasonJobId(payload.leaderboardUid, payload.season.key),
  runAt: payload.settleAt,
  payload: { ...payload, season: { ...payload.season } },
  oncePerProcess: true,
});

/**
 * The settlements an action decided at `now` names: the season of its timestamp on each prize board
 * it counts on (its points, or its count), unless that season's settlement time has passed.
 */
export function seasonJobsOfAction(
  catalog: Catalog,
  action: { name: string; timestamp: number; points: number },
  now: number,
): ScheduledJob[] {
  const jobs: ScheduledJob[] = [];
  for (const board of prizeBoardsOf(catalog)) {
    const counted = board.metric === 'points' ? action.points > 0 : board.metric.action === action.name;
    if (!counted) continue;
    const season = seasonAt(board.season!, action.timestamp, catalog.settings.timezone);
    const settleAt = seasonSettleAt(board, season);
    if (now < settleAt) jobs.push(settleSeasonJob({ leaderboardUid: board.uid, season, settleAt }));
  }
  return jobs;
}

/** One standing as the read model ranks it: best first, ranks 1, 2, 3, ... (a tie to who reached the score first). */
export interface SeasonStanding {
  playerId: string;
  score: number;
}

export interface SettleSeasonCommand extends SettleSeasonPayload {
  /** The board's standings at the settlement, best first, as far as the last prize's rank. */
  standings: SeasonStanding[];
}

export interface SettleSeasonState {
  settled: boolean;
  /** The states of the players in the standings, in their order. */
  players: PlayerState[];
}

/** The players rewarded (null: the season was settled already, or the board has no prizes any more). */
export type SettleSeasonAnswer = { rewarded: string[] } | null;

/** Whether the season's settlement stream holds its settlement. */
export const SEASON_FOLD: StreamFold<{ settled: boolean }> = {
  initial: () => ({ settled: false }),
  evolve: (state, recorded) => (seasonEventOf(recorded) ? { settled: true } : state),
};

function* seasonToSettle(cmd: SettleSeasonCommand) {
  const { state } = yield* folded(seasonStream(cmd.leaderboardUid, cmd.season.key), SEASON_FOLD);
  const players: PlayerState[] = [];
  if (!state.settled)
    for (const s of cmd.standings) players.push((yield* folded(playerStream(s.playerId), PLAYER_FOLD)).state);
  return { settled: state.settled, players };
}

export const decideSettleSeason: Decider<SettleSeasonCommand, SettleSeasonState, SettleSeasonAnswer> = (
  cmd,
  state,
  env,
) => {
  const { catalog } = env;
  const board = prizeBoardsOf(catalog).find((b) => b.uid === cmd.leaderboardUid);
  if (!board || state.settled) return ok(decision(null, []));
  const byUid = indexCatalog(catalog).deliverableByUid;
  const writes: StreamWrite[] = [];
  const jobs: ScheduledJob[] = [];
  for (const [i, { playerId, score }] of cmd.standings.entries()) {
    const rank = i + 1;
    const player = state.players[i];
    const prize = rankPrizeOf(seasonPrizesOf(board), rank);
    // A player erased (or never registered) since keeps their place but wins nothing.
    if (!prize || !player.registered || player.erased) continue;
    const grants = prize.deliverables.map((g) => grantOf(byUid.get(g.deliverable)!, g.amount));
    const levels = prize.points > 0 ? levelsReachedAt(catalog, player, addAmounts(player.points, prize.points)) : [];
    const clock = { timestamp: env.now, timeZone: player.timeZone ?? catalog.settings.timezone };
    const granted = effectsOfGrants(catalog, grants.concat(levels.flatMap((l) => l.grants)), env, noEffects(), clock);
    if (!granted.ok) return granted;
    const effects = granted.value;
    effects.points = prize.points;
    const finished: LeaderboardSeasonFinished = {
      playerId,
      leaderboardUid: board.uid,
      season: cmd.season.key,
      bounds: { start: cmd.season.start, end: cmd.season.end },
      rank,
      score,
      prize: { points: prize.points, deliverables: prize.deliverables },
      grants,
      levels,
      settledAt: env.now,
      effects,
    };
    const scopes = scopedAttributes(catalog, player.attributes);
    if (scopes) finished.attributes = scopes;
    writes.push({ stream: playerStream(playerId), events: [{ type: 'LeaderboardSeasonFinished', data: finished }] });
    jobs.push(...currencyExpiryJobs(playerId, effects.lots));
  }
  const rewarded = writes.map((w) => (w.events[0].data as LeaderboardSeasonFinished).playerId);
  writes.push({
    stream: seasonStream(board.uid, cmd.season.key),
    events: [
      {
        type: 'LeaderboardSeasonSettled',
        data: {
          leaderboardUid: board.uid,
          season: cmd.season.key,
          bounds: { start: cmd.season.start, end: cmd.season.end },
          standings: cmd.standings.map((s) => ({ playerId: s.playerId, score: s.score })),
          settledAt: env.now,
        },
      },
    ],
    expectedRevision: 'no_stream',
  });
  return ok(decision({ rewarded }, writes, jobs));
};

/** A season's settlement: decided on its settlement stream and the ranked players' streams. */
export const settleSeasonDecider: UseCase<SettleSeasonCommand, SettleSeasonState, SettleSeasonAnswer> = {
  read: seasonToSettle,
  decide: decideSettleSeason,
};
