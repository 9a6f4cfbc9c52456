/**
 * The leaderboards read model: board definitions, one score document per board, period and
 * player, and the players' display names. Written by the leaderboards projector, read by the
 * leaderboard routes.
 */
import { addAmounts } from '../../domain/amount';
import type { Catalog, Leaderboard } from '../../domain/catalog/schema';
import type { PlayerEvent } from '../../domain/events';
import { localIsoToEpochMs } from '../../domain/time/local-time';
import { seasonPeriod } from '../../domain/time/season';

export const LEADERBOARD_COLLECTIONS = { boards: 'lb_boards', scores: 'lb_scores', players: 'lb_players' } as const;

/** The period key of a Standard board: one period for its whole life. */
export const STANDARD_PERIOD = 'all';

export interface BoardDoc {
  _id: string;
  type: 0 | 1;
  season: Leaderboard['season'];
  startMs: number | null;
  endMs: number | null;
  /** null: points; else the action identifier counted. */
  action: string | null;
  timezone: string;
  /** The player attribute whose values split the standings (absent in boards stored before scopes: none). */
  scope?: string | null;
  /** `sum`: the standings rank the scope's values, by the sum of their players' metric. */
  aggregate?: 'sum' | null;
  [key: string]: unknown;
}

/**
 * A live contribution to a score (an action's points or count, a chest's points, not reversed):
 * the action's referenceId or the opening's uid, its position in the log, and what is left of it
 * (a reversal may revoke later awards it brought). A tuple: score documents are copied on every
 * read and write, and a short array copies faster than an object.
 */
export type LiveContribution = [ref: string, at: number, points: number];

export interface ScoreDoc {
  _id: string;
  board: string;
  period: string;
  /** The player; on an aggregate board, the scope value the document totals. */
  playerId: string;
  /** The sum of the live contributions. */
  score: number;
  /** Some contribution is live. Without one the entry is out of the standings; the document stays (see `appliedAt`). */
  inStandings: boolean;
  /** Position of the latest live contribution: in a tie, the player who reached the score first ranks first. */
  reachedAt: number;
  /** The latest live contributions, oldest first (at most LATEST_KEPT, projections/leaderboards.ts). */
  latest: LiveContribution[];
  /** The sum of the older live contributions. */
  earlier: number;
  /**
   * Position of the last event applied to the document: an event up to it is a redelivery
   * (after a restart from an older checkpoint) and is skipped.
   */
  appliedAt: number;
  [key: string]: unknown;
}

/** The score a document is counted under in the standings: null when out of them. */
export const countedScore = (doc: ScoreDoc | null): number | null => (doc && doc.inStandings ? doc.score : null);

/** The period of a board an instant falls in, or null outside the board's dates. */
export function periodOf(board: BoardDoc, ts: number): string | null {
  if ((board.startMs !== null && ts < board.startMs) || (board.endMs !== null && ts > board.endMs)) return null;
  return board.type === 1 && board.season ? seasonPeriod(ts, board.season, board.timezone) : STANDARD_PERIOD;
}

/**
 * The period key of a scoped board's standings for one value of its scope: a period key holds no
 * `|`, so the key stays unambiguous whatever the value, and each value's standings are one range
 * of the score index.
 */
export const scopedPeriod = (period: string, value: string): string => `${period}|${value}`;

/** The boards a catalog defines, as the lb_boards collection holds them. */
export function boardsOfCatalog(catalog: Catalog): BoardDoc[] {
  const tz = catalog.settings.timezone;
  return catalog.leaderboards.map((l) => ({
    _id: l.uid,
    type: l.type,
    season: l.season,
    startMs: l.startDate ? localIsoToEpochMs(l.startDate, tz) : null,
    endMs: l.endDate ? localIsoToEpochMs(l.endDate, tz) : null,
    action: l.metric === 'points' ? null : l.metric.action,
    timezone: tz,
    scope: l.scope,
    aggregate: l.aggregate,
  }));
}

/** What one event does to one score: the projector's standings and a simulation's both count with it. */
export type BoardChange =
  /** A new contribution: an action's earned points (or its count, on an action board), a chest's points, an adjustment's (signed). */
  | { kind: 'add'; ref: string; ts: number; points: number }
  /** The reversed action's own contribution leaves; `points` is what is left of it. */
  | { kind: 'remove'; ref: string; ts: number; points: number }
  /** An award of a later action, revoked by a reversal: that action's contribution shrinks, and leaves at 0. */
  | { kind: 'reduce'; ref: string; ts: number; points: number };

