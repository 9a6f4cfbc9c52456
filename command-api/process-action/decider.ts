import { addAmounts, multiplyAmount } from '../../shared/amount';
import { indexCatalog } from '../../shared/catalog/catalog-index';
import type { Catalog, Deliverable } from '../../shared/catalog/schema';
import { fail, ok, type Result } from '../../shared/http/envelope';
import { noEffects, type Grant } from '../../shared/events/common';
import type { ActionProcessed, ActionResult, Award, LevelReached, ProgressEntry } from '../../shared/events/player-events';
import { addBalance, effectsOfGrants, grantOf, levelsReachedAt, type DecisionEnv } from '../player/grants';
import { balanceOf, isValidPowerup, type PlayerState } from '../player/state';
import { pickByWeight } from '../player/weighted-pick';
import { challengeHolds, compileRules, countedEntries, filterMatches, rankThresholdMet, summedValue, withinDates, type CompiledRule } from './rules';

export interface ProcessActionCommand {
  /** Canonical lowercase dashed uuid. */
  playerId: string;
  referenceId: string;
  name: string;
  /** Unix ms the rules use. */
  timestamp: number;
  multiplier: number;
  details: { name: string; value: string }[];
}

export interface ProcessActionEnv extends DecisionEnv {
  catalog: Catalog;
  /** Limited triggers with no activation left over all players. */
  exhaustedTriggers: ReadonlySet<string>;
  /** The uid of the action cost's provision: chosen once per request, so a re-decision keeps it. */
  costProvisionUid: string;
}

export type PlayerEventOut = { type: 'PlayerRegistered' | 'ActionProcessed'; data: unknown };

export interface ProcessActionDecision {
  events: PlayerEventOut[];
  processed: ActionProcessed;
}

/** A player known to the rules: registered, or registered by this decision. */
export function registration(catalog: Catalog, state: PlayerState, playerId: string, env: DecisionEnv, username?: string, imageName?: string | null) {
  const levels = levelsReachedAt(catalog, state, 0);
  const grants = levels.flatMap((l) => l.grants);
  return {
    type: 'PlayerRegistered' as const,
    data: { playerId, username: username ?? playerId, imageName: imageName ?? null, registeredAt: env.now, levels, effects: effectsOfGrants(catalog, grants, env) },
  };
}

/**
 * Decides everything one action earns: the action's points and deliverables, badges, ranks,
 * triggers and levels, powerup multipliers, and the cost. The whole decision goes into one
 * ActionProcessed event, so replays and reversals never re-run the rules.
 */
