/**
 * GET /v1/feed/events and /v1/feed/live: the global log for analysts, after a position, paged or
 * as a live tail (Server-Sent Events, resumable with Last-Event-ID = the position).
 */
import { setImmediate } from 'node:timers/promises';
import { z } from 'zod';
import { OPERATORS } from '../../shared/adapters/auth/access';
import { PositionNotInLogError, type EventStore } from '../../shared/adapters/event-store/port';
import { EVENT_SCHEMAS } from '../../domain/events';
import {
  defineRoute,
  parseWith,
  type AnyRoute,
  type LiveMessage,
  type RawInput,
} from '../../shared/adapters/http/route';
import { auditEventShape } from '../../shared/adapters/http/wire-shapes';
import { fail, ok, type Result } from '../../domain/result';
import { STREAM_KINDS, type StreamKind } from '../../domain/streams';
import { feedPage, feedRecord, matches, type FeedFilter } from './records';

export const DEFAULT_FEED_PAGE = 100;
export const MAX_FEED_PAGE = 1000;
/** Events one page request reads at most, matching or not. */
const SCAN_LIMIT = 10_000;
/** How often the live tail looks for new events. */
const LIVE_POLL_MS = 200;
/** Events the live tail reads at once: a stalled client holds at most this many read and unsent. */
const LIVE_PAGE = 200;

const position = z
  .string()
  .regex(/^\d+$/, 'must be a log position (a whole number)')
  .transform(Number)
  .pipe(z.number().int().max(Number.MAX_SAFE_INTEGER, 'must be a log position'));
const list = <T extends string>(known: readonly T[], what: string) =>
  z
    .string()
    .transform((text) =>
      text
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(
          z.enum(known as [T, ...T[]], {
            error: (issue) => `${String(issue.input)} is not ${what} (one of ${known.join(', ')})`,
          }),
        )
        .min(1, `must name at least one ${what.replace(/^an? /, '')}; leave it out for all`),
    );

const EVENT_TYPES = Object.keys(EVENT_SCHEMAS) as (keyof typeof EVENT_SCHEMAS)[];

const feedQuery = z.object({
  after: position.optional().describe('read the events after this position (exclusive); default: from the start'),
  limit: z
    .string()
    .regex(/^\d+$/, `must be a whole number from 1 to ${MAX_FEED_PAGE}`)
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(1, `must be a whole number from 1 to ${MAX_FEED_PAGE}`)
        .max(MAX_FEED_PAGE, `must be a whole number from 1 to ${MAX_FEED_PAGE}`),
    )
    .optional(),
  types: list(EVENT_TYPES, 'an event type').optional().describe('comma-separated event types; default: all'),
  streams: list(STREAM_KINDS, 'a stream kind')
    .optional()
    .describe('comma-separated stream kinds (player, reference, provision, ...); default: all'),
});

const liveQuery = feedQuery.omit({ limit: true });

const FEED_ERRORS = {
  1001: 'after, limit, types or streams is malformed (the message names it), or after is not a position of the log (on KurrentDB: one the feed did not give, further back than its last 1000 events)',
};

interface FeedInput {
  after: number;
  filter: FeedFilter;
}

function filterOf(q: { types?: string[]; streams?: StreamKind[] }): FeedFilter {
  return { ...(q.types ? { types: new Set(q.types) } : {}), ...(q.streams ? { streams: new Set(q.streams) } : {}) };
}

function parseLive(input: RawInput, lastEventId: string | undefined): Result<FeedInput> {
  const q = parseWith(liveQuery, input.query);
  if (!q.ok) return q;
  // A reconnecting EventSource sends the last id it received: it resumes after it, checked as `after` is.
  const resumed = lastEventId === undefined ? ok(undefined) : parseWith(position, lastEventId);
  if (!resumed.ok) return fail(1001, `Last-Event-ID: ${resumed.failure.message}`);
  return ok({ after: resumed.value ?? q.value.after ?? 0, filter: filterOf(q.value) });
}

/**
 * Waits `ms`, or less if the client goes. The listener leaves with the wait: a stream polls five
 * times a second for as long as its client stays, and listeners left on its signal added up.
 */
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

export function feedRoutes(deps: { events: EventStore }): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/v1/feed/events',
      tiers: OPERATORS,
      doc: {
        operationId: 'feedEvents',
        summary:
          'The global event log after a position, a page at a time, filtered by event type and stream kind; `next` is the `after` of the next page',
        query: feedQuery,
        response: z.object({
          events: z.array(auditEventShape),
          next: z.number().int().describe('the position to read after for the next page'),
          head: z.number().int().describe('the last position in the log now'),
        }),
        errors: FEED_ERRORS,
      },
      parse: ({ query }) => {
        const q = parseWith(feedQuery, query);
        return q.ok
          ? ok({ after: q.value.after ?? 0, limit: q.value.limit ?? DEFAULT_FEED_PAGE, filter: filterOf(q.value) })
          : q;
      },
      async handle({ after, limit, filter }) {
        const head = await deps.events.headPosition();
        try {
          const { records, next } = await feedPage(deps.events, after, filter, limit, SCAN_LIMIT);
          return ok({ events: records, next, head });
        } catch (error) {
          if (error instanceof PositionNotInLogError) return fail(1001, `after: ${error.message}`);
          throw error;
        }
      },
    }),
    {
      method: 'GET',
      path: '/v1/feed/live',
      tiers: OPERATORS,
      doc: {
        operationId: 'feedLive',
        summary:
          'The same records as a live tail: Server-Sent Events, one per event (`id` its position, `event` its type), from `after` or from Last-Event-ID when reconnecting',
        query: liveQuery,
        errors: FEED_ERRORS,
      },
      parse: (input: RawInput) => parseLive(input, input.header('Last-Event-ID')),
      async *live({ after, filter }: FeedInput, _ctx, signal: AbortSignal): AsyncIterable<LiveMessage> {
        let position = after;
        while (!signal.aborted) {
          let page;
          try {
            page = await deps.events.readAll({ fromPosition: position, maxCount: LIVE_PAGE });
          } catch (error) {
            // Answered 200 already: a position the log does not know ends the stream.
            if (error instanceof PositionNotInLogError) return;
            throw error;
          }
          for (const event of page) {
            position = event.position;
            if (matches(event, filter))
              yield { id: String(event.position), event: event.type, data: feedRecord(event) };
          }
          // Between pages, other requests run: a client catching up on a long log takes turns.
          if (page.length < LIVE_PAGE) await sleep(LIVE_POLL_MS, signal);
          else await setImmediate();
        }
      },
    },
  ];
}
