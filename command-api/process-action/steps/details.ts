/** The details step of a decision: the action's details by name, and the first one out of range for a rule or mission that sums it. */
import type { Catalog } from '../../../domain/catalog/schema';
import { compileRules, summedDetailOutOfRange } from '../../../domain/rules/conditions';
import { compileMissions, missionDetailOutOfRange } from '../../../domain/rules/missions';

/** The details by name (the last of a name wins). */
export function detailsByName(details: readonly { name: string; value: string }[]): Map<string, string> {
  const byName = new Map<string, string>();
  for (const d of details) byName.set(d.name, d.value);
  return byName;
}

/** Why a detail the action's rules or missions sum is out of range, or null. */
export function detailOutOfRange(
  catalog: Catalog,
  actionName: string,
  details: ReadonlyMap<string, string>,
): string | null {
  return (
    summedDetailOutOfRange(compileRules(catalog).byAction.get(actionName) ?? [], actionName, details) ||
    missionDetailOutOfRange(compileMissions(catalog), actionName, details) ||
    null
  );
}
