/** The leaderboards projector: standings per board and period, from the points and action counts events record. */
import { addAmounts, subtractAmounts } from '../domain/amount';
import { operatorEventOf, playerEventOf, type Recorded } from '../domain/events';
import { catalogPutInForce } from '../domain/catalog/versions';
import type { Catalog } from '../domain/catalog/schema';
import { mutableCopy } from '../domain/deep-readonly';
import {
  boardChanges,
  boardsOfCatalog,
  isScoring,
  LEADERBOARD_COLLECTIONS,
  periodOf,
  scopedPeriod,
  type BoardChange,
  type BoardDoc,
  type LiveContribution,
  type ScoreDoc,
  type ScoringEvent,
} from '../shared/read-models/leaderboards';
import { scoreId } from '../shared/read-models/standings';
import type { ReadStore } from '../shared/adapters/read-store/port';
import { CATALOG_STREAM, playerStream } from '../domain/streams';
import type { LogReader, Projector } from './projector';

/**
 * Live contributions a score document keeps one by one: the latest, so that a reversal of one of
 * them gives the exact new tie-break (the position of the latest live contribution left). Older
 * ones are kept as their total only, so a document stays small however long the period. Should
 * reversals take out every kept one while older ones are left, the document is counted again
 * from the player's stream (see recount): the answer stays exact, at the cost of one read.
 */
export const LATEST_KEPT = 16;

/** A score document's live contributions: the latest one by one (oldest first), the older as their total. */
interface Tally {
  latest: LiveContribution[];
  earlier: number;
}

/**
 * Standings per board and period, from the decisions recorded in events: points earned (action,
 * badges, ranks, triggers; chest points) or the count of one action. A score is the sum of the
 * player's live contributions; in a tie, the player whose latest live contribution came first in
 * the log ranks first. A reversal takes out the reversed action's contribution and the points of
 * later awards it brought down, in the periods they were added to, so the standings, ties
 * included, are those of a history without the reversed action.
 *
 * The store keeps the score documents ordered by board, period, standing, score and tie-break
 * (the index below): a page of the standings, a player's rank and their neighbours are read from
 * that order without reading the players ahead.
 *
 * Idempotent under redelivery (the runner may replay events the read models already hold, and a
 * crash may come between two writes of one event): a score document records the position of the
 * last event applied to it and skips events up to it, and an event writes each document once. A
 * document left without live contributions stays, out of the standings, to keep that record.
 * Replaying events against the boards of a later catalog would not be idempotent, hence
 * `checkpointAround` CatalogPublished and CatalogVersionInForce: a redelivery never starts before the latest catalog applied.
 */
