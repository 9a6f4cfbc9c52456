/**
 * The OpenAPI 3.1 document of the routes a process serves, generated from their zod schemas and
 * error tables (shown at /docs by shared/adapters/http/reference). Each error code sits under the HTTP
 * status it is sent with (envelope.ts), and the shapes and headers every route shares are
 * components, referenced, so SDK generators make one type of each.
 */
import { z } from 'zod';
import { httpStatusOf, NOT_YET_PROJECTED } from './envelope';
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from './idempotency';
import { MAX_BODY_BYTES, MAX_LIVE_STREAMS_PER_KEY, tiersOf, type AnyRoute } from './route';
import { documented, ERRORS } from '../../../domain/errors';
import { PLAYER_TOKEN_HEADER } from '../auth/player-tokens';

type JsonSchema = Record<string, unknown>;
type Codes = Record<number, string>;

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
};

const ref = (kind: 'schemas' | 'headers' | 'parameters', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** The failure envelope, narrowed to the codes one response may carry. */
const failureOf = (codes: Codes): JsonSchema => ({
  allOf: [
    ref('schemas', 'Failure'),
    { type: 'object', properties: { code: { enum: Object.keys(codes).map(Number) } } },
  ],
});

const describeCodes = (codes: Codes) =>
  Object.entries(codes)
    .map(([code, meaning]) => `${code}: ${meaning}`)
    .join('; ');

/** Codes every authenticated endpoint may answer (docs/api.md, "Envelope and statuses" and "Auth"). */
const AUTH_FAILURES: Codes = {
  4001: 'Invalid AuthKey: missing or unknown key',
  4002: 'Missing tenant domain (Client-tier keys)',
  4003: 'Auth tier not allowed, or tenant domain not one of the key\u2019s',
};
const NESTED_FAILURE: Codes = { 4004: 'Nested actions not allowed for Client tier' };
/** A player's own view, read by a Client key with the player's token (shared/adapters/auth/player-tokens.ts). */
const PLAYER_TOKEN_FAILURES: Codes = documented(
  ERRORS.PLAYER_TOKEN_INVALID,
  ERRORS.PLAYER_TOKEN_EXPIRED,
  ERRORS.PLAYER_TOKEN_OTHER_PLAYER,
);
const FAULTS: Codes = {
  500: 'Internal error (no details are given)',
  503: 'A backing store is not answering, or too many concurrent changes to one stream; retry later',
};
/** Any POST may write; a write the store could not confirm (docs/api.md, "Safe retries"). */
const OUTCOME_UNKNOWN = `${ERRORS.OUTCOME_UNKNOWN.message} (the store did not confirm the write: it may have been done)`;
const MALFORMED_PATH = 'the URL is malformed (a path segment that is not valid percent-encoding)';

/** 65536 -> `64 KiB`, 4194304 -> `4 MiB`. */
const sizeOf = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`;

/** Every code a route may answer, by the HTTP status it is sent with. */
function codesByStatus(route: AnyRoute): Map<string, Codes> {
  const own: Codes = { ...route.doc.errors };
  if (route.idempotent) {
    own[1001] = `${own[1001] ?? 'Payload is null'}; or the ${IDEMPOTENCY_HEADER} header is malformed`;
    own[1003] = `${IDEMPOTENCY_HEADER} was already used for a different request`;
  }
  // Every POST body is parsed, even where the route reads none: one that is not JSON is refused.
  if (route.method === 'POST') own[1001] ??= 'Payload is null: the body is not valid JSON';
  if (route.path.includes(':'))
    own[1001] = own[1001] ? `${own[1001]}; or ${MALFORMED_PATH}` : `Bad request: ${MALFORMED_PATH}`;
  const auth: Codes = {
    ...AUTH_FAILURES,
    ...(route.acceptsNestedActions ? NESTED_FAILURE : {}),
    ...(route.playerOf ? PLAYER_TOKEN_FAILURES : {}),
  };
  const faults: Codes =
    route.method === 'GET'
      ? { ...FAULTS, 503: `${FAULTS[503]}; or ${NOT_YET_PROJECTED}: the X-Min-Position was not projected in time` }
      : { ...FAULTS, [ERRORS.OUTCOME_UNKNOWN.code]: OUTCOME_UNKNOWN };
  const limited: Codes = route.rateLimited
    ? { 429: 'Too many requests: the key\u2019s rate limit' }
    : 'live' in route
      ? { 429: `Too many live streams: at most ${MAX_LIVE_STREAMS_PER_KEY} open at once per API key` }
      : {};
  const byStatus = new Map<string, Codes>();
  for (const [code, meaning] of Object.entries({ ...own, ...auth, ...faults, ...limited })) {
    const status = String(httpStatusOf(Number(code)));
    byStatus.set(status, { ...byStatus.get(status), [code]: meaning });
  }
  // The body parser's refusal is the one code sent with another status than its own.
  if (route.method === 'POST')
    byStatus.set('413', {
      1001: `Payload too large: the body is over ${sizeOf(route.maxBodyBytes ?? MAX_BODY_BYTES)}`,
    });
  return byStatus;
}

function responsesOf(route: AnyRoute): JsonSchema {
  const byStatus = codesByStatus(route);
  const requestId = { 'X-Request-Id': ref('headers', 'X-Request-Id') };
  const replayed = route.idempotent ? { [REPLAYED_HEADER]: ref('headers', REPLAYED_HEADER) } : {};
  const responses: JsonSchema = {};
  if ('live' in route) {
    responses['200'] = {
      description:
        'Server-Sent Events: each `id: <position>`, `event: <type>`, `data: <the record as JSON>`; a comment every 15 s while quiet',
      headers: requestId,
      content: { 'text/event-stream': { schema: { type: 'string' } } },
    };
  } else {
    const data = route.doc.response ? { data: jsonSchema(route.doc.response, 'output') } : {};
    const success: JsonSchema = {
      type: 'object',
      required: route.doc.response ? ['code', 'data'] : ['code'],
      properties: { code: { const: 200 }, ...data },
    };
    // Informational codes (5002 "already exists") are sent with 200: a client sees them there.
    const informational = byStatus.get('200');
    responses['200'] = {
      description: informational ? `Success; or ${describeCodes(informational)}` : 'Success',
      headers: {
        ...requestId,
        ...(route.idempotent ? { 'X-Position': ref('headers', 'X-Position') } : {}),
        ...replayed,
      },
      content: {
        'application/json': { schema: informational ? { oneOf: [success, failureOf(informational)] } : success },
        ...Object.fromEntries(
          Object.entries(route.doc.texts ?? {}).map(([type, description]) => [
            type,
            { schema: { type: 'string', description } },
          ]),
        ),
      },
    };
  }
  for (const [status, codes] of [...byStatus].filter(([s]) => s !== '200').sort(([a], [b]) => a.localeCompare(b))) {
    const retry = status === '429' || status === '503' ? { 'Retry-After': ref('headers', 'Retry-After') } : {};
    // A recorded failure is replayed like a success; auth and limit refusals never are.
    const replay = status === '400' ? replayed : {};
    responses[status] = {
      description: describeCodes(codes),
      headers: { ...requestId, ...retry, ...replay },
      content: { 'application/json': { schema: failureOf(codes) } },
    };
  }
  return responses;
}

function parametersOf(route: AnyRoute): JsonSchema[] {
  const parameters: JsonSchema[] = [...route.path.matchAll(/:(\w+)/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string', minLength: 1 },
  }));
  if (route.doc.query) {
    for (const [name, schema] of Object.entries(route.doc.query.shape)) {
      parameters.push({
        name,
        in: 'query',
        required: !schema.safeParse(undefined).success,
        schema: jsonSchema(schema, 'input'),
      });
    }
  }
  parameters.push(ref('parameters', 'X-Request-Id'));
  // Only reads wait for a position (shared/adapters/http/route.ts).
  if (route.method === 'GET') parameters.push(ref('parameters', 'X-Min-Position'));
  if (tiersOf(route).includes('Client')) parameters.push(ref('parameters', 'X-Tenant-Domain'));
  if (route.playerOf) parameters.push(ref('parameters', PLAYER_TOKEN_HEADER));
  if (route.idempotent) parameters.push(ref('parameters', IDEMPOTENCY_HEADER));
  return parameters;
}

/** What a player's own view says of player tokens (shared/adapters/http/route.ts, `playerOf`). */
const playerTokenNote = (route: AnyRoute): string =>
  route.tiers.includes('Client')
    ? ` With a player's token in ${PLAYER_TOKEN_HEADER}, a Client key reads only that player.`
    : ` Client too, with the player's token in ${PLAYER_TOKEN_HEADER}.`;

/** A key in `AuthKey`, or the same key as `Authorization: Bearer` (shared/adapters/auth/access.ts): either will do. */
const KEY_SECURITY = [{ AuthKey: [] }, { Bearer: [] }];

function operation(route: AnyRoute): JsonSchema {
  const doc = route.doc;
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    description: `Tiers: ${route.tiers.join(', ')}.${route.playerOf ? playerTokenNote(route) : ''}`,
    security: KEY_SECURITY,
    tags: [route.path.split('/')[2]],
    parameters: parametersOf(route),
    ...(doc.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(doc.body, 'input') } } } }
      : {}),
    responses: responsesOf(route),
  };
}

