/**
 * /v1/admin/catalog: the catalog's versions through the API, the way a running game changes
 * (docs/catalog.md, "Changing the catalog"). Reads, validate and diff take Server and Auditor
 * keys; publish and revert Server keys only.
 */
import { stringify } from 'yaml';
import { z } from 'zod';
import { OPERATORS } from '../../shared/adapters/auth/access';
import { catalogFields, catalogOfBody } from '../../shared/adapters/http/catalog-body';
import { defineRoute, parseWith, requireObject, TextAnswer, type AnyRoute } from '../../shared/adapters/http/route';
import { catalogChanges } from '../../domain/catalog/diff';
import type { CatalogParseResult } from '../../domain/catalog/load';
import type { Catalog } from '../../domain/catalog/schema';
import {
  statusAt,
  versionInForceAt,
  versionNumbered,
  type CatalogVersion,
  type CatalogVersions,
} from '../../domain/catalog/versions';
import { documented, ERRORS, refuse } from '../../domain/errors';
import { fail, ok } from '../../domain/result';
import type { CommandDeps } from '../deps';
import { replyOf, requestOrigin } from '../http';
import type { CatalogInForce } from './in-force';
import { publishVersion, removalProblems, revertPublication, versionPublication } from './publish';

/** A body carries a whole catalog, as simulate's does. */
export const CATALOG_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** The longest comment a version keeps. */
export const MAX_COMMENT = 500;

const unixMs = (description: string) =>
  z
    .number({ error: 'must be a time in Unix ms' })
    .int('must be a time in Unix ms')
    .min(0, 'must be a time in Unix ms')
    .max(8.64e15, 'must be a time in Unix ms')
    .meta({ description });
const versionNumber = (description: string) =>
  z
    .number({ error: (i) => (i.input === undefined ? 'is required' : 'must be a version number') })
    .int('must be a version number')
    .min(0, 'must be a version number')
    .meta({ description });
const comment = z
  .string({ error: 'must be a string' })
  .max(MAX_COMMENT, `must be at most ${MAX_COMMENT} characters`)
  .meta({ description: 'Why: shown in the versions list, the feed and webhooks' })
  .optional();

const catalogBody = z.object(catalogFields);
const diffBody = z.object({
  ...catalogFields,
  against: versionNumber('the version compared with (default: the version in force)').optional(),
});
const publishBody = z.object({
  ...catalogFields,
  expectedVersion: versionNumber('the newest version number the caller saw (0 before the first)'),
  comment,
  effectiveAt: unixMs('in force from then (default: at once)').optional(),
  until: unixMs('in force until then (default: for good)').optional(),
  confirmRemovals: z
    .boolean({ error: 'must be true or false' })
    .meta({ description: 'publish even though it removes entries of the version it takes over from' })
    .optional(),
});
const revertBody = z.object({
  version: versionNumber('the version whose content is published again'),
  expectedVersion: versionNumber('the newest version number the caller saw'),
  comment,
});

const statusShape = z.enum(['Active', 'Scheduled', 'Ended', 'Superseded']);
const versionFields = {
  version: z.number().int(),
  status: statusShape,
  source: z
    .enum(['file', 'api'])
    .describe('file: the catalog file at start; api: published or reverted through the API'),
  publishedAt: z.number().int().describe('Unix ms'),
  publishedBy: z.string().describe("the API key's name, or file"),
  comment: z.string().nullable(),
  effectiveAt: z.number().int().describe('Unix ms: in force from then'),
  until: z.number().int().nullable().describe('Unix ms: in force until then; null: for good'),
};
const versionShape = z.object(versionFields);
const versionWithCatalogShape = z.object({ ...versionFields, catalog: z.record(z.string(), z.unknown()) });
const versionsShape = z.array(versionShape);
const validationShape = z.object({
  valid: z.boolean(),
  problems: z.array(z.object({ path: z.string(), message: z.string() })),
});
const diffShape = z.object({
  changes: z.array(
    z.object({
      section: z.string(),
      uid: z.string(),
      change: z.enum(['added', 'removed', 'changed']),
      fields: z.array(z.string()),
    }),
  ),
});
const publishedShape = z.object({
  version: z.number().int(),
  status: statusShape,
  effectiveAt: z.number().int(),
  until: z.number().int().nullable(),
});

const BODY_PROBLEMS = 'Payload is null, a field malformed, or both `catalog` and `yaml` given, or neither';
const INVALID_CATALOG = 'the catalog invalid or over its limits, every problem in the message (`path: message; ...`)';

export interface CatalogRouteDeps extends CommandDeps {
  inForce: CatalogInForce;
}

