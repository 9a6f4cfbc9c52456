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
  /**
   * Position of the last event applied to the document: an event at or before it is a
   * redelivery (after a restart from an older checkpoint) and is skipped.
   */
  appliedAt: number;
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
 *
 * Idempotent under redelivery (the runner may replay events the read models already hold): a
 * score document records the position of the last event applied to it and skips events at or
 * before it. A document that is missing (its count fell to 0) has no such record, so redelivered
 * events rebuild it from nothing; that converges to missing again: from nothing the count stays at
 * most the count the document had after each event, so the event that took that to 0 takes the
 * rebuilt one to 0 too. Replaying events against the boards of a later catalog would not be
 * idempotent, hence `checkpointAround` CatalogPublished: a redelivery never starts before the
 * latest catalog applied.
 */
export const leaderboardsProjector: Projector = {
  name: 'leaderboards',
  collections: Object.values(LEADERBOARD_COLLECTIONS),
  handles: new Set(['CatalogPublished', 'PlayerRegistered', 'ActionProcessed', 'ActionReversed', 'ChestOpened']),
  checkpointAround: new Set(['CatalogPublished']),
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
  reset(store) {
    boardsByStore.delete(store);
  },
};

/**
 * The boards of each read store, as its lb_boards collection holds them: read once, then replaced
 * by publishBoards, the only writer (the runner calls `reset` when it drops the collection). Keyed
 * by the store object, so a fresh store (a rebuild, a verification) starts from its own.
 */
const boardsByStore = new WeakMap<ReadStore, readonly BoardDoc[]>();

async function boardsOf(store: ReadStore): Promise<readonly BoardDoc[]> {
  let boards = boardsByStore.get(store);
  if (!boards) {
    boards = await store.collection<BoardDoc>(LEADERBOARD_COLLECTIONS.boards).find({});
    boardsByStore.set(store, boards);
  }
  return boards;
}

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
  boardsByStore.delete(store);
  const collection = store.collection<BoardDoc>(LEADERBOARD_COLLECTIONS.boards);
  await collection.bulkWrite([
    { deleteMany: { filter: { _id: { $nin: boards.map((b) => b._id) } } } },
    ...boards.map((b) => ({ replaceOne: { filter: { _id: b._id }, replacement: b, upsert: true } })),
  ]);
  // Read back rather than kept as built: the store's order (new boards after the kept ones) is
  // the order scores are written in, as when every event read the boards.
  boardsByStore.set(store, await collection.find({}));
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

interface Pending {
  board: string;
  period: string;
  contributions: Contribution[];
}

async function applyContributions(event: RecordedEvent, store: ReadStore): Promise<void> {
  const playerId = (event.data as { playerId: string }).playerId;
  // An event's contributions by score document, each document in the order first reached. Only
  // a reversal gives one document several (its own and earlier awards' in one period), and none
  // of those raises the count, so a document is never deleted then created again by one event.
  const byDocument = new Map<string, Pending>();
  for (const board of await boardsOf(store)) {
    for (const c of contributionsOf(event, board)) {
      const period = periodOf(board, c.ts);
      if (period === null) continue;
      const id = scoreId(board._id, period, playerId);
      const pending = byDocument.get(id);
      if (pending) pending.contributions.push(c);
      else byDocument.set(id, { board: board._id, period, contributions: [c] });
    }
  }
  if (byDocument.size === 0) return;
  const scores = store.collection<ScoreDoc>(LEADERBOARD_COLLECTIONS.scores);
  for (const [id, { board, period, contributions }] of byDocument) {
    const stored = await scores.findOne({ _id: id });
    if (stored && event.position <= (stored.appliedAt ?? 0)) continue;
    let current: ScoreDoc | null = stored;
    for (const c of contributions) current = contribute(current, c, { id, board, period, playerId, position: event.position });
    if (current) await scores.replaceOne({ _id: id }, current, { upsert: true });
    else if (stored) await scores.deleteMany({ _id: id });
  }
}

/** A score document after one contribution; null when its count falls to 0 (it leaves the standings). */
function contribute(current: ScoreDoc | null, c: Contribution, at: { id: string; board: string; period: string; playerId: string; position: number }): ScoreDoc | null {
  const score = addAmounts(current?.score ?? 0, c.amount);
  const count = (current?.count ?? 0) + c.count;
  if (count <= 0) return null;
  const raised = c.amount > 0;
  // Undoing the latest contribution restores when the score was reached before it.
  const reachedAt = raised ? at.position : current && c.ref === current.lastRef ? current.previousReachedAt : current?.reachedAt ?? at.position;
  return {
    _id: at.id,
    board: at.board,
    period: at.period,
    playerId: at.playerId,
    score,
    count,
    reachedAt,
    lastRef: raised ? c.ref : current?.lastRef ?? c.ref,
    previousReachedAt: raised ? current?.reachedAt ?? at.position : current?.previousReachedAt ?? at.position,
    appliedAt: at.position,
  };
}