/** /health and /health/ready: no key, `{code: 200, data: {status}}` or a 503 saying why not. */
function healthOperation(operationId: string, summary: string, status: 'ok' | 'ready', notWhy: string): JsonSchema {
  const requestId = { 'X-Request-Id': ref('headers', 'X-Request-Id') };
  return {
    operationId,
    summary,
    description: 'No key.',
    security: [],
    tags: ['health'],
    parameters: [ref('parameters', 'X-Request-Id')],
    responses: {
      '200': {
        description: 'Success',
        headers: requestId,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['code', 'data'],
              properties: {
                code: { const: 200 },
                data: { type: 'object', required: ['status'], properties: { status: { const: status } } },
              },
            },
          },
        },
      },
      '503': {
        description: `503: Starting, or ${notWhy}`,
        headers: requestId,
        content: { 'application/json': { schema: failureOf({ 503: '' }) } },
      },
    },
  };
}

const COMPONENTS = {
  schemas: {
    Failure: {
      type: 'object',
      description: 'The envelope of every failure: the error code and a message for people.',
      required: ['code', 'data'],
      properties: { code: { type: 'integer' }, data: { type: 'string', description: 'a human-readable message' } },
    },
  },
  parameters: {
    'X-Request-Id': {
      name: 'X-Request-Id',
      in: 'header',
      required: false,
      description:
        'Correlates the request with its log lines and the events it records; one is made when absent or malformed.',
      schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,100}$' },
    },
    'X-Min-Position': {
      name: 'X-Min-Position',
      in: 'header',
      required: false,
      description:
        'The `X-Position` a write answered: the read waits (bounded) until the read models have projected it, else answers 503.',
      schema: { type: 'integer', minimum: 1 },
    },
    'X-Tenant-Domain': {
      name: 'X-Tenant-Domain',
      in: 'header',
      required: false,
      description:
        'Client-tier keys: the tenant domain the request is made for, one of the key\u2019s (else the host of `Origin`); 4002 when neither is sent.',
      schema: { type: 'string' },
    },
    [PLAYER_TOKEN_HEADER]: {
      name: PLAYER_TOKEN_HEADER,
      in: 'header',
      required: false,
      description:
        'Client-tier keys: a token of the player the request reads (POST /v1/players/token, Server keys), which lets a Client key read that player\u2019s own views and no other player\u2019s (4005 not issued here, 4006 expired, 4007 another player).',
      schema: { type: 'string' },
    },
    [IDEMPOTENCY_HEADER]: {
      name: IDEMPOTENCY_HEADER,
      in: 'header',
      required: false,
      description: `Makes the request safe to retry: the same key with the same request (within the retention, default 24 h) answers the first answer again, with ${REPLAYED_HEADER}: true, without doing it twice. Scoped to the API key.`,
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    },
  },
  headers: {
    'X-Request-Id': {
      description: 'The request\u2019s correlation id: the one sent, or the one made for it.',
      schema: { type: 'string' },
    },
    'X-Position': {
      description: 'The log position of what the request appended; send it back as `X-Min-Position` to read it.',
      schema: { type: 'integer' },
    },
    [REPLAYED_HEADER]: {
      description: `true: the recorded answer of an earlier request with the same ${IDEMPOTENCY_HEADER}`,
      schema: { type: 'string', enum: ['true'] },
    },
    'Retry-After': {
      description: 'Seconds to wait before retrying, when the service knows.',
      schema: { type: 'integer' },
    },
  },
  securitySchemes: {
    AuthKey: {
      type: 'apiKey',
      in: 'header',
      name: 'AuthKey',
      description: 'An API key of the keys file; each operation names the tiers whose keys may call it.',
    },
    Bearer: { type: 'http', scheme: 'bearer', description: 'The same key, as `Authorization: Bearer <key>`.' },
  },
};

