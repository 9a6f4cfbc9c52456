/**
 * The analytics read model: one document per day of the catalog's time zone, holding every daily
 * series, so that a chart reads as many documents as it shows days. Written by
 * the analytics projector, read by GET /v1/admin/analytics/:series.
 */

export const ANALYTICS_COLLECTIONS = {
  days: 'analytics_days',
  /** One document per player: the days they had an action on, what makes `active-players` exact. */
  activePlayers: 'analytics_active_players',
  /** One document, `catalog`: the time zone days are counted in (the latest published catalog's), and the deliverables catalogs made powerups. */
  settings: 'analytics_settings',
} as const;

/** Series of one value per day. */
export const TOTAL_SERIES = [
  'actions',
  'active-players',
  'new-players',
  'points',
  'chest-openings',
  'reversals',
  'adjustments',
] as const;
/** Series of one value per day and key (an action, `deliverable uid:kind`, a badge, level or bundle uid). */
export const SPLIT_SERIES = ['actions-by-action', 'deliverables', 'badges', 'levels', 'purchases'] as const;
export const SERIES = [...TOTAL_SERIES, ...SPLIT_SERIES] as const;

export type TotalSeries = (typeof TOTAL_SERIES)[number];
export type SplitSeries = (typeof SPLIT_SERIES)[number];
export type Series = (typeof SERIES)[number];

export const isSplitSeries = (series: Series): series is SplitSeries =>
  (SPLIT_SERIES as readonly string[]).includes(series);

/** How a deliverable moved: the second half of a `deliverables` key (`coins:granted`). */
export type DeliverableMove = 'granted' | 'spent' | 'refunded' | 'expired';

/** A split series' values of one day: [key, value], by key, without zeros. */
export type KeyedValues = [key: string, value: number][];

export interface DayDoc {
  /** The day, `YYYY-MM-DD` in the catalog's time zone. */
  _id: string;
  totals: Record<TotalSeries, number>;
  split: Record<SplitSeries, KeyedValues>;
  /** Position of the last event applied to the day: an event at or before it is a redelivery, skipped. */
  appliedAt: number;
  [key: string]: unknown;
}

/**
 * The days a player had an action on (`_id` is the playerId), each with the position of the
 * action that made them active that day. One document per player rather than per player and day:
 * a player's days cost an entry each, not a document each.
 */
export interface ActivePlayerDoc {
  _id: string;
  days: Record<string, number>;
  [key: string]: unknown;
}

export const emptyDay = (day: string): DayDoc => ({
  _id: day,
  totals: Object.fromEntries(TOTAL_SERIES.map((s) => [s, 0])) as Record<TotalSeries, number>,
  split: Object.fromEntries(SPLIT_SERIES.map((s) => [s, []])) as unknown as Record<SplitSeries, KeyedValues>,
  appliedAt: 0,
});
