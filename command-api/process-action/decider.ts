/** Processing an action: every rule it triggers (points, badges, ranks, triggers, levels, powerups, cost). */
import { addAmounts, multiplyAmount } from '../../domain/amount';
import { indexCatalog } from '../../domain/catalog/catalog-index';
import type { Catalog, Deliverable } from '../../domain/catalog/schema';
import { noEffects, type Grant } from '../../domain/events/common';
import type {
  ActionProcessed,
  ActionResult,
  Award,
  LevelReached,
  MissionMove,
  PlayerRegistered,
  ProgressEntry,
  StreakStep,
} from '../../domain/events/player-events';
import { isValidPowerup, type PlayerState, type PlayerView } from '../../domain/player/state';
import { fail, ok, type Result } from '../../domain/result';
import { catalogForPlayer } from '../../domain/catalog/experiments';
import { experimentsOfAction } from '../../domain/rules/experiments';
import type { PlayerEvent } from '../../domain/events';
import {
  challengeHolds,
  compileRules,
  countedEntries,
  filterMatches,
  rankThresholdMet,
  summedDetailOutOfRange,
  summedValue,
  withinDates,
  type CompiledRule,
} from '../../domain/rules/conditions';
import type { DecisionEnv } from '../../domain/rules/decision-env';
import { capActionPoints, capEarnings, timesCapReached, timesUses, type CapClock } from '../../domain/rules/caps';
import { addBalance, effectsOfGrants, grantOf } from '../../domain/rules/grants';
import { levelsReachedAt } from '../../domain/rules/levels';
import { availableBalance, lotsDrawn, negated } from '../../domain/rules/lots';
import {
  advance,
  allStepsCompleted,
  compileMissions,
  isUnlocked,
  missionDetailOutOfRange,
  missionPeriodOf,
  stepMatches,
  withinWindow,
  type MissionPosition,
} from '../../domain/rules/missions';
import { countsFor, milestonesAt, NO_RUN, step } from '../../domain/rules/streaks';
import { appliesTo } from '../../domain/player/segments';
import { periodOf } from '../../domain/time/calendar';
import { scopedAttributes } from '../../domain/player/attributes';
import { pickByWeight } from '../../domain/rules/weighted-pick';
import { playerStream, provisionStream, referenceStream, stockStream, TRIGGER_ACTIVATIONS } from '../../domain/streams';
import { decision, type DecideEnv, type Decider, type StreamWrite } from '../decision';
import { folded, type Reads, type UseCase } from '../use-case';
import { PLAYER_FOLD } from '../../domain/player/fold';
import { REFERENCE_FOLD } from '../../domain/reference';
import { STOCK_FOLD } from '../../domain/stock/stock';
import { registrationOf } from '../register-player/decider';
import { currencyExpiryJobs } from '../currency-expiry/decider';
import { momentJobsAfterAction } from '../../domain/rules/moments';
import { seasonJobsOfAction } from '../settle-season/decider';
import { leagueStep } from '../league-entry/decider';
import { ERRORS, refuse } from '../../domain/errors';

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

export interface ProcessActionState {
  player: PlayerState;
  /** Revision of the player's stream the state is folded up to (-1: a new player). */
  playerRevision: number;
  /** The referenceId is recorded already, by this player or another. */
  referenceTaken: boolean;
  /** Activations taken so far of each limited trigger the action can award, by trigger uid. */
  activationsTaken: ActivationsTaken;
}

/** Activations taken so far of limited triggers, by trigger uid: all a decision reads of them. */
export type ActivationsTaken = Pick<ReadonlyMap<string, number>, 'get'>;

/** Limited triggers with a condition on an action: the stocks a decision on it must read. */
export function limitedTriggersOf(catalog: Catalog, actionName: string): { uid: string; limit: number }[] {
  return (compileRules(catalog).byAction.get(actionName) ?? []).flatMap((rule) =>
    'limited' in rule.def && rule.def.limited ? [{ uid: rule.def.uid, limit: rule.def.limit }] : [],
  );
}

