/**
 * A catalog in a request body, as every route that takes one reads it (publish, validate, diff,
 * simulate): `catalog`, the JSON object the file's format describes, or `yaml`, the file's text.
 */
import { z } from 'zod';
import { parseCatalog, parseCatalogData, type CatalogParseResult } from '../../../domain/catalog/load';
import { fail, ok, type Result } from '../../../domain/result';

export const catalogFields = {
  catalog: z
    .record(z.string(), z.unknown(), { error: 'must be an object' })
    .meta({ description: "the catalog in the catalog file's format (docs/catalog.md), as JSON; or give `yaml`" })
    .optional(),
  yaml: z
    .string({ error: 'must be a string' })
    .meta({ description: "the catalog file's text (YAML); or give `catalog`" })
    .optional(),
};

/** The catalog of a body: `catalog` (JSON) or `yaml` (the file's text), exactly one of them. */
export function catalogOfBody(body: { catalog?: Record<string, unknown>; yaml?: string }): Result<CatalogParseResult> {
  if ((body.catalog === undefined) === (body.yaml === undefined))
    return fail(1001, 'Give the catalog as `catalog` (JSON) or as `yaml` (the file text), one of them');
  return ok(body.yaml !== undefined ? parseCatalog(body.yaml, 'catalog.yaml') : parseCatalogData(body.catalog));
}
