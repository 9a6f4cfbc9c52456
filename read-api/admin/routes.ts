/** GET /v1/admin/*: the catalog views, leaderboards and stores, from the read models. */
import { z } from 'zod';
import { EVERY_TIER, OPERATORS } from '../../shared/adapters/auth/access';
import { fail, ok, type Result } from '../../domain/result';
import { defineRoute, parseWith, type AnyRoute } from '../../shared/adapters/http/route';
import { canonicalPlayerId } from '../../domain/ids';
import { PLAYER_ID_DOC } from '../../shared/adapters/http/fields';
import { parseSeasonKey, SEASONS } from '../../domain/time/season';
import {
  LEADERBOARD_COLLECTIONS,
  periodOf,
  scopedPeriod,
  STANDARD_PERIOD,
  type BoardDoc,
  type ScoreDoc,
} from '../../shared/read-models/leaderboards';
import { rankIndexOf, type Standing } from '../../shared/read-models/standings';
import { BUNDLE_STOCK_COLLECTION, type BundleStockDoc } from '../../shared/read-models/bundle-stock';
import {
  actionDetailShape,
  actionShape,
  badgeDetailShape,
  badgeShape,
  currencyShape,
  leaderboardDetailShape,
  leaderboardShape,
  levelShape,
  missionDetailShape,
  missionShape,
  rankSetShape,
  segmentShape,
  storeShape,
  streakDetailShape,
  streakShape,
  triggerDetailShape,
  triggerShape,
} from './shapes';
import { VIEW_COLLECTIONS, type ViewDocument } from '../../shared/read-models/catalog-views';
import { SEGMENT_MEMBERS_COLLECTION, segmentFilter } from '../../shared/read-models/segments';
import type { Segment } from '../../domain/catalog/types';
import { documented, ERRORS, refuse, type ErrorCode } from '../../domain/errors';
import type { ReadDeps } from '../deps';
import { experimentRoutes } from './experiments';

const notFound = (error: ErrorCode): [number, string] => [error.code, error.message];
const noInput = (): Result<Record<string, never>> => ok({});
const byId = (param: string) => (input: { params: Record<string, string> }) => ok({ id: input.params[param] });

/** A list view: entries in catalog order (levels by level); `activeOnly` lists active entries only. */
/** Fills in what the catalog alone does not know. */
type Enrich = (views: unknown[], deps: ReadDeps) => Promise<unknown[]>;
const asIs: Enrich = async (views) => views;

/** What the OpenAPI document says of a view: its operation's name, a one-line summary and the shape of one element. */
type ViewDoc = [operationId: string, summary: string, element: z.ZodType];

function listRoute(
  deps: ReadDeps,
  path: string,
  collection: string,
  tiers: AnyRoute['tiers'],
  activeOnly: boolean,
  [operationId, summary, element]: ViewDoc,
  enrich = asIs,
): AnyRoute {
  return defineRoute({
    method: 'GET',
    path,
    tiers,
    doc: { operationId, summary, response: z.array(element), errors: {} },
    parse: noInput,
    async handle() {
      const docs = await deps.store
        .collection<ViewDocument>(collection)
        .find(activeOnly ? { isActive: true } : {}, { sort: { order: 1 } });
      return ok(
        await enrich(
          docs.map((d) => d.list),
          deps,
        ),
      );
    },
  });
}

/** A detail view: the entry by uid, wrapped in a one-element array. */
function detailRoute(
  deps: ReadDeps,
  path: string,
  param: string,
  collection: string,
  tiers: AnyRoute['tiers'],
  notFound: [number, string],
  [operationId, summary, element]: ViewDoc,
  enrich = asIs,
): AnyRoute {
  return defineRoute({
    method: 'GET',
    path,
    tiers,
    doc: {
      operationId,
      summary: `${summary} (a one-element array)`,
      response: z.array(element),
      errors: { [notFound[0]]: notFound[1] },
    },
    parse: byId(param),
    async handle({ id }) {
      const doc = await deps.store.collection<ViewDocument>(collection).findOne({ _id: id });
      return doc ? ok(await enrich([doc.detail], deps)) : fail(notFound[0], notFound[1]);
    },
  });
}

const ranksQuery = z.object({
  isactive: z.enum(['true', 'false'], { error: 'isactive: must be true or false' }).optional(),
});

