/** GET /v1/leagues/{leagueUid}, its history, and GET /v1/admin/leagues (docs/catalog.md, "Leagues"). */
import { z } from 'zod';
import { EVERY_TIER, OPERATORS } from '../../shared/adapters/auth/access';
import { PLAYER_ID_DOC, text } from '../../shared/adapters/http/fields';
import { defineRoute, parseWith, type AnyRoute } from '../../shared/adapters/http/route';
import type { ReadStore } from '../../shared/adapters/read-store/port';
import type { League } from '../../domain/catalog/types';
import { documented, ERRORS, refuse } from '../../domain/errors';
import { canonicalPlayerId } from '../../domain/ids';
import { ERASED_FIELD } from '../../domain/player/state';
import { ok, type Result } from '../../domain/result';
import { entryTier, leaguePeriodAt, leaguesOf, standingsOf, zoneOf } from '../../domain/rules/leagues';
import { LEADERBOARD_COLLECTIONS } from '../../shared/read-models/leaderboards';
import {
  LEAGUE_COLLECTIONS,
  leagueMemberId,
  type LeagueMemberDoc,
  type LeagueTierDoc,
} from '../../shared/read-models/leagues';
import type { StreamReadDeps } from '../deps';

const noInput = (): Result<Record<string, never>> => ok({});

export type LeagueReadDeps = StreamReadDeps & { store: ReadStore };

const periodShape = z.object({ start: z.number().int(), end: z.number().int() }).describe('Unix ms, end exclusive');
const prizeShape = z.object({
  points: z.number(),
  deliverables: z.array(z.object({ deliverable: z.string(), amount: z.number() })),
});

export const leagueStandingShape = z.object({
  league: z.object({ uid: z.string(), label: z.string() }),
  period: periodShape,
  tier: z.object({ uid: z.string(), label: z.string() }).describe('the tier the player is in, or would enter'),
  cohort: z.number().int().nullable().describe('the number of their cohort; null: not in the current period'),
  rank: z.number().int().nullable(),
  metric: z.number(),
  zone: z.enum(['Promotion', 'Safe', 'Demotion']).nullable(),
  standings: z.array(
    z.object({ rank: z.number().int(), playerId: z.string(), username: z.string(), metric: z.number() }),
  ),
});

export const leagueHistoryShape = z.object({
  period: periodShape,
  tier: z.string(),
  cohort: z.number().int(),
  rank: z.number().int(),
  metric: z.number(),
  outcome: z.enum(['Promoted', 'Demoted', 'Stayed']),
  nextTier: z.string(),
  prize: prizeShape.nullable(),
});

export const adminLeagueShape = z.object({
  uid: z.string(),
  label: z.string(),
  period: periodShape.describe('the current period'),
  tiers: z.array(
    z.object({
      uid: z.string(),
      label: z.string(),
      players: z.number().int().describe('players who entered the tier in the current period'),
      cohorts: z.number().int(),
    }),
  ),
});

const playerQuery = z.object({ playerId: text().meta(PLAYER_ID_DOC) });
const playerErrors = {
  1001: 'Missing required query parameter playerId',
  ...documented(ERRORS.INVALID_PLAYER_ID),
  ...documented(ERRORS.LEAGUE_NOT_FOUND),
  ...documented(ERRORS.PLAYER_NOT_FOUND),
};

const parsePlayer = ({ params, query }: { params: Record<string, string>; query: unknown }) => {
  const q = parseWith(playerQuery, query);
  if (!q.ok) return q;
  const playerId = canonicalPlayerId(q.value.playerId);
  return playerId ? ok({ leagueUid: params.leagueUid, playerId }) : refuse(ERRORS.INVALID_PLAYER_ID);
};

/** The league in force and the registered player, or the refusal: 9043 first, then 9020. */
async function leagueAndPlayer(deps: LeagueReadDeps, leagueUid: string, playerId: string) {
  const league = leaguesOf(deps.catalog().catalog).find((l) => l.uid === leagueUid);
  if (!league) return refuse<never>(ERRORS.LEAGUE_NOT_FOUND);
  const { state } = await deps.players.load(playerId);
  if (!state.registered) return refuse<never>(ERRORS.PLAYER_NOT_FOUND);
  return ok({ league, state });
}

