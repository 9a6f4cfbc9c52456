/** Badge and trigger conditions: filters, challenges and rank thresholds, compiled once per catalog. */
import { addAmounts, isAmountInRange, MAX_AMOUNT_TEXT } from '../amount';
import type { Badge, Catalog, Condition, Filter, RankSet, Trigger } from '../catalog/schema';
import type { ProgressEntry } from '../events/player-events';
import { localIsoToEpochMs } from '../time/local-time';

const DAY_MS = 86_400_000;

/** A badge or trigger with its dates resolved to instants, ready to evaluate. */
export interface CompiledRule {
  kind: 'badge' | 'trigger';
  def: Badge | Trigger;
  startMs: number | null;
  endMs: number | null;
  conditions: CompiledCondition[];
  /** A Ranked rule's ranks, lowest first (sorted once here, not on each decision); empty for the others. */
  ranks: readonly RankSet['ranks'][number][];
}

export interface CompiledCondition {
  action: string;
  filters: Filter[];
  times: number | null;
  sum: { field: string; atLeast: number } | null;
  withinMs: number | null;
  between: [number, number] | null;
}

export interface CompiledRules {
  /** Rules with a condition on the action identifier, badges before triggers, required badges first. */
  byAction: Map<string, CompiledRule[]>;
  rules: Map<string, CompiledRule>;
  /** Badge uid -> uids of badges and triggers that require it. */
  dependents: Map<string, string[]>;
}

const compiled = new WeakMap<Catalog, CompiledRules>();

/** Compiles once per catalog version; the catalog objects are immutable once published. */
export function compileRules(catalog: Catalog): CompiledRules {
  const cached = compiled.get(catalog);
  if (cached) return cached;
  const tz = catalog.settings.timezone;
  const at = (iso: string | null | undefined) => (iso ? localIsoToEpochMs(iso, tz) : null);
  const rankSets = new Map(catalog.rankSets.map((r) => [r.uid, r]));
  const compile = (c: Condition) => compileCondition(c, tz);
  const compileRule = (kind: 'badge' | 'trigger', def: Badge | Trigger): CompiledRule => ({
    kind,
    def,
    startMs: at(def.startDate),
    endMs: at(def.endDate),
    conditions: def.conditions.map(compile),
    ranks: [...((def.rankSet && rankSets.get(def.rankSet)?.ranks) || [])].sort((a, b) => a.rank - b.rank),
  });
  const ordered = [
    ...orderByRequirement(catalog.badges).map((b) => compileRule('badge', b)),
    ...orderByRequirement(catalog.triggers).map((t) => compileRule('trigger', t)),
  ];
  const byAction = new Map<string, CompiledRule[]>();
  const dependents = new Map<string, string[]>();
  for (const rule of ordered) {
    if (!rule.def.isActive) continue;
    for (const action of new Set(rule.conditions.map((c) => c.action))) {
      const list = byAction.get(action) ?? [];
      list.push(rule);
      byAction.set(action, list);
    }
    if (rule.def.requiredBadge)
      dependents.set(rule.def.requiredBadge, [...(dependents.get(rule.def.requiredBadge) ?? []), rule.def.uid]);
  }
  const result: CompiledRules = { byAction, rules: new Map(ordered.map((r) => [r.def.uid, r])), dependents };
  compiled.set(catalog, result);
  return result;
}

/** A condition with its challenge's dates resolved to instants in the catalog's zone `timeZone`. */
export function compileCondition(c: Condition, timeZone: string): CompiledCondition {
  const at = (iso: string) => localIsoToEpochMs(iso, timeZone);
  return {
    action: c.action,
    filters: c.filters ?? [],
    times: c.challenge?.times ?? null,
    sum: c.challenge?.sum ? { field: c.challenge.sum.field, atLeast: c.challenge.sum.atLeast } : null,
    withinMs: c.challenge?.withinDays ? c.challenge.withinDays * DAY_MS : null,
    between: c.challenge?.between ? [at(c.challenge.between.start), at(c.challenge.between.end)] : null,
  };
}

/** Orders rules so that a required badge is evaluated before the rules that require it. */
function orderByRequirement<T extends Badge | Trigger>(rules: T[]): T[] {
  const byUid = new Map(rules.map((r) => [r.uid, r]));
  const done = new Set<string>();
  const out: T[] = [];
  const visit = (r: T) => {
    if (done.has(r.uid)) return;
    done.add(r.uid);
    const required = r.requiredBadge ? byUid.get(r.requiredBadge) : undefined;
    if (required) visit(required);
    out.push(r);
  };
  rules.forEach(visit);
  return out;
}

