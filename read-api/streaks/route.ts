/** POST /v1/streaks/list. */
import { z } from 'zod';
import { EVERY_TIER } from '../../shared/auth/access';
import { PLAYER_ID_DOC, text } from '../../shared/http/fields';
import { defineRoute, parseWith, requireObject } from '../../shared/http/route';
import { streakShape } from '../../shared/http/wire-shapes';
import { canonicalPlayerId } from '../../shared/ids';
import { fail, ok } from '../../shared/result';
import { periodEnd, periodLabel } from '../../shared/time/calendar';
import type { StreamReadDeps } from '../deps';
import type { Catalog } from '../../shared/catalog/types';
import type { PlayerState } from '../../shared/player/state';

const listBody = z.object({ playerId: text().meta(PLAYER_ID_DOC) });

/**
 * The player's run of every active streak, in catalog order: /v1/streaks/list, and the export. A
 * run not extended before `breaksAt` (the end of the period after the last counted one, plus one
 * period per freeze held, in the player's zone) has ended: its length reads 0.
 */
export function playerStreaks(catalog: Catalog, state: PlayerState, now: number) {
  const timeZone = state.timeZone ?? catalog.settings.timezone;
  return catalog.streaks
    .filter((s) => s.isActive)
    .map((s) => {
      const run = state.streaks.get(s.uid);
      const last = run?.lastPeriod ?? null;
      const breaksAt = last === null ? null : periodEnd(last + 1 + run!.freezes, s.period, timeZone);
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
  defineRoute({
    method: 'POST',
    path: '/v1/streaks/list',
    tiers: EVERY_TIER,
    doc: {
      summary: "A player's streaks: length, longest, freezes held, and when the run breaks",
      body: listBody,
      response: z.array(streakShape),
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
      return ok(playerStreaks(deps.catalog().catalog, state, deps.now()));
    },
  });