/** The player events that move standings. */
export type ScoringEvent = Extract<
  PlayerEvent,
  {
    type:
      | 'ActionProcessed'
      | 'ActionReversed'
      | 'ChestOpened'
      | 'PlayerAdjusted'
      | 'PlayerRecomputed'
      | 'LeagueFinished'
      | 'LeaderboardSeasonFinished';
  }
>;

export const isScoring = <E extends PlayerEvent>(event: E): event is Extract<E, ScoringEvent> =>
  event.type === 'ActionProcessed' ||
  event.type === 'ActionReversed' ||
  event.type === 'ChestOpened' ||
  event.type === 'PlayerAdjusted' ||
  event.type === 'PlayerRecomputed' ||
  event.type === 'LeagueFinished' ||
  event.type === 'LeaderboardSeasonFinished';

export function boardChanges(event: ScoringEvent, board: BoardDoc): BoardChange[] {
  if (event.type === 'ActionProcessed') {
    const e = event.data;
    const ref = e.referenceId;
    if (e.timesCapped) return [];
    if (board.action !== null)
      return e.actionName === board.action ? [{ kind: 'add', ref, ts: e.timestamp, points: 1 }] : [];
    return e.result.earnedPoints > 0 ? [{ kind: 'add', ref, ts: e.timestamp, points: e.result.earnedPoints }] : [];
  }
  if (event.type === 'ActionReversed') {
    const e = event.data;
    const ref = e.referenceId;
    if (e.timesCapped) return [];
    if (board.action !== null)
      return e.actionName === board.action ? [{ kind: 'remove', ref, ts: e.timestamp, points: 1 }] : [];
    // Streak milestones and mission completions count like awards: the action's own leave with it, later ones reduce theirs.
    const revoked = [...e.revokedAwards, ...(e.revokedMilestones ?? []), ...(e.revokedMissions ?? [])];
    const own = revoked
      .filter((a) => a.awardedBy === e.referenceId)
      .reduce((s, a) => addAmounts(s, a.points), e.actionPoints);
    const out: BoardChange[] = own > 0 ? [{ kind: 'remove', ref, ts: e.timestamp, points: own }] : [];
    for (const a of revoked)
      if (a.awardedBy !== e.referenceId && a.points > 0)
        out.push({ kind: 'reduce', ref: a.awardedBy, ts: a.awardedAt, points: a.points });
    return out;
  }
  if (event.type === 'PlayerRecomputed') {
    // An action's contribution as decided again: the old one leaves, the new one comes in.
    if (board.action !== null) return [];
    return event.data.scores.flatMap((s): BoardChange[] => [
      ...(s.before > 0 ? [{ kind: 'remove' as const, ref: s.ref, ts: s.ts, points: s.before }] : []),
      ...(s.after > 0 ? [{ kind: 'add' as const, ref: s.ref, ts: s.ts, points: s.after }] : []),
    ]);
  }
  if (event.type === 'PlayerAdjusted') {
    // Signed: points taken back count against the period's score, which leaves the standings at 0 or below.
    const e = event.data;
    return board.action === null && e.points !== 0
      ? [{ kind: 'add', ref: e.adjustmentUid, ts: e.adjustedAt, points: e.points }]
      : [];
  }
  if (event.type === 'LeagueFinished') {
    // A league prize's points count on points boards when settled, as a chest's do.
    const e = event.data;
    return board.action === null && e.effects.points > 0
      ? [{ kind: 'add', ref: `league-${e.leagueUid}-${e.period.start}`, ts: e.settledAt, points: e.effects.points }]
      : [];
  }
  if (event.type === 'LeaderboardSeasonFinished') {
    // A season prize's points count on points boards when settled (in the season then running), as a league prize's do.
    const e = event.data;
    return board.action === null && e.effects.points > 0
      ? [{ kind: 'add', ref: `season-${e.leaderboardUid}-${e.season}`, ts: e.settledAt, points: e.effects.points }]
      : [];
  }
  const e = event.data;
  return board.action === null && e.effects.points > 0
    ? [{ kind: 'add', ref: e.openingUid, ts: e.openedAt, points: e.effects.points }]
    : [];
}
