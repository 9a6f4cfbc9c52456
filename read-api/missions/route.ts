/** POST /v1/missions/list. */
import { missionShape } from '../../shared/adapters/http/wire-shapes';
import {
  compileMissions,
  isUnlocked,
  missionCalendar,
  missionPeriodOf,
  stepProgress,
  withinWindow,
} from '../../domain/rules/missions';
import { periodLabel } from '../../domain/time/calendar';
import type { Catalog } from '../../domain/catalog/types';
import type { PlayerState } from '../../domain/player/state';
import type { StreamReadDeps } from '../deps';
import { playerListRoute } from '../player-list-route';

/** The player's missions whose window holds now, in catalog order, with their progress in the current period: /v1/missions/list, and the export. */
export function playerMissions(catalog: Catalog, state: PlayerState, now: number) {
  const timeZone = state.timeZone ?? catalog.settings.timezone;
  return compileMissions(catalog)
    .filter((m) => withinWindow(m, now))
    .map((m) => {
      const period = missionPeriodOf(m.def, now, timeZone);
      const held = state.missions.get(m.def.uid)?.periods.get(period);
      const completion = held?.completion ?? null;
      const calendar = missionCalendar(m.def);
      return {
        missionUid: m.def.uid,
        label: m.def.label,
        status: completion
          ? ('Completed' as const)
          : isUnlocked(m.def, state)
            ? ('InProgress' as const)
            : ('Locked' as const),
        steps: m.def.steps.map((s, i) => ({
          uid: s.uid,
          label: s.label,
          completed: held?.steps[i]?.completed ?? false,
          progress: stepProgress(m.conditions[i], held?.steps[i]?.entries ?? [], now),
        })),
        completedAt: completion?.awardedAt ?? null,
        period: calendar === null ? null : periodLabel(period, calendar),
      };
    });
}

/**
 * POST /v1/missions/list: every active mission whose window holds now, in catalog order, with the
 * player's progress in the current period (the player's day or week for a repeated mission), read
 * from the player's stream so a write is visible at once.
 */
export const missionListRoute = (deps: StreamReadDeps) =>
  playerListRoute(deps, {
    path: '/v1/missions/list',
    operationId: 'playerMissions',
    summary: "A player's missions: locked, in progress or completed, with each step's progress in the current period",
    item: missionShape,
    list: playerMissions,
  });
