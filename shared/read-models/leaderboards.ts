/**
 * The leaderboards read model: board definitions, one score document per board, period and
 * player, and the players' display names. Written by the leaderboards projector, read by the
 * leaderboard routes.
 */
import type { Leaderboard } from '../catalog/schema';
import { seasonPeriod } from '../time/season';

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

