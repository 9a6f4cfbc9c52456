/**
 * `createClient({ baseUrl, key })`: one method per operation of the service's OpenAPI document,
 * named by its operationId and typed by the types generated from it (src/generated/), requests
 * made by openapi-fetch. A method answers the `data` of the success envelope, or throws a
 * GamificationError carrying the service's code.
 */
import createFetchClient from 'openapi-fetch';
import type { Client } from 'openapi-fetch';
import { errorOf } from './errors.ts';
import { subscribe, type FeedEvent, type FeedFilter, type SubscribeOptions, type Subscription } from './feed.ts';
import type { operations, paths } from './generated/openapi.ts';
import { OPERATIONS } from './generated/operations.ts';
import { retryingFetch, type RetryPolicy } from './retry.ts';

export interface ClientOptions {
  /** Where the service answers: `https://games.example.com` (no trailing path). */
  baseUrl: string;
  /** An API key of the service's keys file; a Client-tier key in a browser. */
  key: string;
  /** Client-tier keys outside a browser: the tenant domain the requests are made for (a browser sends its Origin). */
  tenantDomain?: string;
  /**
   * A Client-tier key's token of one player (`playerToken` of a Server key's client, which the
   * back end hands to its page): with it the key reads that player's own views (profile, streaks,
   * missions), sent as X-Player-Token.
   */
  playerToken?: string;
  /** How requests are retried (attempts and total time; see RetryPolicy). */
  retry?: RetryPolicy;
  /** Another fetch (a test's, one with a proxy agent); default the global one. */
  fetch?: typeof fetch;
}

/** Per call. */
export interface CallOptions {
  /** A write's Idempotency-Key, to retry it yourself later as the same request; default a fresh UUID per call. */
  idempotencyKey?: string;
  /** A write's X-Position: the read waits until the read models show it (read your own writes). */
  minPosition?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** The operations answered with a JSON envelope: the live feed has its own method, `feed.subscribe`. */
export type OperationId = Exclude<keyof operations & keyof typeof OPERATIONS, 'feedLive'>;

type Json<C> = C extends { content: { 'application/json': infer T } } ? T : never;
/** The JSON body of an operation, or never. */
export type BodyOf<K extends OperationId> = Json<operations[K]['requestBody']>;
type Present<T> = [NonNullable<T>] extends [never] ? object : NonNullable<T>;
/** Path and query parameters of an operation, in one object: `{ leaderboardID, top }`. */
export type ParamsOf<K extends OperationId> = Present<operations[K]['parameters']['path']> &
  Present<operations[K]['parameters']['query']>;
/** What an operation's success carries in `data`. */
export type DataOf<K extends OperationId> =
  Extract<Json<operations[K]['responses'][200]>, { code: 200 }> extends { data: infer D } ? D : undefined;

type Call<K extends OperationId> = [BodyOf<K>] extends [never]
  ? object extends ParamsOf<K>
    ? (params?: ParamsOf<K>, options?: CallOptions) => Promise<DataOf<K>>
    : (params: ParamsOf<K>, options?: CallOptions) => Promise<DataOf<K>>
  : (body: BodyOf<K>, options?: CallOptions) => Promise<DataOf<K>>;

export type Operations = { [K in OperationId]: Call<K> };

export interface GamificationClient extends Operations {
  feed: {
    /** The events after `from` as they are recorded, through drops and restarts, until close(). */
    subscribe(
      filter: FeedFilter,
      onEvent: (event: FeedEvent) => void | Promise<void>,
      options?: SubscribeOptions,
    ): Subscription;
  };
  /** The openapi-fetch client underneath, by path (`raw.GET('/v1/admin/leaderboards')`), for what the methods do not show (headers). */
  raw: Client<paths>;
}

export function createClient(options: ClientOptions): GamificationClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const headers: Record<string, string> = {
    AuthKey: options.key,
    ...(options.tenantDomain ? { 'X-Tenant-Domain': options.tenantDomain } : {}),
    ...(options.playerToken ? { 'X-Player-Token': options.playerToken } : {}),
  };
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const raw = createFetchClient<paths>({ baseUrl, headers, fetch: retryingFetch(fetchImpl, options.retry) });

  const methods = Object.fromEntries(
    Object.entries(OPERATIONS)
      .filter(([id]) => id !== 'feedLive')
      .map(([id, op]) => [id, (input?: Record<string, unknown>, call: CallOptions = {}) => send(op, input, call)]),
  );

  async function send(
    op: (typeof OPERATIONS)[keyof typeof OPERATIONS],
    input: Record<string, unknown> | undefined,
    call: CallOptions,
  ): Promise<unknown> {
    const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const path: Record<string, unknown> = {};
    const query: Record<string, unknown> = {};
    if (op.method === 'GET')
      for (const [name, value] of Object.entries(input ?? {})) (names.includes(name) ? path : query)[name] = value;
    const init = {
      params: { path, query },
      ...(op.method === 'POST' ? { body: input ?? {} } : {}),
      headers: {
        ...(op.idempotent ? { 'Idempotency-Key': call.idempotencyKey ?? crypto.randomUUID() } : {}),
        ...(call.minPosition !== undefined ? { 'X-Min-Position': String(call.minPosition) } : {}),
        ...call.headers,
      },
      signal: call.signal,
    };
    // The path and method come from the generated table, so their pairing is the document's own.
    const { data, error, response } = await (
      raw.request as (
        m: string,
        p: string,
        i: unknown,
      ) => Promise<{ data?: unknown; error?: unknown; response: Response }>
    )(op.method, op.path, init);
    if (!response.ok) throw errorOf(response, error);
    const envelope = data as { code: number; data?: unknown };
    // Informational codes (5002 "already exists") come with 200.
    if (envelope.code !== 200) throw errorOf(response, envelope);
    return envelope.data;
  }

  return {
    ...(methods as unknown as Operations),
    feed: {
      subscribe: (filter, onEvent, subscribeOptions) =>
        subscribe({ baseUrl, headers, fetch: fetchImpl }, filter, onEvent, subscribeOptions),
    },
    raw,
  };
}