/** A problem line (`path: message`, as at start) as {path, message}; a line without a path has an empty one. */
function problemOf(line: string): { path: string; message: string } {
  const at = line.indexOf(': ');
  return at < 0 ? { path: '', message: line } : { path: line.slice(0, at), message: line.slice(at + 2) };
}

const withStatus = (versions: CatalogVersions, v: CatalogVersion, now: number) => ({
  version: v.version,
  status: statusAt(versions, v, now),
  source: v.source,
  publishedAt: v.publishedAt,
  publishedBy: v.publishedBy,
  comment: v.comment,
  effectiveAt: v.effectiveAt,
  until: v.until,
});

export function catalogRoutes(deps: CatalogRouteDeps): AnyRoute[] {
  const { inForce } = deps;
  /** The versions as this process knows them, read again first: a read right after a publication elsewhere sees it. */
  const versionsNow = async () => {
    await inForce.refresh();
    return inForce.versions();
  };
  return [
    defineRoute<{ format: 'json' | 'yaml' }>({
      method: 'GET',
      path: '/v1/admin/catalog',
      tiers: OPERATORS,
      doc: {
        operationId: 'catalogInForce',
        summary: 'The catalog version in force now, with its catalog',
        query: z.object({ format: z.enum(['json', 'yaml']).optional() }),
        response: versionWithCatalogShape,
        texts: { 'application/yaml': "With format=yaml: the catalog in force as the file's text" },
        errors: { 1001: 'A format other than json or yaml' },
      },
      parse: ({ query }) => {
        const q = parseWith(z.object({ format: z.enum(['json', 'yaml']).optional() }), query);
        return q.ok ? ok({ format: q.value.format ?? 'json' }) : q;
      },
      async handle({ format }) {
        const versions = await versionsNow();
        const now = deps.now();
        const v = versionInForceAt(versions, now);
        if (!v) return refuse(ERRORS.CATALOG_VERSION_NOT_FOUND, 'none is published yet');
        if (format === 'yaml')
          return ok(new TextAnswer('application/yaml', stringify(v.catalog), `catalog-v${v.version}.yaml`));
        return ok({ ...withStatus(versions, v, now), catalog: v.catalog });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/admin/catalog/versions',
      tiers: OPERATORS,
      doc: {
        operationId: 'catalogVersions',
        summary: 'Every catalog version, newest first, without its catalog',
        response: versionsShape,
        errors: {},
      },
      parse: () => ok({}),
      async handle() {
        const versions = await versionsNow();
        const now = deps.now();
        return ok([...versions.versions].reverse().map((v) => withStatus(versions, v, now)));
      },
    }),
    defineRoute<{ version: number }>({
      method: 'GET',
      path: '/v1/admin/catalog/versions/:version',
      tiers: OPERATORS,
      doc: {
        operationId: 'catalogVersion',
        summary: 'One catalog version, with its catalog',
        response: versionWithCatalogShape,
        errors: { ...documented(ERRORS.CATALOG_VERSION_NOT_FOUND) },
      },
      parse: ({ params }) => ok({ version: /^\d{1,15}$/.test(params.version) ? Number(params.version) : -1 }),
      async handle({ version }) {
        const versions = await versionsNow();
        const v = versionNumbered(versions, version);
        if (!v) return refuse(ERRORS.CATALOG_VERSION_NOT_FOUND, `version ${version < 0 ? 'not a number' : version}`);
        return ok({ ...withStatus(versions, v, deps.now()), catalog: v.catalog });
      },
    }),
    defineRoute<{ parsed: CatalogParseResult }>({
      method: 'POST',
      path: '/v1/admin/catalog/validate',
      tiers: OPERATORS,
      maxBodyBytes: CATALOG_MAX_BODY_BYTES,
      doc: {
        operationId: 'validateCatalog',
        summary:
          'Check a catalog as the service checks its file at start, and whether it removes entries of the version in force: every problem at once; nothing is written',
        body: catalogBody,
        response: validationShape,
        errors: { 1001: BODY_PROBLEMS },
      },
      parse: (input) => {
        const body = requireObject(input.body);
        if (!body.ok) return body;
        const fields = parseWith(catalogBody, body.value);
        if (!fields.ok) return fields;
        const parsed = catalogOfBody(fields.value);
        return parsed.ok ? ok({ parsed: parsed.value }) : parsed;
      },
      async handle({ parsed }) {
        const versions = await versionsNow();
        const inForceNow = versionInForceAt(versions, deps.now());
        const problems = !parsed.ok ? parsed.problems : inForceNow ? removalProblems(inForceNow, parsed.catalog) : [];
        return ok({ valid: problems.length === 0, problems: problems.map(problemOf) });
      },
    }),
    defineRoute<{ catalog: Catalog; against: number | null }>({
      method: 'POST',
      path: '/v1/admin/catalog/diff',
      tiers: OPERATORS,
      maxBodyBytes: CATALOG_MAX_BODY_BYTES,
      doc: {
        operationId: 'diffCatalog',
        summary:
          'What publishing a catalog would change against a version (default: the one in force), by uid; nothing is written',
        body: diffBody,
        response: diffShape,
        errors: { 1001: `${BODY_PROBLEMS}; or ${INVALID_CATALOG}`, ...documented(ERRORS.CATALOG_VERSION_NOT_FOUND) },
      },
      parse: (input) => {
        const body = requireObject(input.body);
        if (!body.ok) return body;
        const fields = parseWith(diffBody, body.value);
        if (!fields.ok) return fields;
        const parsed = catalogOfBody(fields.value);
        if (!parsed.ok) return parsed;
        if (!parsed.value.ok) return fail(1001, parsed.value.problems.join('; '));
        return ok({ catalog: parsed.value.catalog, against: fields.value.against ?? null });
      },
      async handle({ catalog, against }) {
        const versions = await versionsNow();
        const base = against === null ? versionInForceAt(versions, deps.now()) : versionNumbered(versions, against);
        if (against !== null && !base) return refuse(ERRORS.CATALOG_VERSION_NOT_FOUND, `version ${against}`);
        return ok({ changes: catalogChanges(base?.catalog ?? null, catalog) });
      },
    }),
    defineRoute<{
      catalog: Catalog;
      hash: string;
      expectedVersion: number;
      comment: string | null;
      effectiveAt: number | null;
      until: number | null;
      confirmRemovals: boolean;
    }>({
      method: 'POST',
      path: '/v1/admin/catalog/publish',
      tiers: ['Server'],
      idempotent: true,
      maxBodyBytes: CATALOG_MAX_BODY_BYTES,
      doc: {
        operationId: 'publishCatalog',
        summary:
          'Publish the next catalog version: in force at once (the next request is decided under it; every process within 2 s), or from effectiveAt until until',
        body: publishBody,
        response: publishedShape,
        errors: {
          1001: `${BODY_PROBLEMS}; ${INVALID_CATALOG}; until not after effectiveAt; or entries of the version it takes over from removed without confirmRemovals`,
          ...documented(ERRORS.CATALOG_CHANGED),
        },
      },
      parse: (input) => {
        const body = requireObject(input.body);
        if (!body.ok) return body;
        const fields = parseWith(publishBody, body.value);
        if (!fields.ok) return fields;
        const parsed = catalogOfBody(fields.value);
        if (!parsed.ok) return parsed;
        if (!parsed.value.ok) return fail(1001, parsed.value.problems.join('; '));
        const { expectedVersion, effectiveAt, until, confirmRemovals } = fields.value;
        return ok({
          catalog: parsed.value.catalog,
          hash: parsed.value.hash,
          expectedVersion,
          comment: fields.value.comment ?? null,
          effectiveAt: effectiveAt ?? null,
          until: until ?? null,
          confirmRemovals: confirmRemovals ?? false,
        });
      },
      async handle(cmd, ctx) {
        const outcome = await publishVersion(
          versionPublication,
          { ...cmd, publishedBy: ctx.key.name, revertOf: null },
          requestOrigin(ctx, deps),
          deps,
        );
        // The next request this process answers is decided under what was published.
        await inForce.refresh();
        return replyOf(outcome, ({ version, status, effectiveAt, until }) => ({ version, status, effectiveAt, until }));
      },
    }),
    defineRoute<{ version: number; expectedVersion: number; comment: string | null }>({
      method: 'POST',
      path: '/v1/admin/catalog/revert',
      tiers: ['Server'],
      idempotent: true,
      doc: {
        operationId: 'revertCatalog',
        summary: "Publish an earlier version's content again as the next version, in force at once",
        body: revertBody,
        response: publishedShape,
        errors: {
          1001: 'Payload is null or a field malformed',
          ...documented(ERRORS.CATALOG_CHANGED),
          ...documented(ERRORS.CATALOG_VERSION_NOT_FOUND),
        },
      },
      parse: (input) => {
        const body = requireObject(input.body);
        if (!body.ok) return body;
        const fields = parseWith(revertBody, body.value);
        return fields.ok ? ok({ ...fields.value, comment: fields.value.comment ?? null }) : fields;
      },
      async handle(cmd, ctx) {
        const outcome = await publishVersion(
          revertPublication,
          { ...cmd, publishedBy: ctx.key.name },
          requestOrigin(ctx, deps),
          deps,
        );
        await inForce.refresh();
        return replyOf(outcome, ({ version, status, effectiveAt, until }) => ({ version, status, effectiveAt, until }));
      },
    }),
  ];
}
