/**
 * Every event type the service writes, by stream kind, with its zod schema. The unions below are
 * derived from the schemas, so a decider and `evolve` switch on `type` and get `data` typed, with
 * no cast. Events are read as written: should a shape ever change incompatibly, it gets a new
 * type name (`...V2`) and an upcaster in `playerEventOf` turns the old type into the new one
 * on read; the stored history is never rewritten.
 */
import type { z } from 'zod';
import type { RecordedEvent } from './recorded';
import { idempotentRequestSchema, idempotentRequestStartedSchema } from './idempotency-events';
import {
  chestOpenedSchema,
  currencyExpiredSchema,
  powerupActivatedSchema,
  powerupDeactivatedSchema,
  powerupExpiredSchema,
} from './inventory-events';
import {
  catalogPublishedSchema,
  catalogVersionInForceSchema,
  recomputeCompletedSchema,
  recomputeFailedSchema,
  recomputeStartedSchema,
  storeFormatDeclaredSchema,
} from './operator-events';
import {
  actionProcessedSchema,
  actionReversedSchema,
  playerAdjustedSchema,
  experimentJoinedSchema,
  playerErasedSchema,
  playerRecomputedSchema,
  playerRegisteredSchema,
  playerUpdatedSchema,
} from './player-events';
import {
  bundlePurchasedSchema,
  provisionCompletedSchema,
  provisionFailedSchema,
  provisionOpenedSchema,
  provisionRefundedSchema,
  provisionStatusChangedSchema,
} from './provision-events';
import { leagueEndingSchema, missionEndingSchema, playerInactiveSchema, streakAtRiskSchema } from './moment-events';
import { referenceRecordedSchema, referenceReversedSchema } from './reference-events';
import { stockUnitsSchema } from './stock-events';
import { leagueCohortSettledSchema, leagueEnteredSchema, leagueFinishedSchema } from './league-events';
import { leaderboardSeasonFinishedSchema, leaderboardSeasonSettledSchema } from './season-events';

/** The events of a player's stream: each carries the `effects` it has on the player's holdings. */
export const PLAYER_EVENTS = {
  PlayerRegistered: playerRegisteredSchema,
  PlayerUpdated: playerUpdatedSchema,
  ActionProcessed: actionProcessedSchema,
  ActionReversed: actionReversedSchema,
  BundlePurchased: bundlePurchasedSchema,
  ProvisionCompleted: provisionCompletedSchema,
  ProvisionFailed: provisionFailedSchema,
  ProvisionRefunded: provisionRefundedSchema,
  ChestOpened: chestOpenedSchema,
  PowerupActivated: powerupActivatedSchema,
  PowerupDeactivated: powerupDeactivatedSchema,
  PowerupExpired: powerupExpiredSchema,
  CurrencyExpired: currencyExpiredSchema,
  PlayerRecomputed: playerRecomputedSchema,
  PlayerErased: playerErasedSchema,
  PlayerAdjusted: playerAdjustedSchema,
  StreakAtRisk: streakAtRiskSchema,
  MissionEnding: missionEndingSchema,
  LeagueEnding: leagueEndingSchema,
  PlayerInactive: playerInactiveSchema,
  ExperimentJoined: experimentJoinedSchema,
  LeagueFinished: leagueFinishedSchema,
  LeaderboardSeasonFinished: leaderboardSeasonFinishedSchema,
} as const;

export const REFERENCE_EVENTS = {
  ReferenceRecorded: referenceRecordedSchema,
  ReferenceReversed: referenceReversedSchema,
} as const;
export const PROVISION_EVENTS = {
  ProvisionOpened: provisionOpenedSchema,
  ProvisionStatusChanged: provisionStatusChangedSchema,
} as const;
export const STOCK_EVENTS = {
  TriggerActivationTaken: stockUnitsSchema,
  TriggerActivationReturned: stockUnitsSchema,
  BundleStockTaken: stockUnitsSchema,
  BundleStockReturned: stockUnitsSchema,
  ChestStockTaken: stockUnitsSchema,
} as const;
export const OPERATOR_EVENTS = {
  CatalogPublished: catalogPublishedSchema,
  CatalogVersionInForce: catalogVersionInForceSchema,
  StoreFormatDeclared: storeFormatDeclaredSchema,
  RecomputeStarted: recomputeStartedSchema,
  RecomputeCompleted: recomputeCompletedSchema,
  RecomputeFailed: recomputeFailedSchema,
} as const;
/** The events of a league period's tier: who entered, in order, and which cohorts are settled. */
export const LEAGUE_EVENTS = {
  LeagueEntered: leagueEnteredSchema,
  LeagueCohortSettled: leagueCohortSettledSchema,
} as const;
/** The events of a leaderboard season's settlement stream: written once, when its prizes are settled. */
export const SEASON_EVENTS = {
  LeaderboardSeasonSettled: leaderboardSeasonSettledSchema,
} as const;
export const IDEMPOTENCY_EVENTS = {
  IdempotentRequestStarted: idempotentRequestStartedSchema,
  IdempotentRequestRecorded: idempotentRequestSchema,
} as const;

