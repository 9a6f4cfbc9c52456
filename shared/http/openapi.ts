/**
 * The OpenAPI 3.1 document of the routes a process serves, generated from their zod schemas and
 * error tables (shown at /docs by shared/http/reference).
 */
import { z } from 'zod';
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from './idempotency';
import type { AnyRoute } from './route';

type JsonSchema = Record<string, unknown>;

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
};

/** Codes every authenticated endpoint may answer, with their HTTP status (README, "Envelope and statuses" and "Auth"). */
const COMMON_FAILURES: [status: string, codes: Record<number, string>][] = [
  ['401', { 4001: 'Invalid AuthKey: missing or unknown key' }],
  ['403', { 4002: 'Missing tenant domain (Client-tier keys)', 4003: 'Auth tier not allowed, or tenant domain not one of the key\u2019s' }],
  ['413', { 1001: 'Payload too large: the body is over 64 KiB' }],
  ['500', { 500: 'Internal error (no details are given)' }],
  ['503', { 503: 'A backing store is not answering, or too many concurrent changes to one stream; retry later' }],
];

const failureBody = (codes: Record<number, string>): JsonSchema => ({
  type: 'object',
  required: ['code', 'data'],
  properties: { code: { type: 'integer', enum: Object.keys(codes).map(Number) }, data: { type: 'string', description: 'a human-readable message' } },
});

const describeCodes = (codes: Record<number, string>) =>
  Object.entries(codes)
    .map(([code, meaning]) => `${code}: ${meaning}`)
    .join('; ');

function operation(route: AnyRoute): JsonSchema {
  const doc = route.doc;
  const parameters: JsonSchema[] = [...route.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  if (doc.query) {
    const shape = doc.query.shape as Record<string, z.ZodType>;
    for (const [name, schema] of Object.entries(shape)) {
      parameters.push({ name, in: 'query', required: !schema.safeParse(undefined).success, schema: jsonSchema(schema, 'input') });
    }
  }
  const success: JsonSchema = doc.response
    ? { type: 'object', required: ['code', 'data'], properties: { code: { const: 200 }, data: jsonSchema(doc.response, 'output') } }
    : { type: 'object', required: ['code'], properties: { code: { const: 200 } } };
  const own = { ...doc.errors };
  const nested: Record<number, string> = route.acceptsNestedActions ? { 4004: 'Nested actions not allowed for Client tier' } : {};
  const replayHeader = { [REPLAYED_HEADER]: { description: 'true: the recorded answer of an earlier request with the same Idempotency-Key', schema: { type: 'string', enum: ['true'] } } };
  const responses: JsonSchema = {
    '200':
      'live' in route
        ? { description: 'Server-Sent Events: each `id: <position>`, `event: <type>`, `data: <the record as JSON>`; a comment every 15 s while quiet', content: { 'text/event-stream': { schema: { type: 'string' } } } }
        : { description: 'Success', content: { 'application/json': { schema: success } }, ...(route.idempotent ? { headers: replayHeader } : {}) },
  };
  if (route.idempotent) {
    own[1001] = `${own[1001] ?? 'Payload is null'}; or the ${IDEMPOTENCY_HEADER} header is malformed`;
    responses['422'] = { description: describeCodes({ 1003: `${IDEMPOTENCY_HEADER} was already used for a different request` }), content: { 'application/json': { schema: failureBody({ 1003: '' }) } } };
    parameters.push({
      name: IDEMPOTENCY_HEADER,
      in: 'header',
      required: false,
      description: `Makes the request safe to retry: the same key with the same request (within the retention, default 24 h) answers the first answer again, with ${REPLAYED_HEADER}: true, without doing it twice. Scoped to the API key.`,
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    });
  }
  if (Object.keys(own).length) responses['400'] = { description: describeCodes(own), content: { 'application/json': { schema: failureBody(own) } } };
  for (const [status, codes] of COMMON_FAILURES) {
    if (status === '413' && route.method !== 'POST') continue;
    const all = status === '403' ? { ...codes, ...nested } : codes;
    responses[status] = { description: describeCodes(all), content: { 'application/json': { schema: failureBody(all) } } };
  }
  if (route.rateLimited) {
    responses['429'] = {
      description: describeCodes({ 429: 'Too many requests: the key\u2019s rate limit' }),
      headers: { 'Retry-After': { description: 'seconds to wait', schema: { type: 'integer' } } },
      content: { 'application/json': { schema: failureBody({ 429: '' }) } },
    };
  }
  return {
    summary: doc.summary,
    description: `Tiers: ${route.tiers.join(', ')}.`,
    security: KEY_SECURITY,
    tags: [route.path.split('/')[2]],
    ...(parameters.length ? { parameters } : {}),
    ...(doc.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(doc.body, 'input') } } } } : {}),
    responses,
  };
}

/** A key in `AuthKey`, or the same key as `Authorization: Bearer` (shared/auth/access.ts): either will do. */
const KEY_SECURITY = [{ AuthKey: [] }, { Bearer: [] }];

export function openApiDocument(routes: readonly AnyRoute[], version: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gamification engine',
      version,
      description: 'Every response is the envelope `{code, data}`: code 200 on success, else an error code with a text message. Keys go in `AuthKey` or `Authorization: Bearer`.',
    },
    servers: [{ url: '/' }],
    security: KEY_SECURITY,
    components: {
      securitySchemes: {
        AuthKey: { type: 'apiKey', in: 'header', name: 'AuthKey', description: 'An API key of the keys file; each operation names the tiers whose keys may call it.' },
        Bearer: { type: 'http', scheme: 'bearer', description: 'The same key, as `Authorization: Bearer <key>`.' },
      },
    },
    paths,
  };
}