export function openApiDocument(routes: readonly AnyRoute[], version: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {
    '/health': {
      get: healthOperation(
        'health',
        'Liveness: the process works, or needs the operator and a restart',
        'ok',
        'Not live: <a lasting fault>',
      ),
    },
    '/health/ready': {
      get: healthOperation('ready', 'Readiness: the process can take its work now', 'ready', 'Not ready: <why>'),
    },
  };
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  const tags = [
    ...new Set(Object.values(paths).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags as string[]))),
  ];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gamification engine',
      version,
      description:
        'Every response is the envelope `{code, data}`: code 200 on success, else an error code with a text message (the one exception: a success asked for as CSV). Keys go in `AuthKey` or `Authorization: Bearer`.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/' }],
    security: KEY_SECURITY,
    tags: tags.map((name) => ({ name, description: TAG_DESCRIPTIONS[name] })),
    components: COMPONENTS,
    paths,
  };
}

/** One per first path segment; a route under a new one fails the document's test until it is described here. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  health: 'Liveness and readiness, without a key',
  action: 'Player actions: process one (with its awards, levels and cost), reverse it, read its result',
  player: 'Register a player ahead of their first action, update one (name, picture, time zone); read a profile',
  store: 'Buy bundles, and move their provisions: complete, cancel, refund; transaction status and history',
  chest: 'Owned chests: list, preview the odds, open one, the history of openings',
  powerup: 'Powerups: activate, deactivate, list the active ones',
  streaks: 'Streaks: each run of a player, its freezes and when it breaks',
  missions: "Missions: each one's status and its steps' progress in the player's current day or week",
  leagues: "Leagues: a player's tier, cohort and standings in the current period, and their settled periods",
  admin:
    'The published catalog as views, leaderboard standings, stores with stock, daily analytics, the jobs queue and webhooks',
  feed: 'The global event log for analysts: pages after a position, or a live stream',
  auth: 'The key a request comes with: whether it is accepted, its name and tier',
  players: "Tokens of one player, with which a Client key reads that player's own views (X-Player-Token)",
  audit:
    'For auditors: a player\u2019s events, the causal chain of an action or provision, read models checked against a replay',
};

/**
 * A value for a field of the running service (e.g. an action name of its catalog, a player id),
 * for the operation at `path`; undefined leaves it to its schema.
 */
