/** POST /v1/player/profile. */
import { entryTier, leaguePeriodAt, leaguesOf } from '../../domain/rules/leagues';
import { z } from 'zod';
import { PLAYER_ID_DOC } from '../../shared/adapters/http/fields';
import { profileShape } from '../../shared/adapters/http/wire-shapes';
import { ok } from '../../domain/result';
import { defineRoute, parseBody } from '../../shared/adapters/http/route';
import { canonicalPlayerId } from '../../domain/ids';
import type { StreamReadDeps } from '../deps';
import { currentLevel } from '../../domain/rules/levels';
import { DELIVERABLE_TYPE_CODE } from '../../domain/events/common';
import type { Catalog } from '../../domain/catalog/schema';
import { allowanceKey, type PlayerState } from '../../domain/player/state';
import { periodLabel, periodOf } from '../../domain/time/calendar';
import { availableBalance, nextLots } from '../../domain/rules/lots';

/** Lots listed in the profile's `expiring`. */
const EXPIRING_SHOWN = 10;
import { documented, ERRORS, refuse } from '../../domain/errors';

/** The caps with a use in their current period of the player's calendar, in catalog order. */
function capsUsed(catalog: Catalog, state: PlayerState, now: number) {
  const timeZone = state.timeZone ?? catalog.settings.timezone;
  const caps = [
    ...catalog.actions.flatMap((a) =>
      a.caps.map((c) => ({
        kind: c.times !== null ? ('times' as const) : ('points' as const),
        of: a.identifier,
        period: c.period,
        limit: (c.times ?? c.points)!,
      })),
    ),
    ...catalog.deliverables.flatMap((d) =>
      d.earnCaps.map((c) => ({ kind: 'earn' as const, of: d.uid, period: c.period, limit: c.amount })),
    ),
  ];
  return caps.flatMap((c) => {
    const ordinal = periodOf(now, c.period, timeZone);
    const used = state.allowances.get(allowanceKey({ ...c, ordinal })) ?? 0;
    return used > 0 ? [{ ...c, periodName: periodLabel(ordinal, c.period), used }] : [];
  });
}

/** Each league's tier of the player: the one they are in in the current period, else the one they would enter. */
function leagueTiers(catalog: Catalog, state: PlayerState, now: number) {
  return leaguesOf(catalog).map((league) => {
    const { start } = leaguePeriodAt(league, now, catalog.settings.timezone);
    const open = state.leagues.get(league.uid)?.open.find((o) => o.start === start);
    return { uid: league.uid, tier: open?.tier ?? entryTier(league, state).uid };
  });
}

/** The profile of a registered player: what POST /v1/player/profile answers, and the export reuses. */
export function playerProfile(catalog: Catalog, state: PlayerState, now: number) {
  const levelNumber = currentLevel(state);
  const level = catalog.levels.find((l) => l.level === levelNumber && state.levelsReached.has(l.uid));
  const badges = new Map<
    string,
    { uid: string; label: string; type: string; count: number; rank: { rank: number; label: string } | null }
  >();
  for (const h of state.holdings.filter((x) => x.kind === 'badge')) {
    const b = badges.get(h.uid) ?? { uid: h.uid, label: h.label, type: h.ruleType, count: 0, rank: null };
    b.count += 1;
    if (h.rank && (!b.rank || h.rank.rank > b.rank.rank)) b.rank = h.rank;
    badges.set(h.uid, b);
  }
  const deliverables = new Map(catalog.deliverables.map((d) => [d.uid, d]));
  return {
    playerId: state.playerId,
    username: state.username,
    points: state.points,
    level: level
      ? { uid: level.uid, label: level.label, level: level.level, target: level.target, imageName: level.imageName }
      : null,
    badges: [...badges.values()],
    // Lots expired count no longer, whether or not their CurrencyExpired is recorded yet.
    balances: [...state.balances.keys()]
      .map((uid) => [uid, availableBalance(state, uid, now)] as const)
      .filter(([, amount]) => amount !== 0)
      .map(([uid, amount]) => ({
        deliverableUid: uid,
        label: deliverables.get(uid)?.label ?? uid,
        type: DELIVERABLE_TYPE_CODE[deliverables.get(uid)?.type ?? 'Prize'],
        amount,
      })),
    expiring: nextLots(state, now, EXPIRING_SHOWN),
    timeZone: state.timeZone ?? catalog.settings.timezone,
    attributes: state.attributes,
    caps: capsUsed(catalog, state, now),
    experiments: [...state.experiments].map(([uid, joined]) => ({
      uid,
      variant: joined.variant,
      joinedAt: joined.joinedAt,
    })),
    leagues: leagueTiers(catalog, state, now),
  };
}

const profileBody = z.object({
  playerId: z
    .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') })
    .meta(PLAYER_ID_DOC),
});

/**
 * POST /v1/player/profile: points, level, badges with ranks, balances, time zone and the caps used
 * this period, read from the player's stream, so a write is visible at once.
 */
export const playerProfileRoute = (deps: StreamReadDeps) =>
  defineRoute({
    method: 'POST',
    path: '/v1/player/profile',
    tiers: ['Server', 'Mobile', 'Auditor'],
    doc: {
      operationId: 'playerProfile',
      summary: "A player's points, level, badges and balances",
      body: profileBody,
      response: profileShape,
      errors: {
        1001: 'Payload is null, or playerId is missing',
        ...documented(ERRORS.INVALID_PLAYER_ID),
        ...documented(ERRORS.PLAYER_DOES_NOT_EXIST),
      },
    },
    parse: (input) => {
      const parsed = parseBody(profileBody)(input);
      if (!parsed.ok) return parsed;
      const playerId = canonicalPlayerId(parsed.value.playerId);
      return playerId ? ok({ playerId }) : refuse(ERRORS.INVALID_PLAYER_ID);
    },
    // A Client key only with the player's token (X-Player-Token): a profile names its player.
    playerOf: ({ playerId }) => playerId,
    async handle({ playerId }) {
      const { state } = await deps.players.load(playerId);
      if (!state.registered) return refuse(ERRORS.PLAYER_DOES_NOT_EXIST);
      return ok(playerProfile(deps.catalog().catalog, state, deps.now()));
    },
  });
