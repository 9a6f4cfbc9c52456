/** The check every HTTP test's answers go through (support/conformance.ts) refuses what the document does not describe. */
import { conformanceTo } from './support/conformance';

const document = {
  components: {
    schemas: {
      Failure: {
        type: 'object',
        required: ['code', 'data'],
        properties: { code: { type: 'integer' }, data: { type: 'string' } },
      },
    },
  },
  paths: {
    '/v1/things/{id}': {
      get: {
        responses: {
          '200': {
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['code', 'data'],
                  properties: {
                    code: { const: 200 },
                    data: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
                  },
                },
              },
            },
          },
          '400': {
            content: {
              'application/json': {
                schema: {
                  allOf: [{ $ref: '#/components/schemas/Failure' }, { properties: { code: { enum: [1001] } } }],
                },
              },
            },
          },
        },
      },
    },
  },
};

const answer = (method: string, path: string, status: number, body: unknown) =>
  ({ req: { method, path }, status, headers: { 'content-type': 'application/json; charset=utf-8' }, body }) as never;

describe('the conformance check of answers', () => {
  const check = conformanceTo(document).check;

  it('passes answers the document describes, references resolved', () => {
    expect(() => check(answer('GET', '/v1/things/7?x=1', 200, { code: 200, data: { n: 1 } }))).not.toThrow();
    expect(() => check(answer('GET', '/v1/things/7', 400, { code: 1001, data: 'bad' }))).not.toThrow();
  });

  it('refuses a status the operation does not document, and a body its schema does not allow', () => {
    expect(() => check(answer('GET', '/v1/things/7', 503, { code: 503, data: 'x' }))).toThrow(
      'GET /v1/things/7 answered 503, a status its operation does not document (200, 400)',
    );
    expect(() => check(answer('GET', '/v1/things/7', 200, { code: 200, data: { n: 'one' } }))).toThrow(
      /answered 200 with a body its document does not describe: data\/data\/n must be integer/,
    );
    expect(() => check(answer('GET', '/v1/things/7', 400, { code: 1002, data: 'x' }))).toThrow(
      /data\/code must be equal to one of the allowed values/,
    );
  });

  it('leaves paths and methods the document does not list alone', () => {
    expect(() => check(answer('GET', '/metrics', 200, 'text'))).not.toThrow();
    expect(() => check(answer('POST', '/v1/things/7', 404, {}))).not.toThrow();
  });
});