/** Every event type with its schema: what the log may hold. */
export const EVENT_SCHEMAS = {
  ...PLAYER_EVENTS,
  ...REFERENCE_EVENTS,
  ...PROVISION_EVENTS,
  ...STOCK_EVENTS,
  ...OPERATOR_EVENTS,
  ...LEAGUE_EVENTS,
  ...SEASON_EVENTS,
  ...IDEMPOTENCY_EVENTS,
} as const;

/** `{type, data}` for each schema of a registry. */
type EventsOf<Schemas extends Record<string, z.ZodType>> = {
  [Type in keyof Schemas & string]: { type: Type; data: z.infer<Schemas[Type]> };
}[keyof Schemas & string];

export type PlayerEvent = EventsOf<typeof PLAYER_EVENTS>;
export type ReferenceEvent = EventsOf<typeof REFERENCE_EVENTS>;
export type ProvisionStreamEvent = EventsOf<typeof PROVISION_EVENTS>;
export type StockEvent = EventsOf<typeof STOCK_EVENTS>;
export type OperatorEvent = EventsOf<typeof OPERATOR_EVENTS>;
export type IdempotencyEvent = EventsOf<typeof IDEMPOTENCY_EVENTS>;
export type LeagueEvent = EventsOf<typeof LEAGUE_EVENTS>;
export type SeasonEvent = EventsOf<typeof SEASON_EVENTS>;
export type DomainEvent = EventsOf<typeof EVENT_SCHEMAS>;
export type EventType = DomainEvent['type'];

/** An event as read back: its typed `{type, data}` and where it is in the log. */
export type Recorded<E extends { type: string; data: unknown }> = E & Omit<RecordedEvent, 'type' | 'data'>;

/**
 * Each registry's types, as a Set: a type read from the store is a fresh string, which a property
 * lookup must first find among the interned ones; a Set only hashes it (every event read asks).
 */
const typesOf = new Map<object, ReadonlySet<string>>(
  [
    PLAYER_EVENTS,
    REFERENCE_EVENTS,
    PROVISION_EVENTS,
    STOCK_EVENTS,
    OPERATOR_EVENTS,
    LEAGUE_EVENTS,
    SEASON_EVENTS,
    IDEMPOTENCY_EVENTS,
    EVENT_SCHEMAS,
  ].map((registry) => [registry, new Set(Object.keys(registry))]),
);
const has = (registry: object, type: string): boolean => typesOf.get(registry)!.has(type);

/**
 * A recorded event as the typed union of its stream kind, or null for a type of another kind.
 * The one place a stored event becomes typed: what was written was built from these types, and
 * an upcaster for an old type would go here.
 */
export const playerEventOf = (event: RecordedEvent): Recorded<PlayerEvent> | null =>
  has(PLAYER_EVENTS, event.type) ? (event as Recorded<PlayerEvent>) : null;
export const referenceEventOf = (event: RecordedEvent): Recorded<ReferenceEvent> | null =>
  has(REFERENCE_EVENTS, event.type) ? (event as Recorded<ReferenceEvent>) : null;
export const provisionEventOf = (event: RecordedEvent): Recorded<ProvisionStreamEvent> | null =>
  has(PROVISION_EVENTS, event.type) ? (event as Recorded<ProvisionStreamEvent>) : null;
export const stockEventOf = (event: RecordedEvent): Recorded<StockEvent> | null =>
  has(STOCK_EVENTS, event.type) ? (event as Recorded<StockEvent>) : null;
export const operatorEventOf = (event: RecordedEvent): Recorded<OperatorEvent> | null =>
  has(OPERATOR_EVENTS, event.type) ? (event as Recorded<OperatorEvent>) : null;
/** An event of the recompute stream, or null for another type. */
export const recomputeOfEvent = (
  event: RecordedEvent,
): Recorded<Extract<OperatorEvent, { type: 'RecomputeStarted' | 'RecomputeCompleted' | 'RecomputeFailed' }>> | null =>
  event.type === 'RecomputeStarted' || event.type === 'RecomputeCompleted' || event.type === 'RecomputeFailed'
    ? (event as Recorded<
        Extract<OperatorEvent, { type: 'RecomputeStarted' | 'RecomputeCompleted' | 'RecomputeFailed' }>
      >)
    : null;
export const leagueEventOf = (event: RecordedEvent): Recorded<LeagueEvent> | null =>
  has(LEAGUE_EVENTS, event.type) ? (event as Recorded<LeagueEvent>) : null;
export const seasonEventOf = (event: RecordedEvent): Recorded<SeasonEvent> | null =>
  has(SEASON_EVENTS, event.type) ? (event as Recorded<SeasonEvent>) : null;
export const idempotencyEventOf = (event: RecordedEvent): Recorded<IdempotencyEvent> | null =>
  has(IDEMPOTENCY_EVENTS, event.type) ? (event as Recorded<IdempotencyEvent>) : null;
/** Any event of the log as the union of all types, or null for a type this version does not know. */
export const domainEventOf = (event: RecordedEvent): Recorded<DomainEvent> | null =>
  has(EVENT_SCHEMAS, event.type) ? (event as Recorded<DomainEvent>) : null;
