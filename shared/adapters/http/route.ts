/** Routes as data: what each one accepts, who may call it, how it parses and answers; mounted on express. */
import type { Request, Response, Router } from 'express';
import type { z } from 'zod';
import type { ApiKey, Tier } from '../auth/keys';
import type { Logger } from '../logging/logger';
import { fail, failure, ok, type Failure, type Result } from '../../../domain/result';
import { NOT_YET_PROJECTED, sendData, sendDataInPieces, sendFailure } from './envelope';
import type { IdempotencyKey } from '../../../domain/events/idempotency-events';
import { IDEMPOTENCY_HEADER, idempotencyKeyOf, REPLAYED_HEADER } from './idempotency';
import { ERRORS, refuse } from '../../../domain/errors';
import { PLAYER_TOKEN_HEADER } from '../auth/player-tokens';

export interface RequestContext {
  correlationId: string;
  key: ApiKey;
  log: Logger;
  /** The request's Idempotency-Key (routes that change state), or null. */
  idempotency: IdempotencyKey | null;
  /** Aborted when the client closes its connection before the answer: a long run can stop then. */
  readonly signal: AbortSignal;
}

/** What a request brings, before validation. `body` is undefined when absent. */
export interface RawInput {
  body: unknown;
  params: Record<string, string>;
  query: Record<string, unknown>;
  header(name: string): string | undefined;
}

/**
 * A handler's answer; `position` is the global position of what a write appended; `replayed`
 * marks the recorded answer of an earlier request with the same Idempotency-Key.
 */
export type Reply =
  | (Result<unknown> & { position?: number; replayed?: true })
  | { ok: true; value: undefined; position?: number; replayed?: true };

/** What the OpenAPI document says of a route (shared/adapters/http/openapi.ts). */
export interface RouteDoc {
  /** The operation's name, unique in the API: the OpenAPI operationId and the SDK's method (`processAction`). */
  operationId: string;
  summary: string;
  /** The JSON body of a POST. */
  body?: z.ZodType;
  /** Query parameters: an object schema of strings. */
  query?: z.ZodObject;
  /** `data` of a success; absent when a success carries none. */
  response?: z.ZodType;
  /** The endpoint's own error codes and their meaning here (auth, limit and fault codes are added). */
  errors: Readonly<Record<number, string>>;
  /** Other forms a success may take than the JSON envelope (a TextAnswer): media type -> when and what. */
  texts?: Readonly<Record<string, string>>;
}

/** A success answered as text of its own media type rather than in the JSON envelope (a CSV file). */
export class TextAnswer {
  constructor(
    readonly mediaType: string,
    readonly body: string,
    /** Offered to a browser as the name to save it under. */
    readonly filename: string,
  ) {}
}

/**
 * A success whose data is written in pieces, each on its own turn of the event loop, so that one
 * long answer (a player's export) never holds up the others: the pieces joined are the data's JSON.
 */
export class DataInPieces {
  constructor(readonly pieces: Iterable<string>) {}
}

/** The largest request body a POST may send, unless its route allows more (`maxBodyBytes`). */
export const MAX_BODY_BYTES = 64 * 1024;

interface RouteBase<Input> {
  method: 'GET' | 'POST';
  path: string;
  tiers: readonly Tier[];
  doc: RouteDoc;
  /**
   * A player's own view: the player a request reads. A Client key may read it with that player's
   * token in X-Player-Token (4005, 4006, 4007), even where its tier alone may not.
   */
  playerOf?: (input: Input) => string;
  /** process and delete accept nested `actions`, which a Client key may not send (4004). */
  acceptsNestedActions?: boolean;
  /** Counted against the key's rate limit (action submission). */
  rateLimited?: boolean;
  /** Changes state: takes an Idempotency-Key (docs/api.md, "Safe retries"). */
  idempotent?: boolean;
  /** A POST whose body may exceed the default limit (MAX_BODY_BYTES): its own, in bytes. Static paths only. */
  maxBodyBytes?: number;
  parse(input: RawInput): Result<Input>;
}

