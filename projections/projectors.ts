import { analyticsProjector } from './analytics';
import { bundleStockProjector } from './bundle-stock';
import { catalogViewsProjector } from './catalog-views';
import { experimentMembersProjector } from './experiment-members';
import { leaderboardsProjector } from './leaderboards';
import { leaguesProjector } from './leagues';
import { playersProjector } from './players';
import { segmentMembersProjector } from './segment-members';
import type { Projector } from './projector';

/** Every read model of the service: the runner, rebuild and verify all use this one list. */
export const PROJECTORS: readonly Projector[] = [
  catalogViewsProjector,
  leaderboardsProjector,
  bundleStockProjector,
  analyticsProjector,
  playersProjector,
  segmentMembersProjector,
  experimentMembersProjector,
  leaguesProjector,
];
