/**
 * The API's named error codes: each refusal's code and message, written once. Deciders and
 * handlers refuse with `refuse(NAME)` (or `refuse(NAME, detail)`: the message, a colon, the
 * detail), routes document the codes they answer with `documented(NAME, ...)`. A code may
 * have several names where its messages differ (9021: not owned, already active, expired).
 */
import { fail, type Result } from './result';

export interface ErrorCode {
  readonly code: number;
  readonly message: string;
}

export const ERRORS = {
  // Pipeline and request
  /** A stream stayed contended through every retry of a decision; the request changed nothing. */
  TOO_MANY_CONCURRENT_CHANGES: { code: 503, message: 'Too many concurrent changes; retry later' },
  /** A duplicate of a request still running under the same Idempotency-Key waited too long for its answer. */
  REQUEST_IN_PROGRESS: {
    code: 503,
    message: 'A request with this Idempotency-Key is still in progress; retry with the same key later',
  },
  /**
   * A write the store could not confirm: it failed after it may have reached the store, and may
   * still commit (HTTP 503, but not "changed nothing"): a retry without the same key could do it twice.
   */
  OUTCOME_UNKNOWN: {
    code: 1004,
    message: 'The outcome is unknown: retry with the same Idempotency-Key, or read the state first',
  },
  KEY_REUSED: { code: 1003, message: 'Idempotency-Key was already used for a different request' },
  PAYLOAD_NULL: { code: 1001, message: 'Payload is null' },
  INVALID_PLAYER_ID: { code: 1002, message: 'Invalid player: playerId must be a UUID' },
  // Player tokens (X-Player-Token: a Client key reading one player's own views)
  PLAYER_TOKEN_INVALID: {
    code: 4005,
    message: 'Invalid player token: not one this service issued (POST /v1/players/token)',
  },
  PLAYER_TOKEN_EXPIRED: { code: 4006, message: 'Player token expired: ask the back end for a new one' },
  PLAYER_TOKEN_OTHER_PLAYER: {
    code: 4007,
    message: "Player token is for another player: a token reads only its own player's views",
  },
  // Players
  PLAYER_ALREADY_EXISTS: { code: 5002, message: 'PlayerId already exists' },
  PLAYER_DOES_NOT_EXIST: { code: 5003, message: 'PlayerId does not exist' },
  PLAYER_NOT_FOUND: { code: 9020, message: 'Player not found' },
  UNKNOWN_PLAYER: { code: 1002, message: 'Invalid player: no player with this playerId' },
  // Support adjustments
  UNKNOWN_DELIVERABLE: { code: 1001, message: 'Deliverable does not exist' },
  POWERUP_NOT_ADJUSTABLE: { code: 1001, message: 'A powerup cannot be taken back by an adjustment' },
  ADJUSTMENT_NOT_FOUND: { code: 9050, message: 'Adjustment not found for that player' },
  ADJUSTMENT_NEGATIVE_BALANCE: {
    code: 9011,
    message: "Adjustment would take the player's points or a balance below zero",
  },
  // Actions
  ACTION_NOT_FOUND: { code: 5001, message: 'Action not found' },
  ACTION_INACTIVE: { code: 5004, message: 'Action does not exist or is inactive' },
  DUPLICATE_ACTION: { code: 2601, message: 'Duplicate action' },
  INSUFFICIENT_FUNDS: { code: 9001, message: 'Insufficient funds' },
  NOT_REVERSIBLE: { code: 101, message: 'Action is not reversible' },
  // Store and transactions
  BUNDLE_NOT_FOUND: { code: 9008, message: 'Bundle does not exist' },
  BUNDLE_OUT_OF_STOCK: { code: 9009, message: 'Bundle out of stock' },
  TRANSACTION_NOT_FOUND: { code: 9004, message: 'Transaction does not exist' },
  TRANSACTION_COMPLETED: { code: 9002, message: 'Transaction already completed' },
  TRANSACTION_FAILED: { code: 9003, message: 'Transaction already failed' },
  TRANSACTION_REFUNDED: { code: 9010, message: 'Transaction already refunded' },
  REFUND_NOT_COMPLETED: { code: 9008, message: 'Only completed transactions can be refunded' },
  REFUND_NOT_STORE: { code: 9009, message: 'Only store transactions can be refunded' },
  REFUND_NEGATIVE_BALANCE: { code: 9011, message: 'Refund would make a balance negative' },
  // Chests
  CHEST_NOT_FOUND: { code: 9010, message: 'Chest not found' },
  CHEST_NOT_OWNED: { code: 9011, message: 'Player does not own this chest' },
  PRIZE_POOL_EXHAUSTED: { code: 9012, message: 'Limited prize pool exhausted' },
  // Powerups
  POWERUP_NOT_OWNED: { code: 9021, message: 'Powerup not found or not owned' },
  POWERUP_ALREADY_ACTIVE: { code: 9021, message: 'Powerup is already active' },
  POWERUP_EXPIRED: { code: 9021, message: 'Powerup is expired or used up' },
  POWERUP_NOT_OWNED_TO_DEACTIVATE: { code: 9023, message: 'Powerup not found or not owned' },
  POWERUP_NOT_ACTIVE: { code: 9023, message: 'Powerup is not active' },
  // Leaderboards
  LEADERBOARD_NOT_FOUND: { code: 9007, message: 'Leaderboard does not exist' },
  // Catalog views
  STREAK_NOT_FOUND: { code: 9014, message: 'Streak does not exist' },
  MISSION_NOT_FOUND: { code: 9015, message: 'Mission does not exist' },
  // Recompute
  RECOMPUTE_RUNNING: { code: 9030, message: 'A recompute is running' },
  RECOMPUTE_NOT_FOUND: { code: 9031, message: 'Recompute does not exist' },
  // Simulate
  SIMULATION_RUNNING: {
    code: 9032,
    message: 'A simulation is running: the service runs one at a time; retry once it has answered',
  },
  /** The detail says why: its heap passed SIMULATE_MAX_HEAP_MB, or the service stopped. */
  SIMULATION_STOPPED: { code: 9033, message: 'The simulation was stopped before its answer' },
  SIMULATION_NOT_FOUND: { code: 9036, message: 'No simulation has run' },
  // Verify
  VERIFICATION_RUNNING: {
    code: 9034,
    message:
      'A verification is running: the service runs one at a time; retry once it has ended (GET /v1/audit/verify says how far it got)',
  },
  VERIFICATION_NOT_FOUND: { code: 9035, message: 'No verification has run' },
  // Catalog versions
  /** The detail names the version the caller expected and the newest: read the versions again, then publish. */
  CATALOG_CHANGED: { code: 9040, message: 'Catalog changed since the version expected' },
  CATALOG_VERSION_NOT_FOUND: { code: 9041, message: 'Catalog version not found' },
  // Experiments
  EXPERIMENT_NOT_FOUND: { code: 9042, message: 'Experiment does not exist in the catalog in force' },
  // Leagues
  LEAGUE_NOT_FOUND: { code: 9043, message: 'League not found' },
} as const satisfies Record<string, ErrorCode>;

/** A refusal with a named code: its message, or its message and a detail after a colon. */
export const refuse = <T = never>(error: ErrorCode, detail?: string): Result<T> =>
  fail(error.code, detail === undefined ? error.message : `${error.message}: ${detail}`);

/** The route documentation of named codes: code to message. */
export const documented = (...errors: ErrorCode[]): Record<number, string> =>
  Object.fromEntries(errors.map((e) => [e.code, e.message]));
