/** POST /v1/streaks/list. */
import { streakShape } from '../../shared/adapters/http/wire-shapes';
import { periodAfter, periodEnd, periodLabel } from '../../domain/time/calendar';
import type { StreamReadDeps } from '../deps';
import { playerListRoute } from '../player-list-route';
import type { Catalog } from '../../domain/catalog/types';
import type { PlayerState } from '../../domain/player/state';

/**
 * The player's run of every active streak, in catalog order: /v1/streaks/list, and the export. A
 * run not extended before `breaksAt` (the end of the period after the last counted one, plus one
 * period per freeze held, in the player's zone, counting only periods the zone has) has ended:
 * its length reads 0.
 */
export function playerStreaks(catalog: Catalog, state: PlayerState, now: number) {
  const timeZone = state.timeZone ?? catalog.settings.timezone;
  return catalog.streaks
    .filter((s) => s.isActive)
    .map((s) => {
      const run = state.streaks.get(s.uid);
      const last = run?.lastPeriod ?? null;
      const breaksAt =
        last === null ? null : periodEnd(periodAfter(last, 1 + run!.freezes, s.period, timeZone), s.period, timeZone);
      return {
        streakUid: s.uid,
        label: s.label,
        description: s.description,
        imageName: s.imageName,
        period: s.period,
        length: breaksAt === null || now >= breaksAt ? 0 : run!.length,
        longest: run?.longest ?? 0,
        lastPeriod: last === null ? null : periodLabel(last, s.period),
        freezes: run?.freezes ?? 0,
        breaksAt,
      };
    });
}

/** POST /v1/streaks/list: playerStreaks, read from the player's stream so a write is visible at once. */
export const streakListRoute = (deps: StreamReadDeps) =>
  playerListRoute(deps, {
    path: '/v1/streaks/list',
    operationId: 'playerStreaks',
    summary: "A player's streaks: length, longest, freezes held, and when the run breaks",
    item: streakShape,
    list: playerStreaks,
  });