export function decideProcessAction(cmd: ProcessActionCommand, state: PlayerState, env: ProcessActionEnv): Result<ProcessActionDecision> {
  const { catalog } = env;
  const index = indexCatalog(catalog);
  const action = index.actionByIdentifier.get(cmd.name);
  if (!action || !action.isActive) return fail(5004, 'Action does not exist or is inactive');
  if (state.processed.has(cmd.referenceId)) return fail(2601, 'Duplicate action');

  const events: PlayerEventOut[] = [];
  let player = state;
  if (!state.registered) {
    if (!catalog.settings.autoRegisterPlayers) return fail(5003, 'PlayerId does not exist');
    const registered = registration(catalog, state, cmd.playerId, env);
    events.push(registered);
    // Levels reached at registration must not be granted again below; what they grant can pay the cost.
    const balances = new Map(state.balances);
    for (const b of registered.data.effects.balances) balances.set(b.deliverableUid, addAmounts(balances.get(b.deliverableUid) ?? 0, b.amount));
    player = { ...state, balances, levelsReached: new Map([...state.levelsReached, ...registered.data.levels.map((l) => [l.uid, l.level] as const)]) };
  }

  const deliverables = index.deliverableByUid;
  let cost: ActionProcessed['cost'] = null;
  if (action.cost > 0) {
    const currency = deliverables.get(action.costDeliverable!)!;
    if (balanceOf(player, currency.uid) < action.cost) return fail(9001, `Insufficient funds: the action costs ${action.cost} ${currency.label}`);
    cost = { deliverableUid: currency.uid, label: currency.label, amount: action.cost, provisionUid: env.costProvisionUid };
  }

  // pointGap: within the gap the action still counts for conditions but earns no points itself.
  const last = player.lastPointAward.get(action.identifier);
  const pointsAwarded = action.pointGap <= 0 || last === undefined || Math.abs(cmd.timestamp - last) >= action.pointGap * 1000;
  const actionPoints = pointsAwarded ? multiplyAmount(action.points, cmd.multiplier) : 0;
  const actionGrants = action.deliverables.map((x) => grantOf(deliverables.get(x.deliverable)!, multiplyAmount(x.amount, cmd.multiplier)));

  const details = new Map(cmd.details.map((d) => [d.name, d.value]));
  const { progress, awards } = evaluateRules(cmd, player, env, details, deliverables);

  const awardPoints = awards.reduce((sum, a) => addAmounts(sum, a.points), 0);
  const earnedPoints = addAmounts(actionPoints, awardPoints);
  const levels = levelsReachedAt(catalog, player, addAmounts(player.points, earnedPoints));

  // Active powerups multiply the Prize amounts this action grants; each one that applies uses one use.
  const powered = applyPowerups(player, env, deliverables, [actionGrants, ...awards.map((a) => a.grants), ...levels.map((l) => l.grants)]);
  const [poweredActionGrants, ...rest] = powered.grantLists;
  const poweredAwards: Award[] = awards.map((a, i) => ({ ...a, grants: rest[i] }));
  const poweredLevels: LevelReached[] = levels.map((l, i) => ({ ...l, grants: rest[awards.length + i] }));
  const allGrants = [...poweredActionGrants, ...poweredAwards.flatMap((a) => a.grants), ...poweredLevels.flatMap((l) => l.grants)];

  const effects = effectsOfGrants(catalog, allGrants, env, noEffects());
  effects.points = earnedPoints;
  if (cost) addBalance(effects, cost.deliverableUid, -cost.amount);
  effects.powerupUses = powered.uses.map((uid) => ({ uid, uses: 1 }));

  const achieved = poweredLevels[poweredLevels.length - 1];
  const result: ActionResult = {
    playerId: cmd.playerId,
    referenceId: cmd.referenceId,
    badges: nullIfEmpty(poweredAwards.filter((a) => a.kind === 'badge').map((a) => ({ uid: a.uid, label: a.label, type: a.ruleType, points: a.points, imageName: a.imageName, rank: a.rank }))),
    triggers: nullIfEmpty(poweredAwards.filter((a) => a.kind === 'trigger').map((a) => ({ uid: a.uid, label: a.label, points: a.points }))),
    achievedLevel: achieved ? { uid: achieved.uid, label: achieved.label, level: achieved.level, target: achieved.target, imageName: achieved.imageName } : null,
    earnedPoints,
    deliverables: nullIfEmpty(allGrants),
    ...(cost ? { provisionUid: cost.provisionUid } : {}),
  };

  const processed: ActionProcessed = {
    playerId: cmd.playerId,
    referenceId: cmd.referenceId,
    actionUid: action.uid,
    actionName: action.identifier,
    timestamp: cmd.timestamp,
    multiplier: cmd.multiplier,
    details: cmd.details,
    actionPoints,
    pointsAwarded,
    actionGrants: poweredActionGrants,
    cost,
    progress,
    awards: poweredAwards,
    levels: poweredLevels,
    result,
    effects,
  };
  events.push({ type: 'ActionProcessed', data: processed });
  return ok({ events, processed });
}

const nullIfEmpty = <T>(xs: T[]): T[] | null => (xs.length ? xs : null);

interface RuleOutcome {
  progress: ActionProcessed['progress'];
  awards: Award[];
}