/** A route answering one JSON envelope. */
export interface JsonRoute<Input> extends RouteBase<Input> {
  handle(input: Input, ctx: RequestContext): Promise<Reply>;
}

/** One Server-Sent Event: `id` lets a client resume after it (`Last-Event-ID`). */
export interface LiveMessage {
  id: string;
  event: string;
  data: unknown;
}

/** A route answering a stream of Server-Sent Events, until the client goes (`signal` aborts then). */
export interface LiveRoute<Input> extends RouteBase<Input> {
  live(input: Input, ctx: RequestContext, signal: AbortSignal): AsyncIterable<LiveMessage>;
}

export type Route<Input> = JsonRoute<Input> | LiveRoute<Input>;

// Erases the input type so routes of different inputs sit in one list.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each route's parse and handle agree on its input; the list cannot name them all
export type AnyRoute = Route<any>;

export const defineRoute = <Input>(route: Route<Input>): Route<Input> => route;

/** Requests with a body: absent, not JSON or not an object is 1001 "Payload is null". */
export function requireObject(body: unknown): Result<Record<string, unknown>> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    return refuse(ERRORS.PAYLOAD_NULL);
  }
  return ok(body as Record<string, unknown>);
}

/** Validates a body with zod; the first problem names its field. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, code = 1001): Result<z.infer<S>> {
  const result = schema.safeParse(value);
  if (result.success) return ok(result.data);
  const issue = result.error.issues[0];
  const field = issue.path
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
  return fail(code, field ? `${field}: ${issue.message}` : issue.message);
}

export function parseBody<S extends z.ZodType>(schema: S): (input: RawInput) => Result<z.infer<S>> {
  return (input) => {
    const body = requireObject(input.body);
    return body.ok ? parseWith(schema, body.value) : body;
  };
}

export interface RouteDeps {
  authorize(
    req: Request,
    tiers: readonly Tier[],
    sendsNestedActions: boolean,
  ): { ok: true; key: ApiKey } | { ok: false; failure: Failure };
  /** The player an X-Player-Token is for, or why it is refused (4005, 4006); without it, every token is refused (4005). */
  playerToken?(token: string): Result<string>;
  rateLimit(key: ApiKey): Promise<Failure | null>;
  /** After a write: in the all-in-one process, wait until the read models show it. */
  afterWrite(position: number): Promise<void>;
  /** Before a read: wait (bounded) until the given position is projected; false if it was not in time. */
  waitForPosition(position: number): Promise<boolean>;
  log: Logger;
  /** Aborted when the process begins to shut down: live streams end then, rather than holding the shutdown open. */
  shutdown?: AbortSignal;
}

/** Live streams (Server-Sent Events) one API key may hold open at once in a process: each holds a connection and a reader of the log. */
export const MAX_LIVE_STREAMS_PER_KEY = 5;

/** Serves one request of a route, whose body (a POST's) the shell has parsed; rejects with what the error handler answers. */
export type RouteHandler = (req: Request, res: Response) => Promise<void>;

/** Each route's handler, in the routes' order; they share the count of live streams per key. */
export function routeHandlers(
  routes: readonly AnyRoute[],
  deps: RouteDeps,
): { route: AnyRoute; serve: RouteHandler }[] {
  /** Live streams open, by API key name. */
  const liveStreams = new Map<string, number>();
  return routes.map((route) => ({ route, serve: routeHandler(route, deps, liveStreams) }));
}

export function mountRoutes(router: Router, handlers: readonly { route: AnyRoute; serve: RouteHandler }[]): void {
  for (const { route, serve } of handlers) {
    if (route.method === 'GET') router.get(route.path, serve);
    else router.post(route.path, serve);
  }
}

