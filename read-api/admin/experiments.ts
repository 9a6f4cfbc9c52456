/**
 * GET /v1/admin/experiments and GET /v1/admin/experiments/{uid}/results (docs/audit.md,
 * "Experiments: results"): each experiment of the catalog in force with its status and players per
 * variant, and what each variant did against the control, from the experiment-members read model.
 */
import { z } from 'zod';
import { OPERATORS } from '../../shared/adapters/auth/access';
import { defineRoute, type AnyRoute } from '../../shared/adapters/http/route';
import { documented, ERRORS, refuse } from '../../domain/errors';
import { ok } from '../../domain/result';
import { NO_COMPARISON, sampleOf, twoProportions, welch, type Comparison } from '../../domain/statistics';
import { periodLabel, periodOf } from '../../domain/time/calendar';
import { VIEW_COLLECTIONS, type ViewDocument } from '../../shared/read-models/catalog-views';
import { EXPERIMENT_MEMBERS_COLLECTION, type ExperimentMemberDoc } from '../../shared/read-models/experiments';
import type { ReadDeps } from '../deps';

/** An experiment as its admin view keeps it (projections/catalog-view-documents.ts). */
interface ExperimentView {
  uid: string;
  label: string;
  segment: string | null;
  startDate: string | null;
  endDate: string | null;
  startMs: number | null;
  endMs: number | null;
  variants: { uid: string; weight: number }[];
}

const statusShape = z.enum(['Scheduled', 'Running', 'Ended']);

export const experimentShape = z.object({
  uid: z.string(),
  label: z.string(),
  segment: z.string().nullable().describe('only players of this segment join; null: everyone'),
  startDate: z.string().nullable().describe("the window's start, in the catalog's zone; null: none"),
  endDate: z.string().nullable().describe("the window's end, in the catalog's zone; null: none"),
  status: statusShape.describe('Scheduled before the window, Running within it, Ended after it'),
  variants: z.array(
    z.object({
      uid: z.string(),
      weight: z.number(),
      players: z.number().int().describe('the players who joined in this variant'),
    }),
  ),
});

const metricShape = z.object({
  mean: z.number().nullable().describe('over the variant’s players (a share for retention); null: no player counted'),
  difference: z.number().nullable().describe('mean minus the control’s; null for the control'),
  ci95: z.tuple([z.number(), z.number()]).nullable().describe('95% confidence interval of the difference'),
  pValue: z.number().nullable().describe("two-sided: Welch's t-test for means, a two-proportion z-test for shares"),
});

export const METRICS = [
  'actionsPerPlayer',
  'activeDaysPerPlayer',
  'pointsPerPlayer',
  'spentPerPlayer',
  'retention.d1',
  'retention.d7',
  'retention.d30',
] as const;
type Metric = (typeof METRICS)[number];

export const experimentResultsShape = z.object({
  experimentUid: z.string(),
  activePlayersByDay: z
    .array(z.object({ day: z.string().describe('YYYY-MM-DD'), players: z.record(z.string(), z.number().int()) }))
    .describe(
      "each day, in the players' calendars, with an action counted: the players of each variant (by uid) who acted that day; the last 366 such days",
    ),
  variants: z.array(
    z.object({
      uid: z.string(),
      players: z.number().int(),
      metrics: z.object(Object.fromEntries(METRICS.map((m) => [m, metricShape])) as Record<Metric, typeof metricShape>),
    }),
  ),
});

const statusAt = (e: ExperimentView, now: number): z.infer<typeof statusShape> =>
  e.startMs !== null && now < e.startMs ? 'Scheduled' : e.endMs !== null && now > e.endMs ? 'Ended' : 'Running';

/** What each of a player's figures counts (shared/read-models/experiments.ts). */
const MEANS: Record<Exclude<Metric, `retention.${string}`>, (m: ExperimentMemberDoc) => number> = {
  actionsPerPlayer: (m) => m.actions,
  activeDaysPerPlayer: (m) => Object.keys(m.days).length,
  pointsPerPlayer: (m) => m.points,
  spentPerPlayer: (m) => m.spent,
};
const RETENTION_DAYS = { 'retention.d1': 1, 'retention.d7': 7, 'retention.d30': 30 } as const;

type MetricValue = { mean: number | null } & Comparison;

/**
 * Each variant's metrics over its players, compared with the first variant's (the control): the
 * means by Welch's t-test; the retention on day N (a share of the players who joined at least N
 * days before today, in their calendar) by a two-proportion z-test.
 */