const standingsQuery = z.object({
  top: z
    .string()
    .regex(/^\d+$/, 'must be a whole number from 1 to 1000')
    .transform(Number)
    .refine((n) => n >= 1 && n <= 1000, 'must be a whole number from 1 to 1000')
    // The query string carries a number: documented as the integer it is read as.
    .meta({ type: 'integer', minimum: 1, maximum: 1000, pattern: undefined, default: 10 })
    .optional(),
  // A key that names no period of any season is refused whatever the board: all-time boards ignore a valid one.
  season: z
    .string()
    .max(20)
    .regex(
      /^\d{4}-(?:\d{1,2}(?:-\d{1,2})?|[Ww]\d{1,2})$/,
      'must be a period: 2026-11-21 (daily), 2026-W47 (weekly) or 2026-11 (monthly)',
    )
    .refine((key) => SEASONS.some((s) => parseSeasonKey(key, s) !== null), 'not a real day, ISO week or month')
    .meta({
      description:
        'A period of a Season board: 2026-11-21 (daily), 2026-W47 (weekly) or 2026-11 (monthly); default the current one. Ignored by an all-time board.',
    })
    .optional(),
  playerId: z.string().meta(PLAYER_ID_DOC).optional(),
  around: z
    .string()
    .regex(/^\d+$/, 'must be a whole number from 1 to 50')
    .transform(Number)
    .refine((n) => n >= 1 && n <= 50, 'must be a whole number from 1 to 50')
    .meta({
      type: 'integer',
      minimum: 1,
      maximum: 50,
      pattern: undefined,
      description: 'With playerId: adds `around`, the player with up to this many standings above and below',
    })
    .optional(),
  scope: z
    .string()
    .min(1, 'must not be empty')
    .max(256, 'must be at most 256 characters')
    .meta({
      description:
        "On a scoped board (not an aggregate one), required: the value of the board's scope attribute whose standings to read, e.g. DE",
    })
    .optional(),
});

/** A row of the standings as the routes show it: a player, or on an aggregate board a value of its scope. */
type Row =
  | { rank: number; points: number; userId: string; username: string; imageName: string | null }
  | { rank: number; points: number; scope: string };

/**
 * Competition ranking (1, 2, 2, 4): ties share a rank; the earlier reacher is listed first. Every
 * read is one of the rank index (shared/read-models/standings.ts): a page is a slice of the
 * order, a player's rank one more than the standings with a higher score (a count), their
 * neighbours the slice around their position. None reads the players ahead.
 */
async function standings(
  deps: ReadDeps,
  board: BoardDoc,
  period: string,
  top: number,
  playerId: string | null,
  around: number | null,
) {
  const aggregate = !!board.aggregate;
  const ranks = rankIndexOf(deps.store.collection<ScoreDoc>(LEADERBOARD_COLLECTIONS.scores));
  const key = { board: board._id, period };
  const rankOf = async (score: number) => 1 + (await ranks.above(key, score));
  const rows = await ranks.slice(key, 0, top);
  const own = playerId ? await ranks.find(key, playerId) : null;
  const ownRank = own ? await rankOf(own.standing.score) : null;
  let neighbours: { rows: Standing[]; start: number; firstRank: number } | null = null;
  if (own && ownRank !== null && around !== null) {
    const start = Math.max(0, own.position - around);
    const found = await ranks.slice(key, start, own.position - start + around + 1);
    if (found.length > 0)
      neighbours = {
        rows: found,
        start,
        firstRank: found[0].score === own.standing.score ? ownRank : await rankOf(found[0].score),
      };
  }
  // An aggregate board's standings are values, not players: nothing to name.
  const players = aggregate
    ? []
    : await deps.store
        .collection<{ _id: string; username: string; imageName: string | null }>(LEADERBOARD_COLLECTIONS.players)
        .find({
          _id: {
            $in: [
              ...new Set([...rows, ...(own ? [own.standing] : []), ...(neighbours?.rows ?? [])].map((s) => s.owner)),
            ],
          },
        });
  const names = new Map(players.map((p) => [p._id, p]));
  const entry = ({ owner, score }: Standing, rank: number): Row => {
    if (aggregate) return { rank, points: score, scope: owner };
    const p = names.get(owner);
    return { rank, points: score, userId: owner, username: p?.username ?? owner, imageName: p?.imageName ?? null };
  };
  /** Rows from position `start` of the standings, the first of rank `firstRank`: a row tied with the one before shares its rank. */
  const ranked = (found: Standing[], start: number, firstRank: number) => {
    const out: Row[] = [];
    for (let i = 0; i < found.length; i++)
      out.push(
        entry(found[i], i === 0 ? firstRank : found[i].score === found[i - 1].score ? out[i - 1].rank : start + i + 1),
      );
    return out;
  };
  return {
    standings: ranked(rows, 0, 1),
    player: playerId ? (own && ownRank !== null ? entry(own.standing, ownRank) : null) : undefined,
    around:
      around === null ? undefined : neighbours ? ranked(neighbours.rows, neighbours.start, neighbours.firstRank) : [],
  };
}