function routeHandler(route: AnyRoute, deps: RouteDeps, liveStreams: Map<string, number>): RouteHandler {
  return async (req: Request, res: Response) => {
    const correlationId = res.locals.correlationId as string;
    const bodyError = res.locals.bodyError as Failure | undefined;
    const body: unknown = route.method === 'POST' ? req.body : undefined;
    const nested = route.acceptsNestedActions === true && isObject(body) && body.actions !== undefined;
    const auth = deps.authorize(req, tiersOf(route), nested);
    if (!auth.ok) return sendFailure(res, auth.failure);
    res.locals.keyName = auth.key.name;
    const token = playerTokenOf(req, route, auth.key, deps);
    if (!token.ok) return sendFailure(res, token.failure);
    if (bodyError && route.method === 'POST') {
      return sendFailure(res, bodyError, (res.locals.bodyErrorStatus as number | undefined) ?? 400);
    }
    if (route.rateLimited) {
      const limited = await deps.rateLimit(auth.key);
      if (limited) return sendFailure(res, limited);
    }
    const parsed = route.parse({
      body,
      params: req.params as Record<string, string>,
      query: req.query,
      header: (name) => req.get(name),
    });
    if (!parsed.ok) return sendFailure(res, parsed.failure);
    if (token.value !== null && route.playerOf!(parsed.value) !== token.value)
      return sendFailure(res, failure(ERRORS.PLAYER_TOKEN_OTHER_PLAYER.code, ERRORS.PLAYER_TOKEN_OTHER_PLAYER.message));
    const minPosition = Number(req.get('X-Min-Position'));
    if (
      route.method === 'GET' &&
      Number.isSafeInteger(minPosition) &&
      minPosition > 0 &&
      !(await deps.waitForPosition(minPosition))
    ) {
      // Never an answer older than the client asked for: it may retry, or read without the header.
      return sendFailure(res, {
        ...failure(503, `${NOT_YET_PROJECTED}: position ${minPosition} is not projected yet; retry`),
        retryAfterSeconds: 1,
      });
    }
    const idempotency = route.idempotent
      ? idempotencyKeyOf(req.get(IDEMPOTENCY_HEADER), auth.key.name, route.method, route.path, body)
      : ok(null);
    if (!idempotency.ok) return sendFailure(res, idempotency.failure);
    // The request's logger is made when a handler first logs: most never do.
    let log: Logger | undefined;
    // Made when a handler first asks: most never do.
    let signal: AbortSignal | undefined;
    const key = auth.key;
    const ctx: RequestContext = {
      correlationId,
      key,
      get log() {
        return (log ??= deps.log.child({ correlationId, keyName: key.name }));
      },
      idempotency: idempotency.value,
      get signal() {
        return (signal ??= abortedBeforeAnswer(req, res));
      },
    };
    if ('live' in route) {
      const open = liveStreams.get(key.name) ?? 0;
      if (open >= MAX_LIVE_STREAMS_PER_KEY)
        return sendFailure(res, {
          ...failure(
            429,
            `Too many live streams: at most ${MAX_LIVE_STREAMS_PER_KEY} open at once per API key; close one first`,
          ),
          retryAfterSeconds: 1,
        });
      liveStreams.set(key.name, open + 1);
      try {
        const ended = abortedWith(req, deps.shutdown);
        await sendLive(req, res, route.live(parsed.value, ctx, ended), deps.log);
        // Ended by a shutdown: the connection closes with its stream, so the server's close need not wait for the client.
        if (deps.shutdown?.aborted) req.socket.destroySoon();
        return;
      } finally {
        const left = (liveStreams.get(key.name) ?? 1) - 1;
        if (left === 0) liveStreams.delete(key.name);
        else liveStreams.set(key.name, left);
      }
    }
    const reply = await route.handle(parsed.value, ctx);
    if (reply.position !== undefined) {
      res.setHeader('X-Position', String(reply.position));
      await deps.afterWrite(reply.position);
    }
    if (reply.replayed || (!reply.ok && reply.failure.replayed)) res.setHeader(REPLAYED_HEADER, 'true');
    if (!reply.ok) return sendFailure(res, reply.failure);
    if (reply.value instanceof TextAnswer) return sendText(res, reply.value);
    if (reply.value instanceof DataInPieces) return sendDataInPieces(res, reply.value.pieces);
    sendData(res, reply.value);
  };
}

