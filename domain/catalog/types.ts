/**
 * The catalog as the rest of the code sees it: parsed from the catalog format (docs/catalog.md), validated, with
 * every default applied (absent optional lists are [], absent optional values null). Field names
 * are the format's. References hold the target's `uid`, except condition `action` and leaderboard
 * `metric.action`, which hold an action `identifier`.
 *
 * Invariants the validator guarantees beyond these types are noted on the fields.
 */
import type { Season } from '../time/season';

/** A local date-time `YYYY-MM-DDThh:mm:ss`, in `settings.timezone`. */
export type LocalIso = string;

export interface RateLimit {
  /** Requests per second per API key; 0 means unlimited. */
  perSecond: number;
  /** Bucket size: requests that may arrive at once. */
  burst: number;
}

export interface Settings {
  /** IANA zone of every catalog date and of season boundaries. */
  timezone: string;
  autoRegisterPlayers: boolean;
  pendingTimeoutSeconds: number;
  rateLimit: RateLimit;
}

/** Fields shared by catalog entries with a display label. */
export interface LabelledEntry {
  /** Given in the file, or generated (32 hex) from the entry's natural key: see schema.ts. */
  uid: string;
  label: string;
  description: string | null;
  imageName: string | null;
  isActive: boolean;
}

/** An inclusive range; `min <= max`. */
export interface NumberRange {
  min: number;
  max: number;
}

export type DeliverableType = 'Prize' | 'Content' | 'Notification';
export type PrizeKind = 'Currency' | 'Item' | 'Chest' | 'Powerup';

export interface DeliverableDetail {
  label: string;
  value: string;
}

export interface Deliverable extends LabelledEntry {
  type: DeliverableType;
  /** Prize only (default Item); null for Content and Notification. */
  kind: PrizeKind | null;
  isPercentage: boolean;
  details: DeliverableDetail[];
  /** Non-null exactly when kind is Chest. */
  chest: ChestConfig | null;
  /** Non-null exactly when kind is Powerup. */
  powerup: PowerupConfig | null;
  /** At most one per period: what processing actions may grant of it per period of the player's calendar. */
  earnCaps: EarnCap[];
  /** Currency only: when each amount granted expires, in the player's calendar; null: never. */
  expiry: CurrencyExpiry | null;
}

/** A lot expires at the player's midnight ending the `afterDays`th day after the grant's day, or at the end of the grant's Day, Week or Month. */
export type CurrencyExpiry = { afterDays: number; endOf: null } | { afterDays: null; endOf: CapPeriod };

/** A period of a player's calendar: a day, an ISO week (Monday first), a calendar month. */
export type CapPeriod = 'Day' | 'Week' | 'Month';

/** An action's cap: exactly one of `times` (actions counted) and `points` (its own points) is non-null. */
export interface ActionCap {
  period: CapPeriod;
  times: number | null;
  points: number | null;
}

export interface EarnCap {
  period: CapPeriod;
  amount: number;
}

export type ScalingMode = 'None' | 'PlayerLevel' | 'Custom';

/** The literal chest reward that grants points instead of a deliverable. */
export const POINTS_REWARD = 'points';

export interface ChestPoolEntry {
  /** A deliverable uid, or `points` (POINTS_REWARD). */
  reward: string;
  amount: NumberRange;
  /** Raw draw weight (`probability` in the preview). */
  weight: number;
  /** Global stock shared by all players; null = unlimited (0 = none left). */
  stock: number | null;
}

export interface ChestTier {
  minLevel: number;
  maxLevel: number;
  /** null: the chest's own drawCount. */
  drawCount: NumberRange | null;
  /** Non-empty, total weight > 0. */
  pool: ChestPoolEntry[];
}

export interface ChestScaling {
  minLevel: number;
  factor: number;
}

export interface ChestConfig {
  scalingMode: ScalingMode;
  startDate: LocalIso | null;
  endDate: LocalIso | null;
  /** Integers >= 1; default { min: 1, max: 1 }. */
  drawCount: NumberRange;
  /** None and Custom: non-empty, total weight > 0. PlayerLevel: empty. */
  pool: ChestPoolEntry[];
  /** PlayerLevel: non-empty, in catalog order (the first tier holding the level wins). Else empty. */
  tiers: ChestTier[];
  /** Custom: non-empty, minLevel strictly ascending. Else empty. */
  scaling: ChestScaling[];
}