const asNumber = (s: string): number | null => {
  if (s.trim() === '') return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
};

/** Compares as numbers when both sides parse as numbers, else as strings (docs/catalog.md, "Filters"). */
function compare(detail: string, expected: string): number {
  const a = asNumber(detail);
  const b = asNumber(expected);
  if (a !== null && b !== null) return a === b ? 0 : a < b ? -1 : 1;
  return detail === expected ? 0 : detail < expected ? -1 : 1;
}

export function filterMatches(filter: Filter, details: ReadonlyMap<string, string>): boolean {
  const value = details.get(filter.name);
  if (value === undefined) return false;
  const expected = filter.value;
  switch (filter.op) {
    case 'eq':
      return compare(value, String(expected)) === 0;
    case 'ne':
      return compare(value, String(expected)) !== 0;
    case 'gt':
      return compare(value, String(expected)) > 0;
    case 'gte':
      return compare(value, String(expected)) >= 0;
    case 'lt':
      return compare(value, String(expected)) < 0;
    case 'lte':
      return compare(value, String(expected)) <= 0;
    case 'in':
      return (Array.isArray(expected) ? expected : String(expected).split(',')).some(
        (x) => compare(value, String(x).trim()) === 0,
      );
    case 'contains':
      return value.includes(String(expected));
  }
}

/** The detail value a condition sums, as a number (0 when absent or not numeric). */
export function summedValue(condition: CompiledCondition, details: ReadonlyMap<string, string>): number {
  if (!condition.sum) return 0;
  const raw = details.get(condition.sum.field);
  return raw === undefined ? 0 : (asNumber(raw) ?? 0);
}

/**
 * The first detail of an action, summed by its rules, whose number is outside the range of
 * amounts the engine holds (MAX_AMOUNT), as a message naming it; null when there is none. Summed
 * values are stored in the progress they count towards, so such a value is refused, not stored.
 */
export function summedDetailOutOfRange(
  rules: readonly CompiledRule[],
  action: string,
  details: ReadonlyMap<string, string>,
): string | null {
  for (const rule of rules) {
    for (const condition of rule.conditions) {
      if (condition.action !== action) continue;
      const value = summedValue(condition, details);
      if (!isAmountInRange(value))
        return `details: "${condition.sum!.field}" is ${value}, outside the range of amounts the engine holds (-${MAX_AMOUNT_TEXT} to ${MAX_AMOUNT_TEXT})`;
    }
  }
  return null;
}

/** Entries of a condition that count at instant `t`: not later than t, inside its windows. */
export function countedEntries(
  condition: CompiledCondition,
  entries: readonly ProgressEntry[],
  t: number,
): ProgressEntry[] {
  return entries.filter(
    (e) =>
      e.ts <= t &&
      (condition.withinMs === null || e.ts > t - condition.withinMs) &&
      (condition.between === null || (e.ts >= condition.between[0] && e.ts <= condition.between[1])),
  );
}

/** Whether a condition's challenge holds over the counted entries (at least one is always needed). */
export function challengeHolds(condition: CompiledCondition, counted: readonly ProgressEntry[]): boolean {
  if (counted.length === 0) return false;
  if (condition.times !== null && counted.length < condition.times) return false;
  if (condition.sum !== null) {
    let total = 0;
    for (const e of counted) total = addAmounts(total, e.value);
    if (total < condition.sum.atLeast) return false;
  }
  return true;
}

/** Whether a rank threshold is met by all the rule's qualifying entries (ranks have no window). */
export function rankThresholdMet(
  rank: { times?: number | null; sum?: number | null },
  perCondition: readonly (readonly ProgressEntry[])[],
): boolean {
  let times = 0;
  let total = 0;
  for (const entries of perCondition) {
    times += entries.length;
    for (const e of entries) total = addAmounts(total, e.value);
  }
  if (rank.times !== undefined && rank.times !== null) return times >= rank.times;
  if (rank.sum !== undefined && rank.sum !== null) return total >= rank.sum;
  return false;
}

export const withinDates = (rule: CompiledRule, t: number): boolean =>
  (rule.startMs === null || t >= rule.startMs) && (rule.endMs === null || t <= rule.endMs);
