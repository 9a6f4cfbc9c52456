/** GET /v1/admin/analytics/:series: a daily series of the analytics read model, as JSON or CSV (Server and Auditor keys). */
import { z } from 'zod';
import { OPERATORS } from '../../shared/adapters/auth/access';
import { defineRoute, parseWith, TextAnswer, type AnyRoute } from '../../shared/adapters/http/route';
import {
  ANALYTICS_COLLECTIONS,
  isSplitSeries,
  SERIES,
  type DayDoc,
  type Series,
} from '../../shared/read-models/analytics';
import type { ReadStore } from '../../shared/adapters/read-store/port';
import { fail, ok } from '../../domain/result';
import { DAY_MS, isCalendarDate } from '../../domain/time';

/** Days one request may cover at most: a year, leap day included. */
export const MAX_DAYS = 366;

const calendarDay = (field: string) =>
  z
    .string({ error: 'required, a day as YYYY-MM-DD' })
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day as YYYY-MM-DD')
    .refine((day) => isCalendarDate(...(day.split('-').map(Number) as [number, number, number])), 'not a real day')
    .meta({
      description: `The ${field === 'from' ? 'first' : 'last'} day (included), YYYY-MM-DD in the catalog's time zone`,
      format: 'date',
    });

const analyticsQuery = z.object({
  from: calendarDay('from'),
  to: calendarDay('to'),
  format: z
    .enum(['json', 'csv'], { error: 'must be json or csv' })
    .meta({ description: 'csv: a text/csv file with a header row, for a spreadsheet' })
    .optional(),
});

const pointShape = z.object({ day: z.string().meta({ description: 'YYYY-MM-DD' }), value: z.number() });
const keyedPointShape = pointShape.extend({
  key: z.string().meta({
    description: 'An action name; a badge, level or bundle uid; or `deliverable uid:granted|spent|refunded|expired`',
  }),
});
const seriesShape = z.object({
  series: z.enum(SERIES),
  from: z.string(),
  to: z.string(),
  points: z.array(z.union([keyedPointShape, pointShape])).meta({
    description:
      'Every day from `from` to `to`, 0 where nothing happened; split series: every key seen in the range on every day, by day then key',
  }),
});

const SERIES_DOC = [
  '`actions`: actions processed (a reversal does not remove them)',
  '`actions-by-action`: the same per action name',
  '`active-players`: distinct players with an action',
  '`new-players`: players registered',
  '`points`: points earned (actions, awards, chests) less those reversals took back, plus or less support adjustments',
  '`deliverables`: per `uid:granted`, `uid:spent`, `uid:refunded`, `uid:expired`, `uid:adjusted`',
  '`badges`: badge awards per badge uid (less those reversals took back)',
  '`levels`: levels reached per level uid',
  '`purchases`: bundles bought per bundle uid',
  '`chest-openings`: chests opened',
  '`reversals`: actions reversed, on the day of the reversal',
  '`adjustments`: support adjustments made',
].join('; ');

const dayStartMs = (day: string): number => Date.parse(`${day}T00:00:00Z`);

/** How many days from `from` to `to`, both included: counted, not listed, so an absurd range costs nothing. */
const spanInDays = (from: string, to: string): number => (dayStartMs(to) - dayStartMs(from)) / DAY_MS + 1;

/** The days from `from` to `to`, both included, as YYYY-MM-DD: only for a range within MAX_DAYS. */
function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let ms = dayStartMs(from); ms <= dayStartMs(to); ms += DAY_MS)
    days.push(new Date(ms).toISOString().slice(0, 10));
  return days;
}

/** A CSV field: quoted when it holds a comma, quote or line break. */
const csvField = (value: string | number): string =>
  typeof value === 'string' && /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : String(value);

interface AnalyticsInput {
  series: Series;
  from: string;
  to: string;
  days: string[];
  format: 'json' | 'csv';
}

export function analyticsRoute(deps: { store: ReadStore }): AnyRoute {
  return defineRoute<AnalyticsInput>({
    method: 'GET',
    path: '/v1/admin/analytics/:series',
    tiers: OPERATORS,
    doc: {
      operationId: 'analytics',
      summary: `A daily series over at most ${MAX_DAYS} days, in the catalog's time zone. The series: ${SERIES_DOC}`,
      query: analyticsQuery,
      response: seriesShape,
      texts: {
        'text/csv':
          'With format=csv: a header row `day,value` (`day,key,value` for a split series), then a row per point',
      },
      errors: {
        1001: `Unknown series, a day missing or malformed, \`to\` before \`from\`, more than ${MAX_DAYS} days, or a format other than json or csv`,
      },
    },
    parse({ params, query }) {
      const series = params.series as Series;
      if (!(SERIES as readonly string[]).includes(series))
        return fail(1001, `Unknown series ${params.series}: one of ${SERIES.join(', ')}`);
      const q = parseWith(analyticsQuery, query);
      if (!q.ok) return q;
      const { from, to, format = 'json' } = q.value;
      if (to < from) return fail(1001, `to (${to}) is before from (${from})`);
      // The span is checked before any day is listed: 0001-01-01 to 9999-12-31 would be 3.65 million.
      const span = spanInDays(from, to);
      if (span > MAX_DAYS) return fail(1001, `${span} days from ${from} to ${to}: at most ${MAX_DAYS} a request`);
      return ok({ series, from, to, days: daysBetween(from, to), format });
    },
    async handle({ series, from, to, days, format }) {
      const docs = new Map(
        (await deps.store.collection<DayDoc>(ANALYTICS_COLLECTIONS.days).find({ _id: { $in: days } })).map((d) => [
          d._id,
          d,
        ]),
      );
      let points: { day: string; key?: string; value: number }[];
      if (isSplitSeries(series)) {
        const values = days.map((day) => new Map(docs.get(day)?.split[series] ?? []));
        const keys = [...new Set(values.flatMap((v) => [...v.keys()]))].sort();
        points = days.flatMap((day, i) => keys.map((key) => ({ day, key, value: values[i].get(key) ?? 0 })));
      } else {
        points = days.map((day) => ({ day, value: docs.get(day)?.totals[series] ?? 0 }));
      }
      if (format === 'json') return ok({ series, from, to, points });
      const header = isSplitSeries(series) ? 'day,key,value' : 'day,value';
      const rows = points.map((p) => [p.day, ...(p.key === undefined ? [] : [p.key]), p.value].map(csvField).join(','));
      return ok(new TextAnswer('text/csv', [header, ...rows].join('\r\n') + '\r\n', `${series}_${from}_${to}.csv`));
    },
  });
}