export interface PowerupConfig {
  /** > 0 */
  multiplier: number;
  /** 0 = unlimited. */
  maxUseCount: number;
  /** Lifetime from the grant; > 0 unless neverExpires. */
  timeoutSeconds: number;
  neverExpires: boolean;
  /** Prize deliverable uids; empty = every Prize. */
  targetPrizes: string[];
}

export interface DeliverableGrant {
  deliverable: string;
  amount: number;
}

export interface TriggerDeliverableGrant extends DeliverableGrant {
  /** Draw weight when the trigger's randomizedPrize is true (then > 0); else null or ignored. */
  weight: number | null;
}

export type ActionObjectType = 'Number' | 'String' | 'Boolean' | 'Date' | 'Array';

export interface ActionObject {
  /** Unique within its action. */
  label: string;
  type: ActionObjectType;
}

export interface Action {
  /** Given, or generated from the identifier. */
  uid: string;
  /** The `name` sent to /v1/action/process; unique in the catalog. */
  identifier: string;
  imageName: string | null;
  isActive: boolean;
  points: number;
  /** Seconds. */
  pointGap: number;
  cost: number;
  /** A Prize deliverable uid; non-null when cost > 0. */
  costDeliverable: string | null;
  isUserAttribute: boolean;
  /** null when the file gives none. */
  createDate: LocalIso | null;
  actionObjects: ActionObject[];
  deliverables: DeliverableGrant[];
  /** At most one cap of a kind per period. */
  caps: ActionCap[];
}

export type BadgeType = 'OneTimeOnly' | 'Repeatable' | 'Ranked';

export const FILTER_OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'contains'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/**
 * A test on one action detail. Values are kept as strings (numbers and booleans in the file are
 * written out): filters compare as numbers when both sides parse as numbers.
 */
export type Filter =
  { name: string; op: Exclude<FilterOp, 'in'>; value: string } | { name: string; op: 'in'; value: string[] };

export interface SumChallenge {
  /** A Number actionObject of the condition's action. */
  field: string;
  atLeast: number;
}

export interface Between {
  start: LocalIso;
  /** After start. */
  end: LocalIso;
}

/** All non-null parts must hold; all null (no challenge) means one qualifying action suffices. */
export interface Challenge {
  times: number | null;
  sum: SumChallenge | null;
  withinDays: number | null;
  between: Between | null;
}

export interface Condition {
  /** An action identifier. */
  action: string;
  filters: Filter[];
  challenge: Challenge;
}

/** Fields badges and triggers share. */
interface BadgeLike extends LabelledEntry {
  type: BadgeType;
  points: number;
  startDate: LocalIso | null;
  endDate: LocalIso | null;
  /** A badge uid (also on triggers); no requiredBadge chain has a cycle. */
  requiredBadge: string | null;
  /** At least one. */
  conditions: Condition[];
  /** A rank set uid: non-null exactly when type is Ranked. */
  rankSet: string | null;
  /** A segment uid: the rule applies only to players in it when an action is decided; null: everyone. */
  segment: string | null;
}

export interface Badge extends BadgeLike {
  deliverables: DeliverableGrant[];
}

export interface Trigger extends BadgeLike {
  randomizedPrize: boolean;
  limited: boolean;
  /** >= 1 when limited. */
  limit: number;
  deliverables: TriggerDeliverableGrant[];
}

export interface Rank {
  /** Strictly ascending within the rank set. */
  rank: number;
  label: string;
  /** Exactly one of times and sum is non-null. */
  times: number | null;
  sum: number | null;
  points: number;
  deliverables: DeliverableGrant[];
}

export interface RankSet extends LabelledEntry {
  /** At least one. */
  ranks: Rank[];
}

export interface Level extends LabelledEntry {
  /** Unique; level 1 exists (target 0) whenever any level does. */
  level: number;
  /** Cumulative points; strictly increasing with level. */
  target: number;
  deliverables: DeliverableGrant[];
}

/** 0 Standard, 1 Season. */
export type LeaderboardType = 0 | 1;

