/** A player's attributes: free string values by name, which scoped leaderboards split standings by. */
import type { Catalog } from '../catalog/schema';

/** At most this many attributes per player (docs/api.md, "Limits"). */
export const MAX_ATTRIBUTES = 20;

/** `current` with `changes` applied: a string sets an attribute, null removes it. */
export function withAttributes(
  current: Readonly<Record<string, string>>,
  changes: Readonly<Record<string, string | null>>,
): Record<string, string> {
  const out: Record<string, string> = { ...current };
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) delete out[name];
    else out[name] = value;
  }
  return out;
}

/**
 * The attributes an action records: those the catalog's leaderboards are scoped by, as the player
 * has them now (null when none), so the standings never depend on a later change.
 */
export function scopedAttributes(
  catalog: Catalog,
  attributes: Readonly<Record<string, string>>,
): Record<string, string> | null {
  let out: Record<string, string> | null = null;
  for (const board of catalog.leaderboards) {
    const value = board.scope === null ? undefined : attributes[board.scope];
    if (value !== undefined) (out ??= {})[board.scope!] = value;
  }
  return out;
}