/** The limited triggers of an action in the base game and in every variant's: whichever the player plays. */
function limitedTriggersOfAnyGame(catalog: Catalog, actionName: string): { uid: string; limit: number }[] {
  if (!catalog.experiments?.length) return limitedTriggersOf(catalog, actionName);
  const games = [catalog].concat(
    (catalog.experiments ?? []).flatMap((e) =>
      e.variants.map((v) => catalogForPlayer(catalog, [{ uid: e.uid, variant: v.uid }])),
    ),
  );
  const byUid = new Map<string, { uid: string; limit: number }>();
  for (const game of new Set(games))
    for (const trigger of limitedTriggersOf(game, actionName))
      if (!byUid.has(trigger.uid)) byUid.set(trigger.uid, trigger);
  return [...byUid.values()];
}

/**
 * Decides everything one action earns: the action's points and deliverables, badges, ranks,
 * triggers, streaks and levels, powerup multipliers, caps, and the cost. The whole decision goes into one
 * ActionProcessed event, so replays and reversals never re-run the rules. Written with it, in one
 * append: the referenceId's record (expected not to exist: a second one is the duplicate), one
 * activation of each limited trigger awarded, and the cost's provision.
 */
export const decideProcessAction: Decider<ProcessActionCommand, ProcessActionState, ActionResult> = (
  cmd,
  state,
  baseEnv,
) => {
  const base = baseEnv.catalog;
  // The player as the action finds them: registered by it when new. Its registration is refused
  // below, after the refusals that come first; the levels it reaches count for segments and the cost.
  let registration: Result<PlayerRegistered> | null = null;
  let registered: PlayerRegistered | null = null;
  let player = state.player;
  if (!player.registered && base.settings.autoRegisterPlayers) {
    registration = registrationOf(base, player, cmd.playerId, baseEnv);
    if (registration.ok) {
      registered = registration.value;
      // Levels reached at registration must not be granted again below; what they grant can pay the cost.
      const balances = new Map(player.balances);
      for (const b of registered.effects.balances)
        balances.set(b.deliverableUid, addAmounts(balances.get(b.deliverableUid) ?? 0, b.amount));
      player = {
        ...player,
        balances,
        levelsReached: new Map([...player.levelsReached, ...registered.levels.map((l) => [l.uid, l.level] as const)]),
      };
    }
  }
  // The action is decided under the player's variant of each experiment in force (base + patches).
  const experiments = experimentsOfAction(base, player, cmd.playerId, cmd.timestamp);
  const catalog = catalogForPlayer(base, experiments.inForce);
  const env = catalog === base ? baseEnv : { ...baseEnv, catalog };
  const index = indexCatalog(catalog);
  const action = index.actionByIdentifier.get(cmd.name);
  if (!action || !action.isActive) return refuse(ERRORS.ACTION_INACTIVE);
  if (state.referenceTaken || state.player.processed.has(cmd.referenceId)) return refuse(ERRORS.DUPLICATE_ACTION);
  if (!state.player.registered) {
    if (!base.settings.autoRegisterPlayers) return refuse(ERRORS.PLAYER_DOES_NOT_EXIST);
    if (registration && !registration.ok) return registration;
  }

  // Caps count periods of the player's calendar, in the zone in force now.
  const clock: CapClock = { timestamp: cmd.timestamp, timeZone: player.timeZone ?? catalog.settings.timezone };
  // Past a times cap the action is recorded but counts for nothing: no cost, points, grants or rules.
  const timesCap = timesCapReached(action, player, clock);
  const counts = timesCap === null;

  const deliverables = index.deliverableByUid;
  let cost: ActionProcessed['cost'] = null;
  if (counts && action.cost > 0) {
    const currency = deliverables.get(action.costDeliverable!)!;
    if (availableBalance(player, currency.uid, env.now) < action.cost)
      return refuse(ERRORS.INSUFFICIENT_FUNDS, `the action costs ${action.cost} ${currency.label}`);
    cost = { deliverableUid: currency.uid, label: currency.label, amount: action.cost, provisionUid: env.newUid() };
    const drawn = lotsDrawn(player, currency.uid, action.cost, env.now);
    if (drawn.length) cost.lots = drawn;
  }

  // pointGap: within the gap the action still counts for conditions but earns no points itself.
  const last = player.lastPointAward.get(action.identifier);
  const pointsAwarded =
    counts && (action.pointGap <= 0 || last === undefined || Math.abs(cmd.timestamp - last) >= action.pointGap * 1000);
  const pointsCapped = capActionPoints(
    action,
    player,
    clock,
    pointsAwarded ? multiplyAmount(action.points, cmd.multiplier) : 0,
  );
  const actionPoints = pointsCapped.points;
  const actionGrants = counts
    ? action.deliverables.map((x) =>
        grantOf(deliverables.get(x.deliverable)!, multiplyAmount(x.amount, cmd.multiplier)),
      )
    : [];

  const details = new Map<string, string>();
  for (const d of cmd.details) details.set(d.name, d.value);
  const outOfRange = summedDetailOutOfRange(compileRules(catalog).byAction.get(cmd.name) ?? [], cmd.name, details);
  if (outOfRange) return fail(1001, outOfRange);
  const missionOutOfRange = missionDetailOutOfRange(compileMissions(catalog), cmd.name, details);
  if (missionOutOfRange) return fail(1001, missionOutOfRange);
  const { progress, awards } = counts
    ? evaluateRules(cmd, player, env, details, deliverables, state.activationsTaken)
    : { progress: [], awards: [] };

  const streakMoves = counts ? streakStepsOf(catalog, player, cmd, details, clock.timeZone) : [];
  const milestones = streakMoves.flatMap((s) => s.milestones);
  const missionSteps = counts ? missionStepsOf(catalog, player, cmd, details, clock.timeZone) : [];
  const completed = missionSteps.filter((m) => m.completes).map((m) => m.mission);

  const awardPoints = [awards, milestones, completed].reduce(
    (sum, list) => list.reduce((s, a) => addAmounts(s, a.points), sum),
    0,
  );
  const earnedPoints = addAmounts(actionPoints, awardPoints);
  const levels = levelsReachedAt(catalog, player, addAmounts(player.points, earnedPoints));

  // Active powerups multiply the Prize amounts this action grants; each one that applies uses one use.
  const milestoneGrants = milestones.map((m) =>
    m.deliverables.map((x) => grantOf(deliverables.get(x.deliverable)!, x.amount)),
  );
  const completionGrants = completed.map((m) =>
    m.deliverables.map((x) => grantOf(deliverables.get(x.deliverable)!, x.amount)),
  );
  // concat rather than spreads: a spread's iterators were a fair share of a decision's garbage.
  const powered = applyPowerups(
    player,
    env,
    deliverables,
    [actionGrants].concat(
      awards.map((a) => a.grants),
      levels.map((l) => l.grants),
      milestoneGrants,
      completionGrants,
    ),
  );
  // Earn caps cut what is granted after powerups: the amounts a player actually receives.
  const earned = capEarnings(powered.grantLists, deliverables, player, clock);
  const poweredActionGrants = earned.grantLists[0];
  const rest = earned.grantLists.slice(1);
  const poweredAwards: Award[] = awards.map((a, i) => ({ ...a, grants: rest[i] }));
  const poweredLevels: LevelReached[] = levels.map((l, i) => ({ ...l, grants: rest[awards.length + i] }));
  const milestonesGranted = rest.slice(
    awards.length + levels.length,
    awards.length + levels.length + milestones.length,
  );
  const completionsGranted = rest.slice(awards.length + levels.length + milestones.length);
  let nextMilestone = 0;
  const streakSteps: StreakStep[] = streakMoves.map(({ streak, period, step: s, milestones: reached }) => ({
    uid: streak.uid,
    label: streak.label,
    period,
    length: s.run.length,
    longest: s.run.longest,
    lastPeriod: s.run.lastPeriod ?? period,
    freezes: s.run.freezes,
    freezesUsed: s.freezesUsed,
    extended: s.extended,
    milestones: reached.map((m) => ({
      length: m.length,
      points: m.points,
      grants: milestonesGranted[nextMilestone++],
    })),
  }));
  let nextCompletion = 0;
  const missionMoves: MissionMove[] = missionSteps.map(
    ({ mission, period, matches, counted, position, completes }) => ({
      uid: mission.uid,
      label: mission.label,
      period,
      matches,
      counted,
      completedSteps: position.steps.flatMap((s, i) => (s.completed ? [i] : [])),
      completion: completes ? { points: mission.points, grants: completionsGranted[nextCompletion++] } : null,
    }),
  );
  // The action's, the awards', the levels', the milestones' and the completions' grants, in that order: the lists as cut.
  const allGrants = earned.grantLists.flat();

  // Lots of currencies that expire count from the action's timestamp, in the player's calendar.
  const granted = effectsOfGrants(catalog, allGrants, env, noEffects(), clock);
  if (!granted.ok) return granted;
  const effects = granted.value;
  effects.points = earnedPoints;
  if (cost) addBalance(effects, cost.deliverableUid, -cost.amount);
  if (cost?.lots) effects.lots = negated(cost.lots).concat(effects.lots ?? []);
  effects.powerupUses = powered.uses.map((uid) => ({ uid, uses: 1 }));

  const achieved = poweredLevels[poweredLevels.length - 1];
  const result: ActionResult = {
    playerId: cmd.playerId,
    referenceId: cmd.referenceId,
    badges: nullIfEmpty(
      poweredAwards
        .filter((a) => a.kind === 'badge')
        .map((a) => ({
          uid: a.uid,
          label: a.label,
          type: a.ruleType,
          points: a.points,
          imageName: a.imageName,
          rank: a.rank,
        })),
    ),
    triggers: nullIfEmpty(
      poweredAwards.filter((a) => a.kind === 'trigger').map((a) => ({ uid: a.uid, label: a.label, points: a.points })),
    ),
    achievedLevel: achieved
      ? {
          uid: achieved.uid,
          label: achieved.label,
          level: achieved.level,
          target: achieved.target,
          imageName: achieved.imageName,
        }
      : null,
    earnedPoints,
    deliverables: nullIfEmpty(allGrants),
    ...(cost ? { provisionUid: cost.provisionUid } : {}),
    streaks: nullIfEmpty(
      streakSteps.map((s) => ({
        uid: s.uid,
        label: s.label,
        length: s.length,
        extended: s.extended,
        freezesUsed: s.freezesUsed,
        freezesLeft: s.freezes,
        milestones: s.milestones.map((m) => ({ length: m.length, points: m.points, deliverables: m.grants })),
      })),
    ),
    missions: nullIfEmpty(
      missionMoves.flatMap((m, i) =>
        m.counted.length > 0 || m.completion !== null
          ? [
              {
                uid: m.uid,
                label: m.label,
                stepsCompleted: m.completedSteps.length,
                stepsTotal: missionSteps[i].mission.steps.length,
                completed: m.completion !== null,
              },
            ]
          : [],
      ),
    ),
    capped: nullIfEmpty(
      timesCap
        ? [{ period: timesCap.period, kind: 'times' as const, limit: timesCap.times! }]
        : pointsCapped.cuts.concat(earned.cuts),
    ),
  };
  if (experiments.inForce.length) result.experiments = experiments.inForce;
  const allowances = counts ? timesUses(action, clock).concat(pointsCapped.uses, earned.uses) : [];

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
    decidedAt: env.now,
  };
  // The optional fields, where they say something, in this order (set one by one: a spread of each made an object more).
  if (timesCap) processed.timesCapped = true;
  if (allowances.length) processed.allowances = allowances;
  if (streakSteps.length) processed.streaks = streakSteps;
  if (missionMoves.length) processed.missions = missionMoves;
  // The leaderboard scopes the action counts on: the player's values now, whatever they become later.
  const scopes = scopedAttributes(catalog, player.attributes);
  if (scopes) processed.attributes = scopes;
  if (experiments.inForce.length) processed.experiments = experiments.inForce;
  const leagues = counts
    ? leagueStep(
        catalog,
        player,
        { name: action.identifier, timestamp: cmd.timestamp, points: earnedPoints, playerId: cmd.playerId },
        env.now,
      )
    : null;
  if (leagues?.contributions.length) processed.leagues = leagues.contributions;
  // The registration, the experiments the action joins, then its decision (the reference names its revision).
  const playerEvents: PlayerEvent[] = [];
  if (registered) playerEvents.push({ type: 'PlayerRegistered', data: registered });
  for (const join of experiments.joins)
    playerEvents.push({
      type: 'ExperimentJoined',
      data: {
        playerId: cmd.playerId,
        ...join,
        referenceId: cmd.referenceId,
        joinedAt: cmd.timestamp,
        timeZone: clock.timeZone,
        effects: noEffects(),
      },
    });
  playerEvents.push({ type: 'ActionProcessed', data: processed });
  const writes: StreamWrite[] = [
    { stream: playerStream(cmd.playerId), events: playerEvents },
    {
      stream: referenceStream(cmd.referenceId),
      events: [
        {
          type: 'ReferenceRecorded',
          data: {
            referenceId: cmd.referenceId,
            playerId: cmd.playerId,
            actionName: action.identifier,
            playerRevision: state.playerRevision + playerEvents.length,
          },
        },
      ],
    },
  ];
  for (const a of poweredAwards)
    if (a.limited)
      writes.push({
        stream: stockStream(TRIGGER_ACTIVATIONS, a.uid),
        events: [
          {
            type: TRIGGER_ACTIVATIONS.taken,
            data: { resourceUid: a.uid, holder: cmd.referenceId, playerId: cmd.playerId, units: 1 },
          },
        ],
      });
  if (cost) {
    const { provisionUid, ...charged } = cost;
    const opened = {
      provisionUid,
      playerId: cmd.playerId,
      referenceType: 'Action' as const,
      bundleUid: null,
      referenceId: cmd.referenceId,
      cost: charged,
      status: 'Completed' as const,
      createDate: cmd.timestamp,
    };
    writes.push({
      stream: provisionStream(provisionUid),
      events: [{ type: 'ProvisionOpened', data: opened }],
      expectedRevision: 'no_stream',
    });
  }
  if (leagues) writes.push(...leagues.writes);
  const jobs = currencyExpiryJobs(
    cmd.playerId,
    registered?.effects.lots ? registered.effects.lots.concat(effects.lots ?? []) : effects.lots,
  ).concat(momentJobsAfterAction(catalog, player, processed, clock.timeZone, env.now));
  if (leagues?.jobs.length) jobs.push(...leagues.jobs);
  // Most catalogs have no season prizes: nothing to look through.
  if (counts && catalog.leaderboards.length)
    jobs.push(
      ...seasonJobsOfAction(
        catalog,
        { name: action.identifier, timestamp: cmd.timestamp, points: earnedPoints },
        env.now,
      ),
    );
  return ok(decision(result, writes, jobs));
};

