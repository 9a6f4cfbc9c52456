/**
 * What a replay under a draft reports: what would differ had the draft always been in force. The
 * engine's own type: the routes that answer it (POST /v1/audit/simulate, a recompute's status)
 * send it as the wire's Simulation (shared/adapters/http/wire-shapes.ts), which tsc checks it fits
 * where they hand it over (app/simulate-shares.ts, command-api/recompute/route.ts).
 */
export interface SimulationReport {
  /** Events of the players' streams replayed. */
  eventsReplayed: number;
  /** ActionProcessed events decided again under the draft. */
  actionsRedecided: number;
  /** Players whose points, level, badges or balances differ. */
  playersAffected: number;
  totals: ReportTotals;
  /** The affected players only, largest change in points first, at most `top`. */
  players: PlayerChange[];
  /** Each all-time board of the draft: its leaders as the boards in force scored the log, and under the draft. */
  boards: { leaderboardUid: string; before: RankedLeader[]; after: RankedLeader[] }[];
  /** Recorded facts the draft makes impossible, and recorded actions it refuses: the first 1,000, then one line saying how many more. */
  problems: ReplayProblem[];
  /** Each experiment of the draft, per variant its players' totals (absent when the draft has none). */
  experiments?: ExperimentTotals[];
}

export interface ReportTotals {
  pointsBefore: number;
  pointsAfter: number;
  badgesGained: number;
  badgesLost: number;
  /** Players whose level differs. */
  levelsChanged: number;
}

/** An affected player, as recorded and as replayed. */
export interface PlayerChange {
  playerId: string;
  pointsBefore: number;
  pointsAfter: number;
  /** The highest level number reached; null for none. */
  levelBefore: number | null;
  levelAfter: number | null;
  /** Badge uids; a rank counts as its badge. */
  badgesGained: string[];
  badgesLost: string[];
  /** Only the deliverables whose balance differs. */
  balances: { deliverableUid: string; before: number; after: number }[];
}

/** A board's leader, tied scores sharing a rank (1, 2, 2, 4). */
export interface RankedLeader {
  rank: number;
  userId: string;
  points: number;
}

/** A recorded event the draft would not have decided so, at its position in the log. */
export interface ReplayProblem {
  position: number;
  playerId: string;
  type: string;
  message: string;
}

export interface ExperimentTotals {
  uid: string;
  variants: VariantTotals[];
}

/** A variant's players under the draft (one who joined keeps their variant), and their totals before and after. */
export interface VariantTotals extends ReportTotals {
  uid: string;
  players: number;
}
