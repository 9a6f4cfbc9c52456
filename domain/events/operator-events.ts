import { z } from 'zod';
import type { Catalog } from '../catalog/schema';

/** A catalog version, on the `catalog` stream: version n is its n-th CatalogPublished. */
export const catalogPublishedSchema = z.object({
  version: z.number().int().positive(),
  /** Of the catalog's canonical JSON: an unchanged file publishes nothing. */
  hash: z.string(),
  /** Unix ms. */
  publishedAt: z.number(),
  // Validated when the file was loaded (domain/catalog); not again on every read.
  catalog: z.custom<Catalog>((value) => typeof value === 'object' && value !== null),
  // The fields below came with publication through the API (docs/catalog.md, "Changing the catalog");
  // a version recorded before them was published from the file, in force at once, for good
  // (domain/catalog/versions.ts reads them so).
  /** `file`: the catalog file at start; `api`: POST /v1/admin/catalog/publish or revert. */
  source: z.enum(['file', 'api']).optional(),
  /** The API key's name, or `file`. */
  publishedBy: z.string().optional(),
  comment: z.string().nullable().optional(),
  /** Unix ms from which it is in force: its publication time unless scheduled later. */
  effectiveAt: z.number().optional(),
  /** Unix ms at which it stops being in force (a live event's end); null: never. */
  until: z.number().nullable().optional(),
  /** The version whose content a revert published again. */
  revertOf: z.number().int().positive().optional(),
});
export type CatalogPublished = z.infer<typeof catalogPublishedSchema>;

/**
 * A scheduled version came into force, or one ended and the version before it applies again (the
 * start and end of a live event), on the `catalog` stream: appended by a job at that moment
 * (command-api/publish-catalog/in-force-job.ts), for what follows the log (the read models, the
 * feed, webhooks). Decisions do not wait for it: each process works out the version in force at
 * its own clock (domain/catalog/versions.ts).
 */
export const catalogVersionInForceSchema = z.object({
  version: z.number().int().positive(),
  hash: z.string(),
  /** Unix ms: when it came into force. */
  since: z.number(),
  catalog: z.custom<Catalog>((value) => typeof value === 'object' && value !== null),
});
export type CatalogVersionInForce = z.infer<typeof catalogVersionInForceSchema>;

/** The format of the stored events, on the `store-format` stream: see app/store-format.ts. */
export const storeFormatDeclaredSchema = z.object({ version: z.number().int().positive() });
export type StoreFormatDeclared = z.infer<typeof storeFormatDeclaredSchema>;

/** A recompute began, on the `recompute` stream (domain/streams.ts): the status the admin route answers. */
export const recomputeStartedSchema = z.object({
  recomputeUid: z.string(),
  /** Unix ms; actions before it stand as recorded (absent: every action is decided again). */
  from: z.number().optional(),
  dryRun: z.boolean(),
  catalogVersion: z.number().int(),
  startedAt: z.number(),
});
export const recomputeCompletedSchema = z.object({
  recomputeUid: z.string(),
  applied: z.boolean(),
  /** The replay's report (command-api/replay/report.ts SimulationReport, the wire's Simulation). */
  report: z.unknown(),
  completedAt: z.number(),
});
export const recomputeFailedSchema = z.object({ recomputeUid: z.string(), message: z.string(), failedAt: z.number() });