/** `points`, or the count of one action (by identifier). */
export type LeaderboardMetric = 'points' | { action: string };

export interface Leaderboard extends LabelledEntry {
  type: LeaderboardType;
  /** Non-null exactly when type is 1. */
  season: Season | null;
  startDate: LocalIso | null;
  endDate: LocalIso | null;
  metric: LeaderboardMetric;
  randomizedPrize: boolean;
  limited: boolean;
  /** A player attribute name: separate standings per value of it; null: one standings. */
  scope: string | null;
  /** `sum`: one standings of the scope's values, each by the sum of its players' metric (needs scope). */
  aggregate: 'sum' | null;
  /**
   * A Season board's prizes by final rank in a season, settled at its end (absent in versions
   * published before season prizes: none).
   */
  prizes?: LeaguePrize[];
  /** Grace after a season's end before its prizes are settled (late actions); absent: 0. */
  settleAfterSeconds?: number;
}

export interface Bundle {
  uid: string;
  label: string;
  description: string | null;
  imageName: string | null;
  cost: number;
  /** A Prize deliverable uid; non-null when cost > 0. */
  costDeliverable: string | null;
  /** 0 = unlimited. */
  initialStock: number;
  requiresFulfillment: boolean;
  contents: DeliverableGrant[];
}

export interface Store extends LabelledEntry {
  startDate: LocalIso | null;
  endDate: LocalIso | null;
  bundles: Bundle[];
}

export interface Catalog {
  version: 1;
  settings: Settings;
  deliverables: Deliverable[];
  actions: Action[];
  badges: Badge[];
  rankSets: RankSet[];
  triggers: Trigger[];
  levels: Level[];
  leaderboards: Leaderboard[];
  stores: Store[];
  streaks: Streak[];
  missions: Mission[];
  segments: Segment[];
  leagues: League[];
  experiments: Experiment[];
  /** Moments to reach a player (docs/catalog.md, "moments"); absent: none. */
  moments?: Moments;
}

/** A local time of day, `HH:MM` (24 h), in the player's zone. */
export type LocalTimeOfDay = string;

/** Where a rank stands in its cohort (domain/rules/leagues.ts zoneOf). */
export type LeagueZone = 'Promotion' | 'Safe' | 'Demotion';

/**
 * The moments the service tells a player's systems about, each absent (off) or with its settings;
 * one entry per kind.
 */
export interface Moments {
  /** A Day streak not yet extended on the last day that still extends it, at that day's `atLocalTime`. */
  streakAtRisk?: { atLocalTime: LocalTimeOfDay; minLength: number };
  /** A mission in progress, `hoursBefore` its window or period ends. */
  missionEnding?: { hoursBefore: number };
  /** A league period ending in `hoursBefore` hours, for a player whose standing is then in one of `zones`. */
  leagueEnding?: { hoursBefore: number; zones: LeagueZone[] };
  /** No action for each of `afterDays` days of the player's calendar, at that day's `atLocalTime`. */
  inactive?: { afterDays: number[]; atLocalTime: LocalTimeOfDay };
}

/** A condition of a streak: a badge condition without challenge. */
export interface StreakCondition {
  /** An action identifier. */
  action: string;
  filters: Filter[];
}

export interface StreakMilestone {
  /** Unique within the streak. */
  length: number;
  points: number;
  deliverables: DeliverableGrant[];
}

/** Periods in a row with a qualifying action (docs/catalog.md, "streaks"). */
export interface Streak extends LabelledEntry {
  period: 'Day' | 'Week';
  /** At least one; an action meeting any one counts for its period. */
  conditions: StreakCondition[];
  freezes: { max: number; earnEvery: number } | null;
  milestones: StreakMilestone[];
  /** A segment uid: the streak counts only actions of players in it; null: everyone. */
  segment: string | null;
}

/** How often a mission's progress starts over: never, or each day or ISO week of the player's calendar. */
export type MissionRepeat = 'None' | 'Daily' | 'Weekly';

export interface MissionStep {
  /** Unique within the mission. */
  uid: string;
  label: string;
  /** One badge condition. */
  condition: Condition;
}

