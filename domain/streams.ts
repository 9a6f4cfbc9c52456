import { createHash } from 'node:crypto';

/**
 * The streams of the event log, named here because both sides read them: the command side
 * decides on them, the read side and the audit trace read them back.
 *
 * - `player-<playerId>`: everything a player owns and has earned; part of every player command's
 *   append, so it serialises that player's commands.
 * - `reference-<referenceId>`: the global record of an action's referenceId, written in the same
 *   append as the ActionProcessed, expected not to exist: a second one is the duplicate (2601).
 * - `provision-<provisionUid>`: which player holds a provision, with its status, so the
 *   transaction endpoints find it from the uid alone.
 * - limited stocks shared by all players, one stream each: units taken and returned.
 * - `catalog`: the published catalog versions; `store-format`: the format of the stored events.
 * - `idempotency-<digest>`: the requests sent with one `Idempotency-Key` by one API key.
 */
export const playerStream = (playerId: string): string => `player-${playerId}`;
export const referenceStream = (referenceId: string): string => `reference-${referenceId}`;
export const provisionStream = (provisionUid: string): string => `provision-${provisionUid}`;
export const CATALOG_STREAM = 'catalog';
export const STORE_FORMAT_STREAM = 'store-format';
/** Every recompute's start and outcome. */
export const RECOMPUTE_STREAM = 'recompute';
/** Keys are scoped per API key name; the digest keeps any characters a client sends out of stream names. */
export const idempotencyStream = (keyName: string, idempotencyKey: string): string =>
  `idempotency-${createHash('sha256').update(`${keyName}\n${idempotencyKey}`).digest('hex')}`;

const PLAYER_PREFIX = 'player-';
/** The player of a player stream, or null for any other stream. */
export const playerIdOfStream = (stream: string): string | null =>
  stream.startsWith(PLAYER_PREFIX) ? stream.slice(PLAYER_PREFIX.length) : null;

/**
 * The share of `count` a stream belongs to: from the codes of its name's last two characters, which
 * for a player's stream are the last two hexadecimal digits of the id. The embedded store computes
 * the same in SQL (shared/adapters/event-store/sqlite.ts SHARE_OF), so a share is chosen before an
 * event is decoded; a replay split into shares (command-api/replay/) tells by it whose share a
 * stream is.
 */
export const shareOf = (stream: string, count: number): number =>
  (stream.charCodeAt(stream.length - 1) + 31 * stream.charCodeAt(stream.length - 2)) % count;

/**
 * A resource shared by all players and limited in number: activations of a limited trigger, the
 * stock of a limited bundle, a limited chest prize. A take is an event on the resource's stream
 * in the same append as the player event that uses it, at the revision the decision read, so
 * concurrent takes can never exceed the limit.
 */
export interface LimitedStock {
  /** The resource's stream is `<prefix>-<uid>`. */
  prefix: string;
  taken: 'TriggerActivationTaken' | 'BundleStockTaken' | 'ChestStockTaken';
  /** Chest prizes are never returned: an opening is final. */
  returned: 'TriggerActivationReturned' | 'BundleStockReturned' | null;
}

export const TRIGGER_ACTIVATIONS = {
  prefix: 'trigger-limit',
  taken: 'TriggerActivationTaken',
  returned: 'TriggerActivationReturned',
} as const satisfies LimitedStock;
export const BUNDLE_STOCK = {
  prefix: 'bundle-stock',
  taken: 'BundleStockTaken',
  returned: 'BundleStockReturned',
} as const satisfies LimitedStock;
/** One stock per limited chest pool entry; a draw of the entry takes one unit. */
export const CHEST_STOCK = {
  prefix: 'chest-stock',
  taken: 'ChestStockTaken',
  returned: null,
} as const satisfies LimitedStock;

/**
 * A league period's tier: its players in the order they entered (cohorts are read off that order)
 * and its settled cohorts. Written once per player and period, not on every action.
 */
export const leagueStream = (leagueUid: string, periodStart: number, tier: string): string =>
  `league-${leagueUid}/${periodStart}/${tier}`;

/** A leaderboard season's settlement: written once, when its prizes are settled (docs/catalog.md, "leaderboards"). */
export const seasonStream = (leaderboardUid: string, season: string): string =>
  `leaderboard-season-${leaderboardUid}/${season}`;

export const stockStream = (kind: LimitedStock, resourceUid: string): string => `${kind.prefix}-${resourceUid}`;

/** Every kind of stream, by the prefix of its name. */
export const STREAM_KINDS = [
  'player',
  'reference',
  'provision',
  'trigger-limit',
  'bundle-stock',
  'chest-stock',
  'catalog',
  'store-format',
  'league',
  'leaderboard-season',
  'idempotency',
] as const;
export type StreamKind = (typeof STREAM_KINDS)[number];

/** The kind of a stream (its name's prefix), or null for a stream the service did not write. */
export function streamKindOf(stream: string): StreamKind | null {
  return STREAM_KINDS.find((kind) => stream === kind || stream.startsWith(`${kind}-`)) ?? null;
}