export function experimentResults(
  variants: readonly string[],
  members: readonly ExperimentMemberDoc[],
  now: number,
): { uid: string; players: number; metrics: Record<Metric, MetricValue> }[] {
  const byVariant = new Map<string, ExperimentMemberDoc[]>(variants.map((v) => [v, []]));
  for (const m of members) byVariant.set(m.variant, [...(byVariant.get(m.variant) ?? []), m]);
  const figures = [...byVariant].map(([uid, players]) => {
    const means = Object.fromEntries(
      Object.entries(MEANS).map(([name, of]) => [name, sampleOf(players.map(of))]),
    ) as Record<keyof typeof MEANS, ReturnType<typeof sampleOf>>;
    const retention = Object.fromEntries(
      Object.entries(RETENTION_DAYS).map(([name, n]) => {
        const eligible = players.filter((m) => periodOf(now, 'Day', m.timeZone) - m.joinDay >= n);
        return [name, { n: eligible.length, x: eligible.filter((m) => (m.days[m.joinDay + n] ?? 0) > 0).length }];
      }),
    ) as Record<keyof typeof RETENTION_DAYS, { n: number; x: number }>;
    return { uid, players: players.length, means, retention };
  });
  const control = figures[0];
  return figures.map((f, i) => {
    const metrics = {} as Record<Metric, MetricValue>;
    for (const name of Object.keys(MEANS) as (keyof typeof MEANS)[]) {
      const s = f.means[name];
      metrics[name] = {
        mean: s.n ? s.mean : null,
        ...(i === 0 ? NO_COMPARISON : welch(s, control.means[name])),
      };
    }
    for (const name of Object.keys(RETENTION_DAYS) as (keyof typeof RETENTION_DAYS)[]) {
      const r = f.retention[name];
      const c = control.retention[name];
      metrics[name] = {
        mean: r.n ? r.x / r.n : null,
        ...(i === 0 ? NO_COMPARISON : twoProportions(r.x, r.n, c.x, c.n)),
      };
    }
    return { uid: f.uid, players: f.players, metrics };
  });
}

/** The days at most the daily active players go back. */
const DAYS_SHOWN = 366;

/** Each day some member acted (their calendar's day), oldest first, with the players of each variant who did. */
export function activePlayersByDay(
  variants: readonly string[],
  members: readonly ExperimentMemberDoc[],
): { day: string; players: Record<string, number> }[] {
  const byDay = new Map<number, Record<string, number>>();
  for (const m of members)
    for (const day of Object.keys(m.days).map(Number)) {
      const players = byDay.get(day) ?? Object.fromEntries(variants.map((v) => [v, 0]));
      players[m.variant] = (players[m.variant] ?? 0) + 1;
      byDay.set(day, players);
    }
  return [...byDay.keys()]
    .sort((a, b) => a - b)
    .slice(-DAYS_SHOWN)
    .map((day) => ({ day: periodLabel(day, 'Day'), players: byDay.get(day)! }));
}

export function experimentRoutes(deps: ReadDeps): AnyRoute[] {
  const views = () => deps.store.collection<ViewDocument>(VIEW_COLLECTIONS.experiments);
  const members = () => deps.store.collection<ExperimentMemberDoc>(EXPERIMENT_MEMBERS_COLLECTION);
  return [
    defineRoute({
      method: 'GET',
      path: '/v1/admin/experiments',
      tiers: OPERATORS,
      doc: {
        operationId: 'experiments',
        summary: 'Every experiment of the catalog in force, with its status and the players who joined each variant',
        response: z.array(experimentShape),
        errors: {},
      },
      parse: () => ok({}),
      async handle() {
        const now = deps.now();
        const experiments = (await views().find({}, { sort: { order: 1 } })).map(
          (v) => v.detail as unknown as ExperimentView,
        );
        return ok(
          await Promise.all(
            experiments.map(async (e) => ({
              uid: e.uid,
              label: e.label,
              segment: e.segment,
              startDate: e.startDate,
              endDate: e.endDate,
              status: statusAt(e, now),
              variants: await Promise.all(
                e.variants.map(async (v) => ({
                  uid: v.uid,
                  weight: v.weight,
                  players: await members().countDocuments({ experiment: e.uid, variant: v.uid }),
                })),
              ),
            })),
          ),
        );
      },
    }),
    defineRoute<{ uid: string }>({
      method: 'GET',
      path: '/v1/admin/experiments/:uid/results',
      tiers: OPERATORS,
      doc: {
        operationId: 'experimentResults',
        summary:
          "What each variant of an experiment did against the control: players and each metric's mean, difference, 95% interval and p-value",
        response: experimentResultsShape,
        errors: documented(ERRORS.EXPERIMENT_NOT_FOUND),
      },
      parse: ({ params }) => ok({ uid: params.uid }),
      async handle({ uid }) {
        const view = await views().findOne({ _id: uid });
        if (!view) return refuse(ERRORS.EXPERIMENT_NOT_FOUND, uid);
        const experiment = view.detail as unknown as ExperimentView;
        const joined = await members().find({ experiment: uid });
        const variants = experiment.variants.map((v) => v.uid);
        return ok({
          experimentUid: uid,
          activePlayersByDay: activePlayersByDay(variants, joined),
          variants: experimentResults(variants, joined, deps.now()),
        });
      },
    }),
  ];
}
