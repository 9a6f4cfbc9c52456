/**
 * Experiments' variants as games (docs/catalog.md, "Experiments"): a variant's patch applied to the
 * base catalog. The same function makes the game validation checks and the game its players'
 * actions are decided under, so a player never plays a game that was not validated. Pure; each
 * variant's game is made once per catalog object (catalogs are immutable once published).
 */
import type { z } from 'zod';
import type { DeepReadonly } from '../deep-readonly';
import { formatIssues, issueMessage } from './problems';
import { SECTION_SCHEMAS } from './schema';
import {
  type Catalog,
  type Experiment,
  type ExperimentPatch,
  PATCHABLE_SECTIONS,
  type PatchableSection,
} from './types';

/** The fields no patch may change: they say which entry it is. */
const FIXED_FIELDS = new Set(['uid', 'identifier']);

const KIND: Record<PatchableSection, string> = {
  actions: 'action',
  badges: 'badge',
  triggers: 'trigger',
  streaks: 'streak',
  missions: 'mission',
};

/** A patch's values as the schema reads them: by section, entry uid, the fields replaced. */
export type PatchedFields = ReadonlyMap<PatchableSection, ReadonlyMap<string, Readonly<Record<string, unknown>>>>;

/** The entries of the sections a patch changes, by file index (undefined: an entry the schema refused). */
export type PatchableEntries = {
  readonly [S in PatchableSection]: readonly (Catalog[S][number] | undefined)[];
};

/** The fields of an entry's schema (each section's schema is an object, then a transform adding uids). */
function fieldSchemas(section: PatchableSection): Record<string, z.ZodType> {
  return (SECTION_SCHEMAS[section] as unknown as { in: z.ZodObject }).in.shape;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Objects merged key by key; lists and scalars replaced. */
function merged(base: unknown, patch: unknown): unknown {
  if (!isRecord(base) || !isRecord(patch)) return patch;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) out[key] = merged(base[key], value);
  return out;
}

/**
 * A patch's values read by each field's schema, on the base's entries: the fields as the variant's
 * game has them, and the problems (paths from the patch: `actions.act-share.points: ...`).
 */
export function patchedFields(
  base: PatchableEntries,
  patch: DeepReadonly<ExperimentPatch>,
): { fields: PatchedFields; problems: string[] } {
  const fields = new Map<PatchableSection, Map<string, Record<string, unknown>>>();
  const problems: string[] = [];
  for (const section of PATCHABLE_SECTIONS) {
    const entries = patch[section];
    if (!entries) continue;
    const schemas = fieldSchemas(section);
    const bySection = new Map<string, Record<string, unknown>>();
    for (const [uid, changes] of Object.entries(entries)) {
      const at = `${section}.${uid}`;
      const entry = base[section].find((e) => e?.uid === uid) as Record<string, unknown> | undefined;
      if (!entry) {
        problems.push(`${at}: no ${KIND[section]} with uid "${uid}" in ${section}`);
        continue;
      }
      const values: Record<string, unknown> = {};
      for (const [field, value] of Object.entries(changes)) {
        if (FIXED_FIELDS.has(field)) {
          problems.push(`${at}.${field}: cannot be patched (it names the entry)`);
          continue;
        }
        const schema = Object.prototype.hasOwnProperty.call(schemas, field) ? schemas[field] : undefined;
        if (!schema) {
          problems.push(`${at}.${field}: unknown field`);
          continue;
        }
        const parsed = schema.safeParse(merged(entry[field], value), { error: issueMessage });
        if (parsed.success) values[field] = parsed.data;
        else
          problems.push(
            ...formatIssues(parsed.error.issues).map((line) =>
              line.startsWith('(root)')
                ? `${at}.${field}${line.slice('(root)'.length)}`
                : `${at}.${field}${line.startsWith('[') ? '' : '.'}${line}`,
            ),
          );
      }
      bySection.set(uid, values);
    }
    fields.set(section, bySection);
  }
  return { fields, problems };
}

/** The sections with each patched entry's fields replaced (entries the patch does not name are the base's own objects). */
export function withPatchedFields<C extends PatchableEntries>(base: C, fields: PatchedFields): C {
  const out: Record<string, unknown> = { ...base };
  for (const [section, byUid] of fields)
    out[section] = base[section].map((entry) => {
      const changes = entry && byUid.get(entry.uid);
      return changes ? { ...entry, ...changes } : entry;
    });
  return out as C;
}

/** An experiment a decision is made under: its uid and the player's variant. */
export interface ExperimentInForce {
  uid: string;
  variant: string;
}

const variantFields = new WeakMap<DeepReadonly<Catalog>, Map<string, PatchedFields>>();
const games = new WeakMap<DeepReadonly<Catalog>, Map<string, Catalog>>();

/** A variant's patch as read on the catalog (validation refused a catalog where it does not read). */
function fieldsOf(
  catalog: DeepReadonly<Catalog>,
  experiment: DeepReadonly<Experiment>,
  variantUid: string,
): PatchedFields {
  let cached = variantFields.get(catalog);
  if (!cached) variantFields.set(catalog, (cached = new Map()));
  const key = `${experiment.uid}:${variantUid}`;
  let fields = cached.get(key);
  if (!fields) {
    const patch = experiment.variants.find((v) => v.uid === variantUid)?.patch ?? {};
    fields = patchedFields(catalog as Catalog, patch).fields;
    cached.set(key, fields);
  }
  return fields;
}

/**
 * The game a player's action is decided under: the catalog with the patch of their variant of each
 * experiment in force, in catalog order (two patching the same field: the later experiment's
 * value). Made once per catalog and combination of variants.
 */
export function catalogForPlayer(catalog: Catalog, inForce: readonly ExperimentInForce[]): Catalog {
  if (inForce.length === 0) return catalog;
  let cached = games.get(catalog);
  if (!cached) games.set(catalog, (cached = new Map()));
  const key = inForce.map((e) => `${e.uid}:${e.variant}`).join('\n');
  let game = cached.get(key);
  if (!game) {
    game = catalog;
    for (const e of inForce) {
      const experiment = catalog.experiments.find((x) => x.uid === e.uid);
      if (experiment) game = withPatchedFields(game, fieldsOf(catalog, experiment, e.variant));
    }
    cached.set(key, game);
  }
  return game;
}

/**
 * Every game of the catalog: the base, then each variant's (the base with that variant's patch
 * alone), each once. A player may play any of them: what any game limits is read and counted.
 */
export function gamesOf(catalog: Catalog): Catalog[] {
  // A catalog version published before experiments existed has none.
  const variants = (catalog.experiments ?? []).flatMap((e) =>
    e.variants.map((v) => catalogForPlayer(catalog, [{ uid: e.uid, variant: v.uid }])),
  );
  return [...new Set([catalog, ...variants])];
}
