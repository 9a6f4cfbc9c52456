/** What publishing a catalog would change against another, by uid: the API's diff (POST /v1/admin/catalog/diff). */
import { canonicalJson } from '../canonical-json';
import type { DeepReadonly } from '../deep-readonly';
import type { Catalog } from './schema';
import { CATALOG_SECTIONS } from './types';

export interface CatalogChange {
  /** A catalog section, or `settings` (whose uid is `settings`). */
  section: string;
  uid: string;
  change: 'added' | 'removed' | 'changed';
  /** The changed fields' paths (`points`, `conditions.0.target`); empty for an entry added or removed. */
  fields: string[];
}

/** Per section in catalog order, settings first: entries added, removed, then changed. */
export function catalogChanges(before: DeepReadonly<Catalog> | null, after: DeepReadonly<Catalog>): CatalogChange[] {
  const changes: CatalogChange[] = [];
  const settings = before ? changedPaths(before.settings, after.settings) : [];
  if (settings.length) changes.push({ section: 'settings', uid: 'settings', change: 'changed', fields: settings });
  for (const section of CATALOG_SECTIONS) {
    const old = new Map<string, unknown>((before?.[section] ?? []).map((e) => [e.uid, e]));
    const now = new Map<string, unknown>(after[section].map((e) => [e.uid, e]));
    for (const uid of now.keys()) if (!old.has(uid)) changes.push({ section, uid, change: 'added', fields: [] });
    for (const uid of old.keys()) if (!now.has(uid)) changes.push({ section, uid, change: 'removed', fields: [] });
    for (const [uid, entry] of now) {
      const fields = old.has(uid) ? changedPaths(old.get(uid), entry) : [];
      if (fields.length) changes.push({ section, uid, change: 'changed', fields });
    }
  }
  return changes;
}

/** The paths where two values differ, down to the first value that is not an object or array on both sides. */
function changedPaths(a: unknown, b: unknown, path = ''): string[] {
  if (canonicalJson(a) === canonicalJson(b)) return [];
  const bothArrays = Array.isArray(a) && Array.isArray(b);
  if (!bothArrays && !(isRecord(a) && isRecord(b))) return [path];
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = bothArrays
    ? [...Array(Math.max((a as unknown[]).length, (b as unknown[]).length)).keys()].map(String)
    : [...new Set([...Object.keys(left), ...Object.keys(right)])];
  return keys.flatMap((k) => changedPaths(left[k], right[k], path ? `${path}.${k}` : k));
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