export const leaderboardsProjector: Projector = {
  name: 'leaderboards',
  collections: Object.values(LEADERBOARD_COLLECTIONS),
  // How many players held each score, from which ranks were summed before the index gave them.
  retiredCollections: ['lb_score_counts'],
  // Standings of a board and period in their order (STANDINGS_ORDER: best first, earlier reacher
  // first in a tie, then by owner); a player's rank, the number of standings with a higher score
  // in the same board and period, plus one (shared/read-models/standings.ts).
  indexes: [
    {
      collection: LEADERBOARD_COLLECTIONS.scores,
      keys: { board: 1, period: 1, inStandings: 1, score: -1, reachedAt: 1, playerId: 1 },
    },
    // A player's standings in every board and period, which an erasure deletes: not a scan of them all.
    { collection: LEADERBOARD_COLLECTIONS.scores, keys: { playerId: 1 } },
  ],
  handles: new Set([
    'CatalogPublished',
    'CatalogVersionInForce',
    'PlayerRegistered',
    'PlayerUpdated',
    'PlayerErased',
    'ActionProcessed',
    'ActionReversed',
    'ChestOpened',
    'PlayerAdjusted',
    'PlayerRecomputed',
    'LeagueFinished',
    'LeaderboardSeasonFinished',
  ]),
  checkpointAround: new Set(['CatalogPublished', 'CatalogVersionInForce']),
  async apply(event, store, log) {
    switch (event.type) {
      case 'CatalogPublished':
      case 'CatalogVersionInForce': {
        // A version scheduled later changes the boards when it comes into force (its CatalogVersionInForce).
        const inForce = catalogPutInForce(event);
        return inForce ? publishBoards(mutableCopy<Catalog>(inForce.catalog), store) : undefined;
      }
      case 'PlayerRegistered':
      case 'PlayerUpdated': {
        const d = event.data;
        await store
          .collection(LEADERBOARD_COLLECTIONS.players)
          .replaceOne(
            { _id: d.playerId },
            { _id: d.playerId, username: d.username, imageName: d.imageName },
            { upsert: true },
          );
        return;
      }
      case 'PlayerErased': {
        // The boards rank as if the player were gone; a scope's aggregate total keeps their amounts.
        const { playerId } = event.data;
        await store.collection(LEADERBOARD_COLLECTIONS.players).deleteMany({ _id: playerId });
        await store.collection(LEADERBOARD_COLLECTIONS.scores).deleteMany({ playerId });
        return;
      }
      case 'ActionProcessed':
      case 'ActionReversed':
      case 'ChestOpened':
      case 'PlayerAdjusted':
      case 'PlayerRecomputed':
      case 'LeagueFinished':
      case 'LeaderboardSeasonFinished':
        return applyContributions(event, store, log);
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

async function publishBoards(catalog: Catalog, store: ReadStore): Promise<void> {
  const boards = boardsOfCatalog(catalog);
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

/** A change applied to a tally; `position` is the event's. `keep` bounds the contributions kept one by one. */
function applyChange(tally: Tally, change: BoardChange, position: number, keep: number): void {
  const { latest } = tally;
  if (change.kind === 'add') {
    latest.push([change.ref, position, change.points]);
    if (latest.length > keep) tally.earlier = addAmounts(tally.earlier, latest.shift()![2]);
    return;
  }
  const index = latest.findIndex(([ref]) => ref === change.ref);
  if (index >= 0) {
    const [ref, at, points] = latest[index];
    const left = change.kind === 'remove' ? 0 : subtractAmounts(points, change.points);
    if (left > 0) latest[index] = [ref, at, left];
    else latest.splice(index, 1);
  } else {
    // An older contribution, known by its share of the total only.
    tally.earlier = Math.max(0, subtractAmounts(tally.earlier, change.points));
  }
}

interface Pending {
  board: string;
  period: string;
  /** The player, or on an aggregate board the scope value. */
  owner: string;
  aggregate: boolean;
  changes: BoardChange[];
}

type Attributes = Readonly<Record<string, string>>;

/**
 * The attributes each contribution of an event was recorded with, by its ref: an action or
 * opening carries its own; a reversal's changes are those of earlier actions, whose events are
 * read from the player's stream (only when some board is scoped, and reversals are rare).
 */
function attributesOfRefs(
  event: Recorded<ScoringEvent>,
  log: LogReader,
): (ref: string) => Promise<Attributes | undefined> {
  if (event.type === 'PlayerRecomputed') {
    const byRef = new Map(event.data.scores.map((s) => [s.ref, s.attributes]));
    return async (ref) => byRef.get(ref);
  }
  if (event.type !== 'ActionReversed') return async () => event.data.attributes;
  let byRef: Promise<Map<string, Attributes | undefined>> | null = null;
  return async (ref) => {
    byRef ??= log.readStream(playerStream(event.data.playerId)).then((recorded) => {
      const found = new Map<string, Attributes | undefined>();
      for (const r of recorded) {
        if (r.position >= event.position) break;
        const e = playerEventOf(r);
        if (e?.type === 'ActionProcessed') found.set(e.data.referenceId, e.data.attributes);
      }
      return found;
    });
    return (await byRef).get(ref);
  };
}

/**
 * Where a change counts: the period key and owner of its score document. A scoped board counts it
 * under the value the contribution was recorded with (none: on no standings of the board); an
 * aggregate board counts it for the value itself, the player's contribution told apart by playerId.
 */
function placeOf(
  board: BoardDoc,
  c: BoardChange,
  playerId: string,
  attributes: Attributes | undefined,
): { period: string; owner: string; change: BoardChange } | null {
  const period = periodOf(board, c.ts);
  if (period === null) return null;
  if (!board.scope) return { period, owner: playerId, change: c };
  const value = attributes?.[board.scope];
  if (value === undefined) return null;
  if (board.aggregate) return { period, owner: value, change: { ...c, ref: `${playerId}|${c.ref}` } };
  return { period: scopedPeriod(period, value), owner: playerId, change: c };
}

async function applyContributions(event: Recorded<ScoringEvent>, store: ReadStore, log: LogReader): Promise<void> {
  const playerId = event.data.playerId;
  const attributesOf = attributesOfRefs(event, log);
  // An event's changes by score document, each document in the order first reached. Only a
  // reversal gives one document several (its own and earlier awards' in one period).
  const byDocument = new Map<string, Pending>();
  for (const board of await boardsOf(store)) {
    for (const c of boardChanges(event, board)) {
      const place = placeOf(board, c, playerId, board.scope ? await attributesOf(c.ref) : undefined);
      if (place === null) continue;
      const id = scoreId(board._id, place.period, place.owner);
      const pending = byDocument.get(id);
      if (pending) pending.changes.push(place.change);
      else
        byDocument.set(id, {
          board: board._id,
          period: place.period,
          owner: place.owner,
          aggregate: !!board.aggregate,
          changes: [place.change],
        });
    }
  }
  if (byDocument.size === 0) return;
  const scores = store.collection<ScoreDoc>(LEADERBOARD_COLLECTIONS.scores);
  for (const [id, { board, period, owner, aggregate, changes }] of byDocument) {
    const stored = await scores.findOne({ _id: id });
    if (stored && event.position <= stored.appliedAt) continue;
    // A copy: the stored document is not to be changed (the runner's batch hands out its own).
    let tally: Tally = stored?.inStandings
      ? { latest: [...stored.latest], earlier: stored.earlier }
      : { latest: [], earlier: 0 };
    for (const c of changes) applyChange(tally, c, event.position, LATEST_KEPT);
    // A value's total spans many players' streams: rather than count it again, it keeps its older
    // total and the tie-break of the latest contribution it knew (the score stays exact).
    if (tally.latest.length === 0 && tally.earlier > 0 && !aggregate)
      tally = await recount(log, { board, period, playerId }, event.position);
    // Never in the standings and still out of them: nothing to record.
    if (!stored && tally.latest.length === 0) continue;
    await scores.replaceOne(
      { _id: id },
      documentOf(
        { id, board, period, playerId: owner },
        tally,
        event.position,
        aggregate ? (stored?.reachedAt ?? 0) : 0,
      ),
      { upsert: true },
    );
  }
}

/** A score document from its tally; without live contributions (and no older total) it is out of the standings. */
function documentOf(
  at: { id: string; board: string; period: string; playerId: string },
  tally: Tally,
  position: number,
  reachedBefore: number,
): ScoreDoc {
  const score = tally.latest.reduce((sum, [, , points]) => addAmounts(sum, points), tally.earlier);
  // An adjustment that took back more than the period counts leaves the player out (and the next event starts again from 0).
  const inStandings = score > 0;
  const reachedAt =
    tally.latest.length > 0 ? tally.latest[tally.latest.length - 1][1] : inStandings ? reachedBefore : 0;
  return {
    _id: at.id,
    board: at.board,
    period: at.period,
    playerId: at.playerId,
    score,
    inStandings,
    reachedAt,
    latest: tally.latest,
    earlier: tally.earlier,
    appliedAt: position,
  };
}

/**
 * A score document counted from the player's stream, up to and including `upTo`: each scoring
 * event against the boards of the catalog published before it, as they were when it was first
 * applied. For the rare reversal that takes out every contribution a document keeps one by one.
 */
async function recount(
  log: LogReader,
  doc: { board: string; period: string; playerId: string },
  upTo: number,
): Promise<Tally> {
  const catalogs = (await log.readStream(CATALOG_STREAM)).flatMap((recorded) => {
    const e = operatorEventOf(recorded);
    const inForce = e && catalogPutInForce(e);
    return inForce && e.position < upTo
      ? [
          {
            position: e.position,
            board: boardsOfCatalog(mutableCopy<Catalog>(inForce.catalog)).find((b) => b._id === doc.board),
          },
        ]
      : [];
  });
  const tally: Tally = { latest: [], earlier: 0 };
  // The attributes each action was recorded with, for a reversal's changes on a scoped board.
  const attributesByRef = new Map<string, Readonly<Record<string, string>> | undefined>();
  for (const recorded of await log.readStream(playerStream(doc.playerId))) {
    if (recorded.position > upTo) break;
    const event = playerEventOf(recorded);
    if (!event || !isScoring(event)) continue;
    if (event.type === 'ActionProcessed') attributesByRef.set(event.data.referenceId, event.data.attributes);
    const board = catalogs.filter((c) => c.position < event.position).pop()?.board;
    if (!board) continue;
    for (const c of boardChanges(event, board)) {
      const place = placeOf(
        board,
        c,
        doc.playerId,
        event.type === 'ActionReversed'
          ? attributesByRef.get(c.ref)
          : event.type === 'PlayerRecomputed'
            ? event.data.scores.find((s) => s.ref === c.ref)?.attributes
            : event.data.attributes,
      );
      if (place?.period === doc.period) applyChange(tally, place.change, event.position, Infinity);
    }
  }
  const older = tally.latest.splice(0, Math.max(0, tally.latest.length - LATEST_KEPT));
  return { latest: tally.latest, earlier: older.reduce((sum, [, , points]) => addAmounts(sum, points), 0) };
}