export type ExampleValue = (field: string, path: string) => unknown;

/**
 * The document with an `example` for every request body and path or query parameter, so that
 * "Try it out" sends a request the service takes as it is: the fields `value` knows get its
 * values (optional ones too), the other required ones a value their schema accepts; other optional ones are left
 * out (a `timestamp` example would soon be refused as too old or in the future).
 */
export function withExamples(document: JsonSchema, value: ExampleValue): JsonSchema {
  const copy = structuredClone(document) as {
    paths: Record<
      string,
      Record<string, { parameters?: JsonSchema[]; requestBody?: { content: Record<string, JsonSchema> } }>
    >;
  };
  for (const [path, operations] of Object.entries(copy.paths)) {
    for (const op of Object.values(operations)) {
      for (const parameter of op.parameters ?? []) {
        if (parameter.in !== 'path' && parameter.in !== 'query') continue;
        // Swagger UI sends an optional parameter's example too: only values of the service's own.
        if (!parameter.required && value(String(parameter.name), path) === undefined) continue;
        const example = exampleOf(parameter.schema as JsonSchema, String(parameter.name), path, value);
        if (example !== undefined) parameter.example = example;
      }
      const media = op.requestBody?.content['application/json'];
      if (media) media.example = exampleOf(media.schema as JsonSchema, '', path, value);
    }
  }
  return copy;
}

function exampleOf(schema: JsonSchema, field: string, path: string, value: ExampleValue): unknown {
  const known = field ? value(field, path) : undefined;
  // A path parameter is text: a known number (a catalog version) is given as the text it is written as.
  if (known !== undefined) return schema.type === 'string' && typeof known === 'number' ? String(known) : known;
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (variants) return exampleOf(variants.find((v) => v.type !== 'null') ?? variants[0], field, path, value);
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = (schema.required ?? []) as string[];
      return Object.fromEntries(
        Object.keys(properties)
          .filter((name) => required.includes(name) || value(name, path) !== undefined)
          .map((name) => [name, exampleOf(properties[name], name, path, value)]),
      );
    }
    case 'array':
      return (schema.minItems as number | undefined) ? [exampleOf(schema.items as JsonSchema, field, path, value)] : [];
    case 'integer':
    case 'number':
      return schema.minimum ?? ((schema.exclusiveMinimum as number | undefined) ?? 0) + 1;
    case 'boolean':
      return false;
    case 'string':
      return 'example';
    default:
      return undefined;
  }
}