/** The tiers whose keys may call a route: a player's own view adds Client keys, which then need the player's token. */
export const tiersOf = (route: AnyRoute): readonly Tier[] =>
  route.playerOf && !route.tiers.includes('Client') ? [...route.tiers, 'Client'] : route.tiers;

/**
 * The player a Client key's request may read, by its X-Player-Token (null: any the key's tier may):
 * on a player's own view, a token is checked whenever it is sent, and needed where the tier alone
 * may not read (4003). Other keys, and other routes, ignore the header.
 */
function playerTokenOf(req: Request, route: AnyRoute, key: ApiKey, deps: RouteDeps): Result<string | null> {
  if (key.tier !== 'Client' || !route.playerOf) return ok(null);
  const token = req.get(PLAYER_TOKEN_HEADER);
  if (token) return deps.playerToken?.(token) ?? refuse(ERRORS.PLAYER_TOKEN_INVALID);
  if (route.tiers.includes('Client')) return ok(null);
  return fail(
    4003,
    `Auth tier Client may read this player view only with the player's token in ${PLAYER_TOKEN_HEADER}`,
  );
}

function sendText(res: Response, answer: TextAnswer): void {
  res.status(200).set({
    'Content-Type': `${answer.mediaType}; charset=utf-8`,
    'Content-Disposition': `attachment; filename="${answer.filename}"`,
  });
  res.send(answer.body);
}

/**
 * A signal aborted when the connection closes before the answer has been sent (the client
 * left). The response's close, not the socket's: a kept-alive socket outlives the request.
 */
function abortedBeforeAnswer(req: Request, res: Response): AbortSignal {
  const controller = new AbortController();
  if (req.socket.destroyed) controller.abort();
  else
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
  return controller.signal;
}

/** A signal aborted when the client closes its connection. */
function abortedWith(req: Request, shutdown: AbortSignal | undefined): AbortSignal {
  const controller = new AbortController();
  req.socket.once('close', () => controller.abort());
  return shutdown ? AbortSignal.any([controller.signal, shutdown]) : controller.signal;
}

/** How often a quiet event stream sends a comment, so proxies and clients keep the connection. */
const KEEPALIVE_MS = 15_000;
/**
 * How long a live client may leave what was sent to it unread before it is dropped. A stream
 * writes its next message only once the last one has left the process (the socket drained), so
 * what a client holds queued here is at most a socket buffer and one message, however far behind
 * it is; a client that reads nothing for this long holds a connection for nothing.
 */
export const LIVE_STALL_MS = 30_000;

/** Server-Sent Events: each message as the client takes it, a comment while quiet, until the stream or the client ends. */
async function sendLive(req: Request, res: Response, messages: AsyncIterable<LiveMessage>, log: Logger): Promise<void> {
  res.status(200).set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  // Only into an empty buffer: a client that is not reading needs no more bytes queued for it.
  const keepalive = setInterval(() => res.writableLength === 0 && res.write(': keepalive\n\n'), KEEPALIVE_MS);
  try {
    for await (const m of messages) {
      if (req.socket.destroyed) break;
      if (res.write(`id: ${m.id}\nevent: ${m.event}\ndata: ${JSON.stringify(m.data)}\n\n`)) continue;
      if (!(await drained(res, LIVE_STALL_MS))) {
        log.warn(
          {
            correlationId: res.locals.correlationId,
            keyName: res.locals.keyName,
            queuedBytes: res.writableLength,
            stalledMs: LIVE_STALL_MS,
          },
          'live stream dropped: its client read nothing for too long',
        );
        res.destroy();
        break;
      }
    }
  } finally {
    clearInterval(keepalive);
    if (!res.destroyed) res.end();
  }
}

/** Resolves true once the response's queued bytes have left (or the connection closed), false if they have not after `timeoutMs`. */
function drained(res: Response, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (value: boolean) => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      res.off('close', onDrain);
      resolve(value);
    };
    const onDrain = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    res.once('drain', onDrain);
    res.once('close', onDrain);
  });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