const nullIfEmpty = <T>(xs: T[]): T[] | null => (xs.length ? xs : null);

/** Each active streak the action counts for, with the step it makes in the period of its timestamp. */
function streakStepsOf(
  catalog: Catalog,
  player: PlayerView,
  cmd: ProcessActionCommand,
  details: ReadonlyMap<string, string>,
  timeZone: string,
) {
  return catalog.streaks
    .filter((streak) => countsFor(streak, cmd.name, details) && appliesTo(catalog, streak.segment, player))
    .map((streak) => {
      const period = periodOf(cmd.timestamp, streak.period, timeZone);
      const s = step(streak, player.streaks.get(streak.uid) ?? NO_RUN, period, timeZone);
      return { streak, period, step: s, milestones: milestonesAt(streak, s) };
    });
}

/**
 * Each active mission with a step whose condition the action meets, in its window, unlocked by
 * what the player held before the action: the action's period, its step matches, the steps it was
 * an entry of, the position after it, and whether it completes the mission.
 */
function missionStepsOf(
  catalog: Catalog,
  player: PlayerView,
  cmd: ProcessActionCommand,
  details: ReadonlyMap<string, string>,
  timeZone: string,
) {
  return compileMissions(catalog).flatMap((m) => {
    const matches = stepMatches(m, cmd.name, details);
    if (matches.length === 0 || !withinWindow(m, cmd.timestamp) || !isUnlocked(m.def, player)) return [];
    if (!appliesTo(catalog, m.def.segment, player)) return [];
    const period = missionPeriodOf(m.def, cmd.timestamp, timeZone);
    const held = player.missions.get(m.def.uid)?.periods.get(period);
    const before: MissionPosition = {
      // The held steps are the state's: the position the move records is a copy.
      steps: m.conditions.map((_, i) => {
        const step = held?.steps[i];
        return step ? { entries: [...step.entries], completed: step.completed } : { entries: [], completed: false };
      }),
    };
    // A period whose mission is completed counts nothing more; the match is still recorded for replays.
    const done = held?.completion != null;
    const { position, counted } = done
      ? { position: before, counted: [] }
      : advance(m, before, { ref: cmd.referenceId, ts: cmd.timestamp, matches });
    return [{ mission: m.def, period, matches, counted, position, completes: !done && allStepsCompleted(position) }];
  });
}