function evaluateRules(cmd: ProcessActionCommand, state: PlayerState, env: ProcessActionEnv, details: ReadonlyMap<string, string>, deliverables: ReadonlyMap<string, Deliverable>): RuleOutcome {
  const rules = compileRules(env.catalog);
  const progress: ActionProcessed['progress'] = [];
  const awards: Award[] = [];
  const t = cmd.timestamp;
  const holds = (uid: string) => state.holdingsByUid.has(uid) || awards.some((a) => a.uid === uid);

  for (const rule of rules.byAction.get(cmd.name) ?? []) {
    const def = rule.def;
    if (!withinDates(rule, t)) continue;
    // A OneTimeOnly rule already held is done: nothing more to count.
    if (def.type === 'OneTimeOnly' && holds(def.uid)) continue;

    const current = (state.progress.get(def.uid) ?? []).map((entries) => [...entries]);
    let qualified = false;
    rule.conditions.forEach((condition, i) => {
      if (condition.action !== cmd.name || !condition.filters.every((f) => filterMatches(f, details))) return;
      const entry: ProgressEntry = { ref: cmd.referenceId, ts: t, value: summedValue(condition, details) };
      progress.push({ rule: def.uid, condition: i, entry });
      (current[i] ??= []).push(entry);
      qualified = true;
    });
    if (!qualified) continue;
    if (def.requiredBadge && !holds(def.requiredBadge)) continue;
    if (rule.kind === 'trigger' && 'limited' in def && def.limited && env.exhaustedTriggers.has(def.uid)) continue;

    const counted = rule.conditions.map((c, i) => countedEntries(c, current[i] ?? [], t));
    if (!rule.conditions.every((c, i) => challengeHolds(c, counted[i]))) continue;

    if (def.type === 'Ranked') {
      awards.push(...rankAwards(rule, state, current, deliverables));
    } else {
      // The award consumes the progress up to now: a Repeatable rule starts again from zero.
      const consumed = rule.conditions.map((_, i) => (current[i] ?? []).filter((e) => e.ts <= t));
      awards.push(ruleAward(rule, null, def.points, pickGrants(rule, env, deliverables), consumed));
    }
  }
  return { progress, awards };
}

function ruleAward(rule: CompiledRule, rank: Award['rank'], points: number, grants: Grant[], consumed: ProgressEntry[][]): Award {
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
function rankAwards(rule: CompiledRule, state: PlayerState, current: ProgressEntry[][], deliverables: ReadonlyMap<string, Deliverable>): Award[] {
  const held = new Set((state.holdingsByUid.get(rule.def.uid) ?? []).filter((h) => h.rank).map((h) => h.rank!.rank));
  const out: Award[] = [];
  const ranks = [...(rule.rankSet?.ranks ?? [])].sort((a, b) => a.rank - b.rank);
  for (const rank of ranks) {
    if (held.has(rank.rank)) continue;
    if (!rankThresholdMet(rank, current)) break;
    // The badge itself is earned with its first rank: its own points and deliverables come then.
    const first = held.size === 0 && out.length === 0;
    const grants = (rank.deliverables ?? []).map((x) => grantOf(deliverables.get(x.deliverable)!, x.amount));
    if (first) grants.unshift(...rule.def.deliverables.map((x) => grantOf(deliverables.get(x.deliverable)!, x.amount)));
    out.push(ruleAward(rule, { rank: rank.rank, label: rank.label }, addAmounts(rank.points ?? 0, first ? rule.def.points : 0), grants, []));
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

/** Multiplies target Prize amounts by every activated, valid powerup; reports which were used. */
function applyPowerups(state: PlayerState, env: DecisionEnv, deliverables: ReadonlyMap<string, Deliverable>, grantLists: Grant[][]): { grantLists: Grant[][]; uses: string[] } {
  const active = activePowerups(state, env.now);
  if (!active.length) return { grantLists, uses: [] };
  const used = new Set<string>();
  const out = grantLists.map((grants) =>
    grants.map((g) => {
      if (deliverables.get(g.uid)?.type !== 'Prize') return g;
      let amount = g.amount;
      for (const p of active) {
        if (p.instance.targetPrizes.length && !p.instance.targetPrizes.includes(g.uid)) continue;
        amount = multiplyAmount(amount, p.instance.multiplier);
        used.add(p.instance.uid);
      }
      return amount === g.amount ? g : { ...g, amount };
    }),
  );
  return { grantLists: out, uses: [...used] };
}

/** Powerups that apply now: activated, not expired, uses left. */
export function activePowerups(state: PlayerState, nowMs: number) {
  return [...state.powerups.values()].filter((p) => p.activated && isValidPowerup(p, nowMs));
}