export function adminRoutes(deps: ReadDeps): AnyRoute[] {
  const C = VIEW_COLLECTIONS;
  return [
    listRoute(deps, '/v1/admin/actions', C.actions, OPERATORS, true, [
      'actions',
      'The active actions, with their actionObjects',
      actionShape,
    ]),
    detailRoute(
      deps,
      '/v1/admin/actions/:actionID',
      'actionID',
      C.actions,
      OPERATORS,
      [9001, 'Action does not exist'],
      ['action', 'An action with its deliverables', actionDetailShape],
    ),
    listRoute(deps, '/v1/admin/badges', C.badges, OPERATORS, true, ['badges', 'The active badges', badgeShape]),
    detailRoute(
      deps,
      '/v1/admin/badges/:badgeID',
      'badgeID',
      C.badges,
      OPERATORS,
      [9004, 'Badge does not exist'],
      ['badge', 'A badge with its deliverables', badgeDetailShape],
    ),
    listRoute(deps, '/v1/admin/triggers', C.triggers, OPERATORS, true, [
      'triggers',
      'The active triggers',
      triggerShape,
    ]),
    detailRoute(
      deps,
      '/v1/admin/triggers/:triggerID',
      'triggerID',
      C.triggers,
      OPERATORS,
      [9005, 'Trigger does not exist'],
      ['trigger', 'A trigger with its deliverables', triggerDetailShape],
    ),
    listRoute(deps, '/v1/admin/levels', C.levels, OPERATORS, false, [
      'levels',
      'The levels, by level number',
      levelShape,
    ]),
    defineRoute({
      method: 'GET',
      path: '/v1/admin/ranks',
      tiers: OPERATORS,
      doc: {
        operationId: 'ranks',
        summary: 'The rank sets; isactive=true or false keeps only active or inactive ones',
        query: ranksQuery,
        response: z.array(rankSetShape),
        errors: { 1001: 'isactive is not true or false' },
      },
      parse: ({ query }) => parseWith(ranksQuery, query),
      async handle({ isactive }) {
        const filter = isactive === undefined ? {} : { isActive: isactive === 'true' };
        const docs = await deps.store.collection<ViewDocument>(C.ranks).find(filter, { sort: { order: 1 } });
        return ok(docs.map((d) => d.list));
      },
    }),
    listRoute(deps, '/v1/admin/leaderboards', C.leaderboards, EVERY_TIER, false, [
      'leaderboards',
      'Every leaderboard, without standings',
      leaderboardShape,
    ]),
    defineRoute({
      method: 'GET',
      path: '/v1/admin/leaderboards/:leaderboardID',
      tiers: EVERY_TIER,
      doc: {
        operationId: 'leaderboard',
        summary: 'A leaderboard with its standings (a one-element array)',
        query: standingsQuery,
        response: z.array(leaderboardDetailShape),
        errors: {
          1001: "top outside 1..1000, around outside 1..50 or without playerId, season not a period (of the board's season, on a Season board), scope missing on a scoped board or given on another, or playerId on an aggregate board",
          ...documented(ERRORS.INVALID_PLAYER_ID),
          ...documented(ERRORS.LEADERBOARD_NOT_FOUND),
        },
      },
      parse: ({ params, query }) => {
        const q = parseWith(standingsQuery, query);
        if (!q.ok) return q;
        const playerId = q.value.playerId === undefined ? null : canonicalPlayerId(q.value.playerId);
        if (q.value.playerId !== undefined && !playerId) return refuse(ERRORS.INVALID_PLAYER_ID);
        if (q.value.around !== undefined && q.value.playerId === undefined)
          return fail(1001, 'around: needs playerId (the player to show with their neighbours)');
        return ok({
          id: params.leaderboardID,
          top: q.value.top ?? 10,
          season: q.value.season ?? null,
          playerId,
          around: q.value.around ?? null,
          scope: q.value.scope ?? null,
        });
      },
      async handle({ id, top, season, playerId, around, scope }) {
        const view = await deps.store.collection<ViewDocument>(C.leaderboards).findOne({ _id: id });
        const board = await deps.store.collection<BoardDoc>(LEADERBOARD_COLLECTIONS.boards).findOne({ _id: id });
        if (!view || !board) return refuse(ERRORS.LEADERBOARD_NOT_FOUND);
        const separate = !!board.scope && !board.aggregate;
        if (separate && scope === null)
          return fail(1001, `scope: required, the value of ${board.scope} whose standings to read`);
        if (!separate && scope !== null)
          return fail(
            1001,
            board.aggregate
              ? `scope: not on an aggregate board (it ranks the values of ${board.scope} in one list)`
              : 'scope: the board is not scoped',
          );
        if (board.aggregate && playerId !== null)
          return fail(1001, `playerId: an aggregate board ranks values of ${board.scope}, not players`);
        let period: string | null;
        if (board.type === 0) period = STANDARD_PERIOD;
        else if (season !== null) {
          period = parseSeasonKey(season, board.season!);
          if (period === null)
            return fail(1001, `season: not a ${board.season} period (e.g. ${examplePeriod(board.season!)})`);
        } else period = periodOf({ ...board, startMs: null, endMs: null }, deps.now());
        const found = await standings(
          deps,
          board,
          scope === null ? period! : scopedPeriod(period!, scope),
          top,
          playerId,
          around,
        );
        return ok([
          {
            ...view.detail,
            standings: found.standings,
            ...(playerId ? { player: found.player } : {}),
            ...(around !== null ? { around: found.around } : {}),
          },
        ]);
      },
    }),
    listRoute(
      deps,
      '/v1/admin/stores',
      C.stores,
      EVERY_TIER,
      false,
      ['stores', 'Every store with its bundles and remaining stock', storeShape],
      withRemainingStock,
    ),
    detailRoute(
      deps,
      '/v1/admin/stores/:storeID',
      'storeID',
      C.stores,
      EVERY_TIER,
      [9008, 'Store does not exist'],
      ['store', 'A store with its bundles and remaining stock', storeShape],
      withRemainingStock,
    ),
    listRoute(deps, '/v1/admin/streaks', C.streaks, OPERATORS, false, ['streaks', 'Every streak', streakShape]),
    detailRoute(
      deps,
      '/v1/admin/streaks/:streakID',
      'streakID',
      C.streaks,
      OPERATORS,
      notFound(ERRORS.STREAK_NOT_FOUND),
      ['streak', 'A streak with its conditions and milestones', streakDetailShape],
    ),
    listRoute(deps, '/v1/admin/missions', C.missions, OPERATORS, false, ['missions', 'Every mission', missionShape]),
    detailRoute(
      deps,
      '/v1/admin/missions/:missionID',
      'missionID',
      C.missions,
      OPERATORS,
      notFound(ERRORS.MISSION_NOT_FOUND),
      ['mission', 'A mission with its steps and deliverables', missionDetailShape],
    ),
    listRoute(deps, '/v1/admin/currencies', C.currencies, OPERATORS, false, [
      'currencies',
      'Every deliverable of kind Currency, with its expiry and earn caps',
      currencyShape,
    ]),
    defineRoute({
      method: 'GET',
      path: '/v1/admin/segments',
      tiers: OPERATORS,
      doc: {
        operationId: 'segments',
        summary:
          'Every segment of the catalog in force, with its conditions and the number of players in it now (erased players are not)',
        response: z.array(segmentShape),
        errors: {},
      },
      parse: noInput,
      async handle() {
        const views = await deps.store.collection<ViewDocument>(C.segments).find({}, { sort: { order: 1 } });
        const members = deps.store.collection(SEGMENT_MEMBERS_COLLECTION);
        return ok(
          await Promise.all(
            views.map(async ({ detail }) => {
              const segment = detail as unknown as Segment;
              return {
                uid: segment.uid,
                label: segment.label,
                conditions: segment.conditions,
                players: await members.countDocuments(segmentFilter(segment)),
              };
            }),
          ),
        );
      },
    }),
    ...experimentRoutes(deps),
  ];
}

interface StoreView {
  storeBundles: { uid: string; initialStock: number; remainingStock: number }[];
}

/** remainingStock from the stock read model: 0 stays 0 for unlimited bundles (initialStock 0). */
const withRemainingStock: Enrich = async (views, deps) => {
  const stock = deps.store.collection<BundleStockDoc>(BUNDLE_STOCK_COLLECTION);
  const taken = new Map((await stock.find({})).map((d) => [d._id, d.taken]));
  return (views as StoreView[]).map((store) => ({
    ...store,
    storeBundles: store.storeBundles.map((b) => ({
      ...b,
      remainingStock: b.initialStock > 0 ? Math.max(0, b.initialStock - (taken.get(b.uid) ?? 0)) : 0,
    })),
  }));
};

const examplePeriod = (season: NonNullable<BoardDoc['season']>) =>
  ({ daily: '2026-11-21', weekly: '2026-W47', monthly: '2026-11' })[season];
