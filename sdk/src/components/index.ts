/**
 * The web components of the gamification engine: `<gm-leaderboard>`, `<gm-profile>`,
 * `<gm-badges>`, `<gm-streaks>`, `<gm-missions>` and `<gm-league>`, defined on import. Plain
 * custom elements (no framework), each reading the API with the SDK's client; docs/sdk.md shows
 * them on a page.
 */
import { define } from './element.ts';
import { GmBadges } from './badges.ts';
import { GmLeaderboard } from './leaderboard.ts';
import { GmLeague } from './league.ts';
import { GmMissions } from './missions.ts';
import { GmProfile } from './profile.ts';
import { GmStreaks } from './streaks.ts';

define('gm-leaderboard', GmLeaderboard);
define('gm-profile', GmProfile);
define('gm-badges', GmBadges);
define('gm-streaks', GmStreaks);
define('gm-missions', GmMissions);
define('gm-league', GmLeague);

export { GmBadges, GmLeaderboard, GmLeague, GmMissions, GmProfile, GmStreaks };
export { DEFAULT_REFRESH_SECONDS, GamificationElement } from './element.ts';
