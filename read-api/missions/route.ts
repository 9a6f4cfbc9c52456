/** POST /v1/missions/list. */
import { z } from 'zod';
import { EVERY_TIER } from '../../shared/auth/access';
import { PLAYER_ID_DOC, text } from '../../shared/http/fields';
import { defineRoute, parseWith, requireObject } from '../../shared/http/route';
import { missionShape } from '../../shared/http/wire-shapes';
import { canonicalPlayerId } from '../../shared/ids';
import { fail, ok } from '../../shared/result';
import {
  compileMissions,
  isUnlocked,
  missionCalendar,
  missionPeriodOf,
  stepProgress,
  withinWindow,
} from '../../shared/rules/missions';
import { periodLabel } from '../../shared/time/calendar';
import type { Catalog } from '../../shared/catalog/types';
import type { PlayerState } from '../../shared/player/state';
import type { StreamReadDeps } from '../deps';

const listBody = z.object({ playerId: text().meta(PLAYER_ID_DOC) });

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
  defineRoute({
    method: 'POST',
    path: '/v1/missions/list',
    tiers: EVERY_TIER,
    doc: {
      summary: "A player's missions: locked, in progress or completed, with each step's progress in the current period",
      body: listBody,
      response: z.array(missionShape),
      errors: {
        1001: 'Payload is null',
        1002: 'Missing required field (playerId), or playerId is not a UUID',
        9020: 'Player not found',
      },
    },
    parse(input) {
      const object = requireObject(input.body);
      if (!object.ok) return object;
      const parsed = parseWith(listBody, object.value, 1002);
      if (!parsed.ok) return parsed;
      const playerId = canonicalPlayerId(parsed.value.playerId);
      return playerId ? ok(playerId) : fail(1002, 'Invalid player: playerId must be a UUID');
    },
    async handle(playerId) {
      const { state } = await deps.players.load(playerId);
      if (!state.registered) return fail(9020, 'Player not found');
      return ok(playerMissions(deps.catalog().catalog, state, deps.now()));
    },
  });