interface RuleOutcome {
  progress: ActionProcessed['progress'];
  awards: Award[];
}

function evaluateRules(
  cmd: ProcessActionCommand,
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

/** Multiplies target Prize amounts by every activated, valid powerup; reports which were used. */
function applyPowerups(
  state: PlayerView,
  env: DecisionEnv,
  deliverables: ReadonlyMap<string, Deliverable>,
  grantLists: Grant[][],
): { grantLists: Grant[][]; uses: string[] } {
  // Most players own no powerup: nothing to look through.
  const active = state.powerups.size ? activePowerups(state, env.now) : [];
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
export function activePowerups(state: PlayerView, nowMs: number) {
  return [...state.powerups.values()].filter((p) => p.activated && isValidPowerup(p, nowMs));
}

/** The player (with their stream's revision), the activations of the limited triggers the action can award, and the referenceId's record. */
function* actionOf(cmd: ProcessActionCommand, env: DecideEnv): Reads<ProcessActionState> {
  const { state: player, revision: playerRevision } = yield* folded(playerStream(cmd.playerId), PLAYER_FOLD);
  const activationsTaken = new Map<string, number>();
  for (const trigger of limitedTriggersOfAnyGame(env.catalog, cmd.name))
    activationsTaken.set(
      trigger.uid,
      (yield* folded(stockStream(TRIGGER_ACTIVATIONS, trigger.uid), STOCK_FOLD)).state.taken,
    );
  const reference = yield* folded(referenceStream(cmd.referenceId), REFERENCE_FOLD);
  return { player, playerRevision, referenceTaken: reference.state !== null, activationsTaken };
}

/** An action: decided on the player, the limited triggers' stocks and the referenceId's record. */
export const processActionDecider: UseCase<ProcessActionCommand, ProcessActionState, ActionResult> = {
  read: actionOf,
  decide: decideProcessAction,
};
