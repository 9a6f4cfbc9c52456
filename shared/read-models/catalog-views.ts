/**
 * The admin views of the published catalog: one document per catalog entry, written by the
 * catalog-views projector, read by the admin routes.
 */
/** One admin view document per catalog entry: its `list` and `detail` shapes as the admin routes answer them. */
export interface ViewDocument {
  _id: string;
  order: number;
  isActive: boolean;
  list: Record<string, unknown>;
  detail: Record<string, unknown>;
  [key: string]: unknown;
}

export const VIEW_COLLECTIONS = {
  actions: 'view_actions',
  badges: 'view_badges',
  triggers: 'view_triggers',
  levels: 'view_levels',
  ranks: 'view_ranks',
  leaderboards: 'view_leaderboards',
  stores: 'view_stores',
  streaks: 'view_streaks',
  missions: 'view_missions',
  currencies: 'view_currencies',
  segments: 'view_segments',
  experiments: 'view_experiments',
} as const;