/** Steps to complete for points and deliverables, in order or not (docs/catalog.md, "missions"). */
export interface Mission extends LabelledEntry {
  startDate: LocalIso | null;
  endDate: LocalIso | null;
  /** A badge uid and a level number the player must hold for the mission to count; either or both null. */
  requires: { badge: string | null; level: number | null };
  ordered: boolean;
  repeat: MissionRepeat;
  /** At least one. */
  steps: MissionStep[];
  points: number;
  deliverables: DeliverableGrant[];
  /** A segment uid: the mission counts only actions of players in it; null: everyone. */
  segment: string | null;
}

/** A test on a player's state; a segment holds every one of its conditions. */
export type SegmentCondition =
  | { attribute: string; in: string[] }
  /** The highest level number reached (0 before any); min and max inclusive, either may be null. */
  | { level: { min: number | null; max: number | null } }
  /** A badge uid the player holds. */
  | { badge: string }
  /** Total points; min and max inclusive, either may be null. */
  | { points: { min: number | null; max: number | null } };

/** Players whose state meets every condition (docs/catalog.md, "Segments"). */
export interface Segment {
  uid: string;
  label: string;
  /** At least one. */
  conditions: SegmentCondition[];
}

/** The sections whose entries an experiment's variant may change; the others are shared by all variants. */
export const PATCHABLE_SECTIONS = ['actions', 'badges', 'triggers', 'streaks', 'missions'] as const;
export type PatchableSection = (typeof PATCHABLE_SECTIONS)[number];

/**
 * A variant's changes to catalog entries, as written: by section and entry uid, the fields whose
 * values replace the base catalog's (objects merged key by key, lists and scalars replaced).
 */
export type ExperimentPatch = Partial<Record<PatchableSection, Record<string, Record<string, unknown>>>>;

export interface ExperimentVariant {
  uid: string;
  /** Relative: a variant's share of the players who join is its weight over the sum of the weights. */
  weight: number;
  patch: ExperimentPatch;
}

/** A rule tried on part of the players (docs/catalog.md, "Experiments"). */
export interface Experiment {
  uid: string;
  label: string;
  /** Only players in it when an action is decided join; null: everyone. */
  segment: string | null;
  /** The window, in the catalog's zone, as badges': outside it nobody joins and everyone plays the base game. */
  startDate: LocalIso | null;
  endDate: LocalIso | null;
  /** At least one; the first is the control. */
  variants: ExperimentVariant[];
}

/** The catalog's lists of entries, in file order. */
export const CATALOG_SECTIONS = [
  'deliverables',
  'actions',
  'badges',
  'rankSets',
  'triggers',
  'levels',
  'leaderboards',
  'stores',
  'streaks',
  'missions',
  'segments',
  'experiments',
  'leagues',
] as const;
export type CatalogSection = (typeof CATALOG_SECTIONS)[number];

/** What a league ranks a cohort by: points earned in the period, or the times one action was processed in it. */
export type LeagueMetric = 'points' | { action: string };

/** A league's period: a Day or ISO Week (Monday first) in the league's zone, or N minutes from the Unix epoch. */
export type LeaguePeriod = 'Day' | 'Week' | { minutes: number };

/** A prize by final rank in a cohort: ranks `ranks[0]` to `ranks[1]`, inclusive. */
export interface LeaguePrize {
  /** `[from, to]`, 1 <= from <= to; ranges of a tier do not overlap. */
  ranks: [number, number];
  points: number;
  deliverables: DeliverableGrant[];
}

export interface LeagueTier {
  /** Unique within the league. */
  uid: string;
  label: string;
  /** Ranks 1 to promote move up a tier; 0 on the top tier. */
  promote: number;
  /** The last `demote` ranks move down a tier; 0 on the lowest tier. */
  demote: number;
  prizes: LeaguePrize[];
}

/** Cohorts each period, promotion and relegation between tiers (docs/catalog.md, "Leagues"). */
export interface League {
  uid: string;
  label: string;
  metric: LeagueMetric;
  period: LeaguePeriod;
  /** IANA zone of Day and Week boundaries; null: the catalog's settings.timezone. */
  timeZone: string | null;
  /** 2 to 1000. */
  cohortSize: number;
  /** Grace after the period's end before it is settled (late actions still count). */
  settleAfterSeconds: number;
  /** Lowest first; at least one. */
  tiers: LeagueTier[];
}
