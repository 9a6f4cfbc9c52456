/**
 * The badges and triggers step of a decision: the progress the action makes on each rule whose
 * condition it meets, and the badges, ranks and triggers it earns. One step for both: they are one
 * list of rules by action, and their awards keep that list's order.
 */
import { addAmounts } from '../../../domain/amount';
import type { Deliverable } from '../../../domain/catalog/schema';
import type { Grant } from '../../../domain/events/common';
import type { ActionProcessed, Award, ProgressEntry } from '../../../domain/events/player-events';
import { appliesTo } from '../../../domain/player/segments';
import type { PlayerView } from '../../../domain/player/state';
import {
  challengeHolds,
  compileRules,
  countedEntries,
  filterMatches,
  rankThresholdMet,
  summedValue,
  withinDates,
  type CompiledRule,
} from '../../../domain/rules/conditions';
import type { DecisionEnv } from '../../../domain/rules/decision-env';
import { grantOf } from '../../../domain/rules/grants';
import { pickByWeight } from '../../../domain/rules/weighted-pick';
import type { DecideEnv } from '../../decision';
import type { ProcessActionCommand } from './command';

/** Activations taken so far of limited triggers, by trigger uid: all a decision reads of them. */
export type ActivationsTaken = Pick<ReadonlyMap<string, number>, 'get'>;

export interface RuleOutcome {
  progress: ActionProcessed['progress'];
  awards: Award[];
}

/** What a counted action makes of the catalog's badges and triggers (in `env.catalog`, the player's game). */
export function awardsOf(
  cmd: Pick<ProcessActionCommand, 'name' | 'referenceId' | 'timestamp'>,
  state: PlayerView,
  env: DecideEnv,
  details: ReadonlyMap<string, string>,
  deliverables: ReadonlyMap<string, Deliverable>,
  activationsTaken: ActivationsTaken,
): RuleOutcome {
  const rules = compileRules(env.catalog);
  const progress: ActionProcessed['progress'] = [];
  const awards: Award[] = [];
  const t = cmd.timestamp;

  for (const rule of rules.byAction.get(cmd.name) ?? []) {
    const def = rule.def;
    if (!withinDates(rule, t)) continue;
    // Out of the rule's segment the action counts for nothing of it: no progress, no award.
    if (!appliesTo(env.catalog, def.segment, state)) continue;
    // A OneTimeOnly rule already held is done: nothing more to count.
    if (def.type === 'OneTimeOnly' && holds(state, awards, def.uid)) continue;

    // The held entries with this action's added, copied only where it adds one: the held ones are long, and only read.
    let current: (readonly ProgressEntry[])[] | null = null;
    for (let i = 0; i < rule.conditions.length; i++) {
      const condition = rule.conditions[i];
      if (condition.action !== cmd.name || !condition.filters.every((f) => filterMatches(f, details))) continue;
      const entry: ProgressEntry = { ref: cmd.referenceId, ts: t, value: summedValue(condition, details) };
      progress.push({ rule: def.uid, condition: i, entry });
      current ??= (state.progress.get(def.uid) ?? []).slice();
      current[i] = (current[i] ?? []).concat(entry);
    }
    if (!current) continue;
    if (def.requiredBadge && !holds(state, awards, def.requiredBadge)) continue;

    const counted = rule.conditions.map((c, i) => countedEntries(c, current[i] ?? [], t));
    if (!rule.conditions.every((c, i) => challengeHolds(c, counted[i]))) continue;
    // A limited trigger with no activation left over all players does not fire. Read last, only
    // for a trigger that would fire: a replay split between threads checks every count it read.
    if (rule.kind === 'trigger' && 'limited' in def && def.limited && exhausted(activationsTaken, def.uid, def.limit))
      continue;

    if (def.type === 'Ranked') {
      for (const award of rankAwards(rule, state, current, deliverables)) awards.push(award);
    } else {
      // The award consumes the progress up to now: a Repeatable rule starts again from zero.
      const consumed = rule.conditions.map((_, i) => (current[i] ?? []).filter((e) => e.ts <= t));
      awards.push(ruleAward(rule, null, def.points, pickGrants(rule, env, deliverables), consumed));
    }
  }
  return { progress, awards };
}

/**
 * Whether the player holds the badge or trigger, or this action awards it. A module function, as
 * `exhausted`: a closure per decision is named (and so slowed down) by the compiler's keepNames.
 */
const holds = (state: PlayerView, awards: readonly Award[], uid: string): boolean =>
  state.holdingsByUid.has(uid) || awards.some((a) => a.uid === uid);

/** Whether a limited trigger has no activation left over all players (one given no count has none). */
const exhausted = (activationsTaken: ActivationsTaken, trigger: string, limit: number): boolean =>
  (activationsTaken.get(trigger) ?? limit) >= limit;

function ruleAward(
  rule: CompiledRule,
  rank: Award['rank'],
  points: number,
  grants: Grant[],
  consumed: ProgressEntry[][],
): Award {
  const def = rule.def;
  return {
    kind: rule.kind,
    uid: def.uid,
    label: def.label,
    ruleType: def.type,
    rank,
    points,
    imageName: def.imageName ?? null,
    grants,
    consumed,
    limited: rule.kind === 'trigger' && 'limited' in def && def.limited,
  };
}

/** Ranks are earned in ascending order, several in one action when thresholds allow. */
function rankAwards(
  rule: CompiledRule,
  state: PlayerView,
  current: readonly (readonly ProgressEntry[])[],
  deliverables: ReadonlyMap<string, Deliverable>,
): Award[] {
  const held = new Set((state.holdingsByUid.get(rule.def.uid) ?? []).filter((h) => h.rank).map((h) => h.rank!.rank));
  const out: Award[] = [];
  for (const rank of rule.ranks) {
    if (held.has(rank.rank)) continue;
    if (!rankThresholdMet(rank, current)) break;
    // The badge itself is earned with its first rank: its own points and deliverables come then.
    const first = held.size === 0 && out.length === 0;
    const grants = (rank.deliverables ?? []).map((x) => grantOf(deliverables.get(x.deliverable)!, x.amount));
    if (first) grants.unshift(...rule.def.deliverables.map((x) => grantOf(deliverables.get(x.deliverable)!, x.amount)));
    out.push(
      ruleAward(
        rule,
        { rank: rank.rank, label: rank.label },
        addAmounts(rank.points ?? 0, first ? rule.def.points : 0),
        grants,
        [],
      ),
    );
  }
  return out;
}

/** A randomized-prize trigger grants ONE of its deliverables, picked by weight. */
function pickGrants(rule: CompiledRule, env: DecisionEnv, deliverables: ReadonlyMap<string, Deliverable>): Grant[] {
  const def = rule.def;
  const refs = def.deliverables;
  if (!(rule.kind === 'trigger' && 'randomizedPrize' in def && def.randomizedPrize) || refs.length === 0) {
    return refs.map((x) => grantOf(deliverables.get(x.deliverable)!, x.amount));
  }
  const picked = pickByWeight(env.random, refs, (x) => ('weight' in x && typeof x.weight === 'number' ? x.weight : 1));
  return [grantOf(deliverables.get(picked.deliverable)!, picked.amount)];
}
