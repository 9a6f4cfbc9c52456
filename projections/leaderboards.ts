import type { CatalogPublished } from '../command-api/publish-catalog/publish';
import { addAmounts } from '../shared/amount';
import type { Leaderboard } from '../shared/catalog/schema';
import type { RecordedEvent } from '../shared/event-store/port';
import type { ActionProcessed, ActionReversed } from '../shared/events/player-events';
import type { ReadStore } from '../shared/read-store/port';
import { localIsoToEpochMs } from '../shared/time/local-time';
import { seasonPeriod } from '../shared/time/season';
import type { Projector } from './runner';

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

export interface ScoreDoc {
  _id: string;
  board: string;
  period: string;
  playerId: string;
  score: number;
  /** Contributions still in effect; the entry leaves the standings at 0. */
  count: number;
  /** Position of the event that last raised the score: the earlier reacher ranks first in a tie. */
  reachedAt: number;
  lastRef: string;
  previousReachedAt: number;
  [key: string]: unknown;
}

/** The period of a board an instant falls in, or null outside the board's dates. */
export function periodOf(board: BoardDoc, ts: number): string | null {
  if ((board.startMs !== null && ts < board.startMs) || (board.endMs !== null && ts > board.endMs)) return null;
  return board.type === 1 && board.season ? seasonPeriod(ts, board.season, board.timezone) : STANDARD_PERIOD;
}

const scoreId = (board: string, period: string, playerId: string) => `${board}|${period}|${playerId}`;

interface Contribution {
  ts: number;
  amount: number;
  /** +1 a new contribution, -1 a reversed one, 0 a correction of an existing one. */
  count: number;
  ref: string;
}

/**
 * Standings per board and period, from the decisions recorded in events: points earned (action,
 * badges, ranks, triggers; chest points) or the count of one action. A reversal subtracts what the
 * action and the awards it brought down had added, in the periods they were added to.
 */
export const leaderboardsProjector: Projector = {
  name: 'leaderboards',
  collections: Object.values(LEADERBOARD_COLLECTIONS),
  handles: new Set(['CatalogPublished', 'PlayerRegistered', 'ActionProcessed', 'ActionReversed', 'ChestOpened']),
  async apply(event, store) {
    switch (event.type) {
      case 'CatalogPublished':
        return publishBoards(event.data as CatalogPublished, store);
      case 'PlayerRegistered': {
        const d = event.data as { playerId: string; username: string; imageName: string | null };
        await store.collection(LEADERBOARD_COLLECTIONS.players).replaceOne({ _id: d.playerId }, { _id: d.playerId, username: d.username, imageName: d.imageName }, { upsert: true });
        return;
      }
      default:
        return applyContributions(event, store);
    }
  },
};

async function publishBoards(published: CatalogPublished, store: ReadStore): Promise<void> {
  const tz = published.catalog.settings.timezone;
  const boards: BoardDoc[] = published.catalog.leaderboards.map((l) => ({
    _id: l.uid,
    type: l.type,
    season: l.season,
    startMs: l.startDate ? localIsoToEpochMs(l.startDate, tz) : null,
    endMs: l.endDate ? localIsoToEpochMs(l.endDate, tz) : null,
    action: l.metric === 'points' ? null : l.metric.action,
    timezone: tz,
  }));
  await store.collection(LEADERBOARD_COLLECTIONS.boards).bulkWrite([
    { deleteMany: { filter: { _id: { $nin: boards.map((b) => b._id) } } } },
    ...boards.map((b) => ({ replaceOne: { filter: { _id: b._id }, replacement: b, upsert: true } })),
  ]);
}

function contributionsOf(event: RecordedEvent, board: BoardDoc): Contribution[] {
  const ref = (event.data as { referenceId?: string }).referenceId ?? event.id;
  if (event.type === 'ActionProcessed') {
    const e = event.data as ActionProcessed;
    if (board.action !== null) return e.actionName === board.action ? [{ ts: e.timestamp, amount: 1, count: 1, ref }] : [];
    return e.result.earnedPoints !== 0 ? [{ ts: e.timestamp, amount: e.result.earnedPoints, count: 1, ref }] : [];
  }
  if (event.type === 'ActionReversed') {
    const e = event.data as ActionReversed;
    if (board.action !== null) return e.actionName === board.action ? [{ ts: e.timestamp, amount: -1, count: -1, ref }] : [];
    const own = e.revokedAwards.filter((a) => a.awardedBy === e.referenceId).reduce((s, a) => addAmounts(s, a.points), e.actionPoints);
    const out: Contribution[] = own !== 0 ? [{ ts: e.timestamp, amount: -own, count: -1, ref }] : [];
    for (const a of e.revokedAwards) if (a.awardedBy !== e.referenceId && a.points !== 0) out.push({ ts: a.awardedAt, amount: -a.points, count: 0, ref: a.awardedBy });
    return out;
  }
  if (event.type === 'ChestOpened' && board.action === null) {
    const e = event.data as { openedAt: number; effects: { points: number } };
    return e.effects.points !== 0 ? [{ ts: e.openedAt, amount: e.effects.points, count: 1, ref }] : [];
  }
  return [];
}

async function applyContributions(event: RecordedEvent, store: ReadStore): Promise<void> {
  const playerId = (event.data as { playerId: string }).playerId;
  const boards = await store.collection<BoardDoc>(LEADERBOARD_COLLECTIONS.boards).find({});
  const scores = store.collection<ScoreDoc>(LEADERBOARD_COLLECTIONS.scores);
  for (const board of boards) {
    for (const c of contributionsOf(event, board)) {
      const period = periodOf(board, c.ts);
      if (period === null) continue;
      const id = scoreId(board._id, period, playerId);
      const current = await scores.findOne({ _id: id });
      const score = addAmounts(current?.score ?? 0, c.amount);
      const count = (current?.count ?? 0) + c.count;
      if (count <= 0) {
        await scores.deleteMany({ _id: id });
        continue;
      }
      const raised = c.amount > 0;
      // Undoing the latest contribution restores when the score was reached before it.
      const reachedAt = raised ? event.position : current && c.ref === current.lastRef ? current.previousReachedAt : current?.reachedAt ?? event.position;
      await scores.replaceOne(
        { _id: id },
        {
          _id: id,
          board: board._id,
          period,
          playerId,
          score,
          count,
          reachedAt,
          lastRef: raised ? c.ref : current?.lastRef ?? c.ref,
          previousReachedAt: raised ? current?.reachedAt ?? event.position : current?.previousReachedAt ?? event.position,
        },
        { upsert: true },
      );
    }
  }
}