/** A cohort's standings, best first: one indexed read of the cohort's documents (its size at most). */
async function cohortStandings(store: ReadStore, me: LeagueMemberDoc) {
  const docs = await store
    .collection<LeagueMemberDoc>(LEAGUE_COLLECTIONS.members)
    .find(
      { league: me.league, start: me.start, tier: me.tier, cohort: me.cohort },
      { sort: { metric: -1, reachedAt: 1, entry: 1 } },
    );
  const ranked = standingsOf(docs.map((d) => ({ ...d, entry: d.entry ?? 0 })));
  const names = new Map(
    (
      await store
        .collection<{ _id: string; username: string }>(LEADERBOARD_COLLECTIONS.players)
        .find({ _id: { $in: ranked.map((d) => d.playerId) } })
    ).map((p) => [p._id, p.username]),
  );
  return ranked.map((d, i) => ({
    rank: i + 1,
    playerId: d.playerId,
    username: names.get(d.playerId) ?? ERASED_FIELD,
    metric: d.metric,
  }));
}

async function currentTiers(store: ReadStore, league: League, start: number) {
  const docs = await store
    .collection<LeagueTierDoc>(LEAGUE_COLLECTIONS.tiers)
    .find({ league: league.uid, start }, { sort: { tier: 1 } });
  return league.tiers.map((t) => {
    const doc = docs.find((d) => d.tier === t.uid);
    return {
      uid: t.uid,
      label: t.label,
      players: doc?.entries ?? 0,
      cohorts: doc ? Math.ceil(doc.entries / doc.cohortSize) : 0,
    };
  });
}

export function leagueRoutes(deps: LeagueReadDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/v1/leagues/:leagueUid',
      tiers: EVERY_TIER,
      doc: {
        operationId: 'league',
        summary:
          "A player's place in a league's current period: tier, cohort, rank, zone and the cohort's standings (tier only when not in it)",
        query: playerQuery,
        response: leagueStandingShape,
        errors: playerErrors,
      },
      parse: parsePlayer,
      async handle({ leagueUid, playerId }) {
        const found = await leagueAndPlayer(deps, leagueUid, playerId);
        if (!found.ok) return found;
        const { league, state } = found.value;
        const period = leaguePeriodAt(league, deps.now(), deps.catalog().catalog.settings.timezone);
        const me = await deps.store
          .collection<LeagueMemberDoc>(LEAGUE_COLLECTIONS.members)
          .findOne({ _id: leagueMemberId(league.uid, period.start, playerId) });
        const tier = (me && league.tiers.find((t) => t.uid === me.tier)) || entryTier(league, state);
        const head = {
          league: { uid: league.uid, label: league.label },
          period,
          tier: { uid: tier.uid, label: tier.label },
        };
        if (!me || me.cohort === null)
          return ok({ ...head, cohort: null, rank: null, metric: me?.metric ?? 0, zone: null, standings: [] });
        const standings = await cohortStandings(deps.store, me);
        const rank = standings.findIndex((s) => s.playerId === playerId) + 1;
        return ok({
          ...head,
          cohort: me.cohort,
          rank,
          metric: me.metric,
          zone: zoneOf(tier, rank, standings.length),
          standings,
        });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/leagues/:leagueUid/history',
      tiers: EVERY_TIER,
      doc: {
        operationId: 'leagueHistory',
        summary: "A player's settled periods of a league, newest first, with rank, outcome and prize",
        query: playerQuery,
        response: z.array(leagueHistoryShape),
        errors: playerErrors,
      },
      parse: parsePlayer,
      async handle({ leagueUid, playerId }) {
        const found = await leagueAndPlayer(deps, leagueUid, playerId);
        if (!found.ok) return found;
        const docs = await deps.store
          .collection<LeagueMemberDoc>(LEAGUE_COLLECTIONS.members)
          .find({ league: leagueUid, playerId, settled: true }, { sort: { start: -1 } });
        return ok(
          docs.map((d) => ({
            period: { start: d.start, end: d.end },
            tier: d.tier,
            cohort: d.cohort!,
            rank: d.rank!,
            metric: d.metric,
            outcome: d.outcome as 'Promoted' | 'Demoted' | 'Stayed',
            nextTier: d.nextTier!,
            prize: d.prize,
          })),
        );
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/admin/leagues',
      tiers: OPERATORS,
      doc: {
        operationId: 'leagues',
        summary: 'Every league of the catalog in force, with its current period and its players and cohorts per tier',
        response: z.array(adminLeagueShape),
        errors: {},
      },
      parse: noInput,
      async handle() {
        const { catalog } = deps.catalog();
        return ok(
          await Promise.all(
            leaguesOf(catalog).map(async (league) => {
              const period = leaguePeriodAt(league, deps.now(), catalog.settings.timezone);
              return {
                uid: league.uid,
                label: league.label,
                period,
                tiers: await currentTiers(deps.store, league, period.start),
              };
            }),
          ),
        );
      },
    }),
  ];
}
