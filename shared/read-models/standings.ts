/**
 * The standings of a board period in their order, as the leaderboard routes read them: a page, a
 * player's standing and place, how many score higher. One port with two implementations, so the
 * ranking is written once (read-api/admin/routes.ts): the score documents' own index where the
 * store counts a range in O(log n) (the embedded store, ordered-index.ts), and a Redis sorted set
 * kept beside MongoDB's documents, where a count or a skip walks the range
 * (shared/read-models/standings-redis.ts).
 *
 * The order: the higher score first; in a tie the earlier reacher (reachedAt, the position of the
 * latest live contribution); then the owner's id, in JavaScript's string order (UTF-16 code
 * units), for the rare exact tie of an aggregate board (one event adding to two of its values).
 */
import type { Collection } from '../adapters/read-store/port';
import { countedScore, type ScoreDoc } from './leaderboards';

/** One standing: the player, or on an aggregate board the scope value, and the score. */
export interface Standing {
  owner: string;
  score: number;
}

/** Standings of one board and period key (with its scope, scopedPeriod). */
export interface StandingsKey {
  board: string;
  period: string;
}

export interface RankIndex {
  /** The standings at positions [start, start + count) of the order. */
  slice(key: StandingsKey, start: number, count: number): Promise<Standing[]>;
  /** How many standings score higher than `score`: a standing's rank is one more. */
  above(key: StandingsKey, score: number): Promise<number>;
  /** The owner's standing and its position in the order; null when the owner has none. */
  find(key: StandingsKey, owner: string): Promise<{ standing: Standing; position: number } | null>;
}

/** The order of the standings, as the score documents' index sorts them (projections/leaderboards.ts). */
export const STANDINGS_ORDER = { score: -1, reachedAt: 1, playerId: 1 } as const;

export const scoreId = (board: string, period: string, owner: string): string => `${board}|${period}|${owner}`;

/**
 * A collection that keeps its standings in an index of its own (standings-redis.ts): the routes
 * read them there rather than through the collection's queries.
 */
export interface RankedCollection extends Collection<ScoreDoc> {
  readonly ranks: RankIndex;
}

/** The rank index the routes read a score collection's standings through. */
export function rankIndexOf(scores: Collection<ScoreDoc>): RankIndex {
  return 'ranks' in scores ? (scores as RankedCollection).ranks : new IndexedStandings(scores);
}

/**
 * The standings as ranges of the score documents' index (board, period, inStandings, score,
 * reachedAt, playerId): each answer is a count or a page of one range.
 */
export class IndexedStandings implements RankIndex {
  constructor(private readonly scores: Collection<ScoreDoc>) {}

  async slice(key: StandingsKey, start: number, count: number): Promise<Standing[]> {
    const docs = await this.scores.find(inStandings(key), { sort: STANDINGS_ORDER, skip: start, limit: count });
    return docs.map((doc) => ({ owner: doc.playerId, score: doc.score }));
  }

  above(key: StandingsKey, score: number): Promise<number> {
    return this.scores.countDocuments({ ...inStandings(key), score: { $gt: score } });
  }

  async find(key: StandingsKey, owner: string): Promise<{ standing: Standing; position: number } | null> {
    const doc = await this.scores.findOne({ _id: scoreId(key.board, key.period, owner) });
    const score = countedScore(doc);
    if (doc === null || score === null) return null;
    const tied = { ...inStandings(key), score };
    // Ahead: every higher score, the ties reached earlier, and those reached at once with a lower id.
    const [higher, earlier, atOnce] = await Promise.all([
      this.above(key, score),
      this.scores.countDocuments({ ...tied, reachedAt: { $lt: doc.reachedAt } }),
      this.scores.countDocuments({ ...tied, reachedAt: doc.reachedAt, playerId: { $lt: owner } }),
    ]);
    return { standing: { owner, score }, position: higher + earlier + atOnce };
  }
}

const inStandings = ({ board, period }: StandingsKey) => ({ board, period, inStandings: true });
