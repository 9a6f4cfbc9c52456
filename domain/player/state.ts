/**
 * A player's state: everything the player owns and has earned, folded from the events of the
 * player's stream. The deciders decide on it; the read side shows it (profile, chests, powerups).
 */
import { addAmounts, isAmountInRange, MAX_AMOUNT_TEXT, subtractAmounts } from '../amount';
import type { PlayerEvent } from '../events';
import type { Effects, Grant, Lot, PowerupInstance } from '../events/common';
import type { ChestOpened } from '../events/inventory-events';
import type {
  ActionProcessed,
  ActionReversed,
  AllowanceUse,
  Award,
  LevelReached,
  MissionMove,
  PlayerAdjusted,
  PlayerRegistered,
  ProgressEntry,
} from '../events/player-events';
import type { LeagueContribution, LeagueFinished, LeagueReturn } from '../events/league-events';
import type { LeagueEnding, MissionEnding, PlayerInactive, StreakAtRisk } from '../events/moment-events';
import { valueOfSnapshot } from './snapshot';
import type { DeepReadonly } from '../deep-readonly';
import type {
  BundlePurchased,
  ProvisionCompleted,
  ProvisionCost,
  ProvisionFailed,
  ProvisionRefunded,
  ProvisionStatus,
} from '../events/provision-events';

/** A badge, rank or trigger activation the player holds, with what it consumed. */
export interface Holding extends Award {
  awardedBy: string;
  awardedAt: number;
}

export interface OwnedPowerup {
  instance: PowerupInstance;
  activated: boolean;
  /** Unix seconds. */
  activatedAt: number | null;
  usesConsumed: number;
  expired: boolean;
}

/** A store purchase or an action's cost, as the player's stream holds it. */
export interface ProvisionState {
  uid: string;
  referenceType: 'Store' | 'Action';
  status: ProvisionStatus;
  failureReason: 'Cancelled' | 'TimedOut' | null;
  /** The bundle bought (Store), or null (Action). */
  bundleUid: string | null;
  bundleLabel: string | null;
  /** The action whose cost it is (Action), or null (Store). */
  referenceId: string | null;
  /** The purchase holds one unit of the bundle's global stock while Pending or Completed. */
  stockTaken: boolean;
  cost: ProvisionCost;
  /** What the purchase grants (Pending) or granted (Completed). */
  contents: Grant[];
  /** Powerup instances the contents created. */
  powerupUids: string[];
  pendingUntil: number | null;
  createDate: number;
  updateDate: number;
}

/** A streak milestone the player holds: reached at `period` by the action `awardedBy`. */
export interface HeldMilestone {
  length: number;
  period: number;
  awardedBy: string;
  awardedAt: number;
  points: number;
  grants: Grant[];
}

/** A player's run of one streak, and the actions that counted for it (a reversal replays them). */
export interface StreakRun {
  length: number;
  longest: number;
  lastPeriod: number | null;
  freezes: number;
  /** Every action that counted for the streak, in processing order, with its period. */
  hits: { ref: string; period: number }[];
  milestones: HeldMilestone[];
}

/** A mission completed in a period by the action `awardedBy`, with what it granted. */
export interface HeldCompletion {
  awardedBy: string;
  awardedAt: number;
  points: number;
  grants: Grant[];
}

/** One period of a mission: each step's entries and whether it is completed, and the completion. */
export interface MissionPeriodState {
  steps: { entries: ProgressEntry[]; completed: boolean }[];
  completion: HeldCompletion | null;
}

/** A player's missions: every action that met a step's condition (a reversal replays a period's), and each period's progress. */
export interface MissionRun {
  hits: { ref: string; ts: number; period: number; matches: { step: number; value: number }[] }[];
  periods: Map<number, MissionPeriodState>;
}

/** A league period the player entered and that is not settled yet: their tier and metric in it. */
export interface LeagueStanding {
  start: number;
  end: number;
  settleAt: number;
  tier: string;
  metric: number;
  /** Unix ms the metric last changed: earlier wins a tie. */
  reachedAt: number;
}

/** A player in one league: the tier their last settled period gave, and the periods they are in, not yet settled. */
export interface LeagueRun {
  /** null: never settled (the lowest tier). */
  tier: string | null;
  /** Start of the period that gave `tier`. */
  settledStart: number | null;
  open: LeagueStanding[];
}
/** A moment appended for the player (domain/rules/moments.ts), as its event says it. */
export type SentMoment =
  | { type: 'StreakAtRisk'; data: StreakAtRisk }
  | { type: 'MissionEnding'; data: MissionEnding }
  | { type: 'LeagueEnding'; data: LeagueEnding }
  | { type: 'PlayerInactive'; data: PlayerInactive };

/** Where the last moment of a type about one subject (a streak's uid, a mission's, '' for the player) is kept. */
export const momentKey = (type: SentMoment['type'], subject: string): string => `${type}|${subject}`;

/** The player's state as a decider and the rules see it: read-only all the way down. */
export type PlayerView = DeepReadonly<PlayerState>;

/** Everything a player owns and has earned: the state the player deciders decide on. */
export interface PlayerState {
  registered: boolean;
  /** Erased (PlayerErased): no longer registered, and never registered again. */
  erased: boolean;
  playerId: string;
  username: string;
  imageName: string | null;
  /** IANA zone of the player's calendar; null: the catalog's settings.timezone. */
  timeZone: string | null;
  /** Attribute values by name (leaderboard scopes). */
  attributes: Readonly<Record<string, string>>;
  points: number;
  balances: ReadonlyMap<string, number>;
  /** Lots of each currency that expires, soonest first, each `[expiresAt, amount]` (compact: many players, few lots); part of `balances`. */
  lots: ReadonlyMap<string, [number, number][]>;
  /** Level number of each level reached, by level uid. */
  levelsReached: ReadonlyMap<string, number>;
  /** What reaching each level granted, to take back if the level is lost. */
  levelGrants: ReadonlyMap<string, Grant[]>;
  /** Reference of the action that reached each level (levels of the registration have none). */
  levelOrigins: ReadonlyMap<string, string>;
  holdings: Holding[];
  /** The same holdings by badge or trigger uid: rule evaluation asks this on every action. */
  holdingsByUid: ReadonlyMap<string, Holding[]>;
  /** Qualifying entries per rule uid, per condition index, not yet consumed by an award. */
  progress: ReadonlyMap<string, ProgressEntry[][]>;
  /** Timestamp of the last point award per action identifier (pointGap). */
  lastPointAward: ReadonlyMap<string, number>;
  /** Player-stream revision of each processed action, by referenceId. */
  processed: ReadonlyMap<string, number>;
  reversed: ReadonlySet<string>;
  powerups: ReadonlyMap<string, OwnedPowerup>;
  /** Reference (action, chest opening, purchase) whose decision created each powerup instance. */
  powerupOrigins: ReadonlyMap<string, string>;
  provisions: ReadonlyMap<string, ProvisionState>;
  /** Chest openings by openingUid, oldest first: the chest history. */
  chestOpenings: ReadonlyMap<string, ChestOpened>;
  /** Use of each cap's allowance, by allowanceKey (kind, action or deliverable, period). */
  allowances: ReadonlyMap<string, number>;
  /** What each action (by referenceId) uses of allowances now: a reversal gives it back. */
  allowancesByRef: ReadonlyMap<string, AllowanceUse[]>;
  /** Runs by streak uid. */
  streaks: ReadonlyMap<string, StreakRun>;
  /** By mission uid. */
  missions: ReadonlyMap<string, MissionRun>;
  /** Actions a recompute decided differently, by referenceId: what a later reversal takes back. */
  recomputedActions: ReadonlyMap<string, ActionProcessed>;
  /** By league uid. */
  leagues: ReadonlyMap<string, LeagueRun>;
  /** The latest timestamp of the player's actions (null: none yet): where inactivity counts from. */
  lastActionAt: number | null;
  /** The last moment of each type and subject, by momentKey: what makes each moment once only. */
  moments: ReadonlyMap<string, SentMoment>;
  /** The experiments the player joined, by experiment uid: their variant holds for the rest of the experiment. */
  experiments: ReadonlyMap<string, JoinedExperiment>;
}

/** An experiment the player joined: the variant, and the action that joined them. */
export interface JoinedExperiment {
  variant: string;
  referenceId: string;
  /** Unix ms: that action's timestamp. */
  joinedAt: number;
}

/** The key of one period's allowance of a cap. */
export const allowanceKey = (u: Pick<AllowanceUse, 'kind' | 'of' | 'period' | 'ordinal'>): string =>
  `${u.kind}|${u.period}|${u.ordinal}|${u.of}`;

/**
 * A player's collections start as one shared empty instance and get their own on first write
 * (`own`): most players use few of them, and an empty Map costs about 170 bytes, which for a
 * cache of 100,000 players is hundreds of MiB. Only this module writes player state.
 */
const NOTHING: ReadonlyMap<never, never> = new Map<never, never>();
const NO_REFERENCES: ReadonlySet<string> = new Set();
const NO_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze({});

type CollectionKey = {
  [K in keyof PlayerState]: PlayerState[K] extends ReadonlyMap<string, unknown> ? K : never;
}[keyof PlayerState];
type Writable<M> = M extends ReadonlyMap<infer Key, infer Value> ? Map<Key, Value> : never;

function own<K extends CollectionKey>(state: PlayerState, key: K): Writable<PlayerState[K]> {
  if (state[key] === NOTHING) (state as unknown as Record<K, Map<string, unknown>>)[key] = new Map();
  return state[key] as Writable<PlayerState[K]>;
}

/** What a personal field reads once its player is erased. */
export const ERASED_FIELD = '[erased]';

export const initialPlayerState = (playerId: string): PlayerState => ({
  registered: false,
  erased: false,
  playerId,
  username: playerId,
  imageName: null,
  timeZone: null,
  attributes: NO_ATTRIBUTES,
  points: 0,
  balances: NOTHING,
  lots: NOTHING,
  levelsReached: NOTHING,
  levelGrants: NOTHING,
  levelOrigins: NOTHING,
  holdings: [],
  holdingsByUid: NOTHING,
  progress: NOTHING,
  lastPointAward: NOTHING,
  processed: NOTHING,
  reversed: NO_REFERENCES,
  powerups: NOTHING,
  powerupOrigins: NOTHING,
  provisions: NOTHING,
  chestOpenings: NOTHING,
  allowances: NOTHING,
  allowancesByRef: NOTHING,
  streaks: NOTHING,
  missions: NOTHING,
  recomputedActions: NOTHING,
  leagues: NOTHING,
  lastActionAt: null,
  moments: NOTHING,
  experiments: NOTHING,
});

export function applyEffects(state: PlayerState, effects: Effects): void {
  applyAmounts(state, effects);
  for (const p of effects.powerupsGranted)
    own(state, 'powerups').set(p.uid, {
      instance: p,
      activated: false,
      activatedAt: null,
      usesConsumed: 0,
      expired: false,
    });
  for (const lot of effects.lots ?? []) changeLot(state, lot);
  for (const uid of effects.powerupsRemoved) own(state, 'powerups').delete(uid);
  for (const u of effects.powerupUses) {
    const owned = state.powerups.get(u.uid);
    if (owned) owned.usesConsumed += u.uses;
  }
}

/** The points and balances of effects: what a standing reads of them. */
function applyAmounts(state: PlayerState, effects: Effects): void {
  state.points = addAmounts(state.points, effects.points);
  for (const b of effects.balances)
    own(state, 'balances').set(b.deliverableUid, addAmounts(state.balances.get(b.deliverableUid) ?? 0, b.amount));
}

/** Adds a signed amount to the lot of its currency and expiry; an emptied lot goes. */
function changeLot(state: PlayerState, { deliverableUid, expiresAt, amount }: Lot): void {
  const lots = state.lots.get(deliverableUid) ?? [];
  const i = lots.findIndex(([at]) => at >= expiresAt);
  if (i >= 0 && lots[i][0] === expiresAt) lots[i][1] = addAmounts(lots[i][1], amount);
  else lots.splice(i < 0 ? lots.length : i, 0, [expiresAt, amount]);
  const kept = lots.filter(([, left]) => left > 0);
  if (kept.length) own(state, 'lots').set(deliverableUid, kept);
  else if (state.lots.has(deliverableUid)) own(state, 'lots').delete(deliverableUid);
}

/**
 * Why the effects of a decision would take the player's points or a balance out of the range the
 * engine holds exactly (MAX_AMOUNT), or null. The command pipeline checks every write to a
 * player's stream with it, so no decision can store such an amount.
 */
export function holdingsOutOfRange(state: PlayerView, effects: readonly Effects[]): string | null {
  let points = state.points;
  const balances = new Map<string, number>();
  for (const e of effects) {
    points = addAmounts(points, e.points);
    if (!isAmountInRange(e.points) || !isAmountInRange(points)) return outOfRange("the player's points", points);
    for (const b of e.balances) {
      const after = addAmounts(balances.get(b.deliverableUid) ?? balanceOf(state, b.deliverableUid), b.amount);
      if (!isAmountInRange(b.amount) || !isAmountInRange(after))
        return outOfRange(`the player's balance of ${b.deliverableUid}`, after);
      balances.set(b.deliverableUid, after);
    }
  }
  return null;
}

const outOfRange = (what: string, value: number): string =>
  `Amount out of range: ${what} would ${value < 0 ? `go below -${MAX_AMOUNT_TEXT}` : `exceed ${MAX_AMOUNT_TEXT}`}, the largest amount the engine holds`;

export const balanceOf = (state: PlayerView, deliverableUid: string): number => state.balances.get(deliverableUid) ?? 0;

/** Owned, not expired, uses left: whether it may be activated, and applies while activated. */
export const isValidPowerup = (owned: DeepReadonly<OwnedPowerup>, nowMs: number): boolean =>
  !owned.expired &&
  (owned.instance.neverExpires || Math.floor(nowMs / 1000) < owned.instance.expiresAt) &&
  (owned.instance.initialUseCount === 0 || owned.usesConsumed < owned.instance.initialUseCount);

function progressOf(state: PlayerState, rule: string): ProgressEntry[][] {
  let p = state.progress.get(rule);
  if (!p) own(state, 'progress').set(rule, (p = []));
  return p;
}

/** Where the holding a revoked award names is among the player's holdings (-1: not there). */
function revokedHolding(holdings: readonly Holding[], r: ActionReversed['revokedAwards'][number]): number {
  return holdings.findIndex(
    (h) => h.kind === r.kind && h.uid === r.uid && h.awardedBy === r.awardedBy && (h.rank?.rank ?? null) === r.rank,
  );
}

function reachLevel(state: PlayerState, l: LevelReached): void {
  own(state, 'levelsReached').set(l.uid, l.level);
  own(state, 'levelGrants').set(l.uid, l.grants);
}

function applyActionProcessed(state: PlayerState, e: ActionProcessed, revision: number): void {
  own(state, 'processed').set(e.referenceId, revision);
  // A backdated action does not make the player less active than they were.
  state.lastActionAt = Math.max(e.timestamp, state.lastActionAt ?? e.timestamp);
  // The gap runs from the latest award: a backdated action must not move it back.
  if (e.pointsAwarded)
    own(state, 'lastPointAward').set(
      e.actionName,
      Math.max(e.timestamp, state.lastPointAward.get(e.actionName) ?? e.timestamp),
    );
  for (const p of e.progress) {
    const perCondition = progressOf(state, p.rule);
    (perCondition[p.condition] ??= []).push(p.entry);
  }
  for (const award of e.awards) {
    // An award consumes the progress it counted (OneTimeOnly, Repeatable restart from zero).
    if (award.consumed.length) {
      const perCondition = progressOf(state, award.uid);
      award.consumed.forEach((entries, i) => {
        const used = new Set(entries.map((x) => x.ref));
        perCondition[i] = (perCondition[i] ?? []).filter((x) => !used.has(x.ref));
      });
    }
    const holding = { ...award, awardedBy: e.referenceId, awardedAt: e.timestamp };
    state.holdings.push(holding);
    const same = state.holdingsByUid.get(holding.uid);
    if (same) same.push(holding);
    else own(state, 'holdingsByUid').set(holding.uid, [holding]);
  }
  for (const l of e.levels) {
    reachLevel(state, l);
    own(state, 'levelOrigins').set(l.uid, e.referenceId);
  }
  for (const p of e.effects.powerupsGranted) own(state, 'powerupOrigins').set(p.uid, e.referenceId);
  for (const step of e.streaks ?? []) {
    let run = state.streaks.get(step.uid);
    if (!run)
      own(state, 'streaks').set(
        step.uid,
        (run = { length: 0, longest: 0, lastPeriod: null, freezes: 0, hits: [], milestones: [] }),
      );
    run.hits.push({ ref: e.referenceId, period: step.period });
    Object.assign(run, {
      length: step.length,
      longest: step.longest,
      lastPeriod: step.lastPeriod,
      freezes: step.freezes,
    });
    for (const m of step.milestones)
      run.milestones.push({
        length: m.length,
        period: step.period,
        awardedBy: e.referenceId,
        awardedAt: e.timestamp,
        points: m.points,
        grants: m.grants,
      });
  }
  for (const move of e.missions ?? []) applyMissionMove(state, e, move);
  for (const c of e.leagues ?? []) addToLeague(state, e, c);
  if (e.allowances?.length) {
    for (const u of e.allowances) useAllowance(state, u, u.used);
    own(state, 'allowancesByRef').set(
      e.referenceId,
      e.allowances.map((u) => ({ ...u })),
    );
  }
  if (e.cost) {
    const { provisionUid, ...cost } = e.cost;
    own(state, 'provisions').set(provisionUid, {
      uid: provisionUid,
      referenceType: 'Action',
      status: 'Completed',
      failureReason: null,
      bundleUid: null,
      bundleLabel: null,
      referenceId: e.referenceId,
      stockTaken: false,
      cost,
      contents: [],
      powerupUids: [],
      pendingUntil: null,
      createDate: e.timestamp,
      updateDate: e.timestamp,
    });
  }
}

function leagueRun(state: PlayerState, uid: string): LeagueRun {
  let run = state.leagues.get(uid);
  if (!run) own(state, 'leagues').set(uid, (run = { tier: null, settledStart: null, open: [] }));
  return run;
}

function addToLeague(state: PlayerState, e: ActionProcessed, c: LeagueContribution): void {
  const run = leagueRun(state, c.uid);
  // A period settled is closed (the decision never adds to one: see leagueContributions).
  if (run.settledStart !== null && c.period.start <= run.settledStart) return;
  let standing = run.open.find((o) => o.start === c.period.start);
  if (!standing) {
    standing = { ...c.period, settleAt: c.settleAt, tier: c.tier, metric: 0, reachedAt: 0 };
    run.open.push(standing);
  }
  standing.metric = addAmounts(standing.metric, c.amount);
  standing.reachedAt = e.decidedAt ?? e.timestamp;
}

function takeFromLeague(state: PlayerState, e: ActionReversed, r: LeagueReturn): void {
  const standing = state.leagues.get(r.uid)?.open.find((o) => o.start === r.start);
  if (!standing) return;
  standing.metric = subtractAmounts(standing.metric, r.amount);
  standing.reachedAt = e.reversedAt;
}

/** A settled period leaves the open ones; the latest period settled gives the tier. */
function finishLeague(state: PlayerState, e: LeagueFinished): void {
  const run = leagueRun(state, e.leagueUid);
  run.open = run.open.filter((o) => o.start !== e.period.start);
  if (run.settledStart === null || e.period.start >= run.settledStart)
    Object.assign(run, { tier: e.nextTier, settledStart: e.period.start });
  for (const l of e.levels) reachLevel(state, l);
}

function useAllowance(state: PlayerState, u: AllowanceUse, amount: number): void {
  const key = allowanceKey(u);
  const used = addAmounts(state.allowances.get(key) ?? 0, amount);
  if (used === 0) own(state, 'allowances').delete(key);
  else own(state, 'allowances').set(key, used);
}

/** Gives back an action's use of an allowance (a reversal's, or a revoked award's of a later action). */
function returnAllowance(state: PlayerState, ref: string, u: AllowanceUse): void {
  useAllowance(state, u, -u.used);
  const uses = state.allowancesByRef.get(ref);
  const same = uses?.find((x) => allowanceKey(x) === allowanceKey(u));
  if (!uses || !same) return;
  same.used = subtractAmounts(same.used, u.used);
  if (same.used <= 0) uses.splice(uses.indexOf(same), 1);
  if (!uses.length) own(state, 'allowancesByRef').delete(ref);
}

function applyMissionMove(state: PlayerState, e: ActionProcessed, move: MissionMove): void {
  let run = state.missions.get(move.uid);
  if (!run) own(state, 'missions').set(move.uid, (run = { hits: [], periods: new Map() }));
  run.hits.push({ ref: e.referenceId, ts: e.timestamp, period: move.period, matches: move.matches });
  let period = run.periods.get(move.period);
  if (!period) run.periods.set(move.period, (period = { steps: [], completion: null }));
  for (const i of move.counted) {
    const value = move.matches.find((m) => m.step === i)?.value ?? 0;
    (period.steps[i] ??= { entries: [], completed: false }).entries.push({
      ref: e.referenceId,
      ts: e.timestamp,
      value,
    });
  }
  for (const i of move.completedSteps) (period.steps[i] ??= { entries: [], completed: false }).completed = true;
  if (move.completion)
    period.completion = {
      awardedBy: e.referenceId,
      awardedAt: e.timestamp,
      points: move.completion.points,
      grants: move.completion.grants,
    };
}

/** A period of a mission as a reversal recomputed it: entries rebuilt from the run's hits by reference. */
function applyMissionRecomputed(
  state: PlayerState,
  reversedRef: string,
  m: NonNullable<ActionReversed['missions']>[number],
): void {
  const run = state.missions.get(m.uid);
  if (!run) return;
  run.hits = run.hits.filter((h) => h.ref !== reversedRef);
  const hitOf = new Map(run.hits.filter((h) => h.period === m.period).map((h) => [h.ref, h]));
  const period = run.periods.get(m.period) ?? { steps: [], completion: null };
  period.steps = m.steps.map((s, i) => ({
    completed: s.completed,
    entries: s.refs.flatMap((ref) => {
      const hit = hitOf.get(ref);
      return hit ? [{ ref, ts: hit.ts, value: hit.matches.find((x) => x.step === i)?.value ?? 0 }] : [];
    }),
  }));
  run.periods.set(m.period, period);
}

function applyActionReversed(state: PlayerState, e: ActionReversed): void {
  for (const r of e.leagues ?? []) takeFromLeague(state, e, r);
  for (const m of e.missions ?? []) applyMissionRecomputed(state, e.referenceId, m);
  for (const r of e.revokedMissions ?? []) {
    const period = state.missions.get(r.missionUid)?.periods.get(r.period);
    if (period?.completion?.awardedBy === r.awardedBy) period.completion = null;
  }
  for (const { ref, use } of e.allowancesReturned ?? []) returnAllowance(state, ref, use);
  for (const s of e.streaks ?? []) {
    const run = state.streaks.get(s.uid);
    if (!run) continue;
    Object.assign(run, { length: s.length, longest: s.longest, lastPeriod: s.lastPeriod, freezes: s.freezes });
    run.hits = run.hits.filter((h) => h.ref !== e.referenceId);
  }
  for (const m of e.revokedMilestones ?? []) {
    const run = state.streaks.get(m.streakUid);
    if (run)
      run.milestones = run.milestones.filter(
        (h) => !(h.length === m.length && h.period === m.period && h.awardedBy === m.awardedBy),
      );
  }
  if (state.reversed === NO_REFERENCES) state.reversed = new Set();
  (state.reversed as Set<string>).add(e.referenceId);
  // The reversed action no longer counts anywhere: neither as progress nor in what awards consumed.
  for (const [, perCondition] of state.progress) {
    for (let i = 0; i < perCondition.length; i++)
      perCondition[i] = perCondition[i]?.filter((x) => x.ref !== e.referenceId) ?? [];
  }
  for (const h of state.holdings)
    h.consumed = h.consumed.map((entries) => entries.filter((x) => x.ref !== e.referenceId));
  for (const r of e.revokedAwards) {
    const index = revokedHolding(state.holdings, r);
    if (index < 0) continue;
    const [holding] = state.holdings.splice(index, 1);
    const same = state.holdingsByUid.get(holding.uid)!;
    same.splice(same.indexOf(holding), 1);
    if (!same.length) own(state, 'holdingsByUid').delete(holding.uid);
    // What the revoked award had consumed counts again, as if the award had not happened.
    if (holding.consumed.length) {
      const perCondition = progressOf(state, holding.uid);
      holding.consumed.forEach((entries, i) => {
        perCondition[i] = [...entries, ...(perCondition[i] ?? [])].sort((a, b) => a.ts - b.ts);
      });
    }
  }
  for (const l of e.revokedLevels) {
    own(state, 'levelsReached').delete(l.uid);
    own(state, 'levelGrants').delete(l.uid);
    own(state, 'levelOrigins').delete(l.uid);
  }
  for (const uid of e.effects.powerupsRemoved) own(state, 'powerupOrigins').delete(uid);
  const costProvision = e.refund && state.provisions.get(e.refund.provisionUid);
  if (costProvision) Object.assign(costProvision, { status: 'Refunded', updateDate: e.reversedAt });
}

function applyBundlePurchased(state: PlayerState, e: BundlePurchased): void {
  own(state, 'provisions').set(e.provisionUid, {
    uid: e.provisionUid,
    referenceType: 'Store',
    status: e.status,
    failureReason: null,
    bundleUid: e.bundleUid,
    bundleLabel: e.bundleLabel,
    referenceId: null,
    stockTaken: e.stockTaken,
    cost: e.cost,
    contents: e.contents,
    powerupUids: e.effects.powerupsGranted.map((p) => p.uid),
    pendingUntil: e.pendingUntil,
    createDate: e.purchasedAt,
    updateDate: e.purchasedAt,
  });
}

/** Completed, failed (cancelled, timed out) or refunded: the provision's new status. */
function moveProvision(state: PlayerState, uid: string, change: Partial<ProvisionState>): void {
  const provision = state.provisions.get(uid);
  if (provision) Object.assign(provision, change);
}

const completed = (e: ProvisionCompleted): Partial<ProvisionState> => ({
  status: 'Completed',
  pendingUntil: null,
  powerupUids: e.effects.powerupsGranted.map((p) => p.uid),
  updateDate: e.completedAt,
});
const failed = (e: ProvisionFailed): Partial<ProvisionState> => ({
  status: 'Failed',
  failureReason: e.reason,
  pendingUntil: null,
  stockTaken: false,
  updateDate: e.failedAt,
});
const refunded = (e: ProvisionRefunded): Partial<ProvisionState> => ({
  status: 'Refunded',
  stockTaken: false,
  updateDate: e.refundedAt,
});

function applyChestOpened(state: PlayerState, e: ChestOpened): void {
  own(state, 'chestOpenings').set(e.openingUid, e);
  // Levels and powerups won from a chest have the opening as their origin, as an action's have the action.
  for (const l of e.levels) {
    reachLevel(state, l);
    own(state, 'levelOrigins').set(l.uid, e.openingUid);
  }
  for (const p of e.effects.powerupsGranted) own(state, 'powerupOrigins').set(p.uid, e.openingUid);
}

/** Levels and powerups granted by a support adjustment have it as their origin, as an action's have the action. */
function applyPlayerAdjusted(state: PlayerState, e: PlayerAdjusted): void {
  for (const l of e.levels) {
    reachLevel(state, l);
    own(state, 'levelOrigins').set(l.uid, e.adjustmentUid);
  }
  for (const p of e.effects.powerupsGranted) own(state, 'powerupOrigins').set(p.uid, e.adjustmentUid);
}

function setActivation(state: PlayerState, powerupUid: string, change: Partial<OwnedPowerup>): void {
  const owned = state.powerups.get(powerupUid);
  if (owned) Object.assign(owned, change);
}

function register(state: PlayerState, e: PlayerRegistered): void {
  state.registered = true;
  Object.assign(state, {
    username: e.username,
    imageName: e.imageName,
    timeZone: e.timeZone ?? null,
    attributes: e.attributes ?? NO_ATTRIBUTES,
  });
  for (const l of e.levels) reachLevel(state, l);
}

/** One event of the player's stream, with its place in the stream (`revision`). */
export type PlayerStreamEvent = PlayerEvent & { revision: number };

/**
 * The player's state after one event of their stream: a new state; the one given is left as it
 * was. The one fold of the player's stream; it copies the whole state, so a fold over a long
 * stream goes through foldPlayer or a PlayerFolding, which copy nothing.
 */
export const evolve = (state: PlayerView, event: PlayerStreamEvent): PlayerState =>
  evolveInPlace(copyOfPlayerState(state), event);

/** The state after the events, folded on from `from` (left as it was), or from a player never seen. */
export function foldPlayer(playerId: string, events: Iterable<PlayerStreamEvent>, from?: PlayerView): PlayerState {
  const state = from ? copyOfPlayerState(from) : initialPlayerState(playerId);
  for (const event of events) evolveInPlace(state, event);
  return state;
}

/**
 * A player's state folded event by event by the one reader that owns it (an audit trace, an
 * export): `state` is the state after the events added so far, read-only to everyone, and the next
 * `add` folds into it, so what is read of it is taken before.
 */
export class PlayerFolding {
  private readonly folded: PlayerState;

  constructor(playerId: string) {
    this.folded = initialPlayerState(playerId);
  }

  /** Read it, never change it (as a cached state). */
  get state(): PlayerState {
    return this.folded;
  }

  add(event: PlayerStreamEvent): void {
    evolveInPlace(this.folded, event);
  }
}

/**
 * A deep copy of a state, its shared empty collections kept shared (see `own`). structuredClone
 * keeps the holdings that holdings and holdingsByUid share one object in the copy too.
 */
export function copyOfPlayerState(state: PlayerView): PlayerState {
  const copy = structuredClone(state) as PlayerState;
  for (const key of Object.keys(state) as (keyof PlayerState)[]) {
    const value: unknown = state[key];
    if (value === NOTHING || value === NO_REFERENCES || value === NO_ATTRIBUTES)
      (copy as unknown as Record<string, unknown>)[key] = value;
  }
  return copy;
}

/** The player's state a PlayerRecomputed's snapshot holds (snapshot.ts made it). */
export const stateOfSnapshot = (snapshot: unknown): PlayerState => valueOfSnapshot(snapshot) as PlayerState;

/**
 * A state copied by v8.deserialize (a replayed player read back from a scratch file), its empty
 * collections made the shared ones again: such a copy shares one empty Map (Set) between the
 * fields (and the states copied with it) that shared it, where a write would go into them all.
 */
export function sharedEmptiesRestored(copy: PlayerState): PlayerState {
  const fields = copy as unknown as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    // By its tag, not instanceof: v8.deserialize builds in the process's realm, not always the caller's (a test's).
    const tag = Object.prototype.toString.call(value);
    if (tag === '[object Map]' && (value as Map<unknown, unknown>).size === 0) fields[key] = NOTHING;
    else if (tag === '[object Set]' && (value as Set<unknown>).size === 0) fields[key] = NO_REFERENCES;
  }
  return copy;
}

/**
 * Folds one event into the state by changing it, the fast way to fold a long stream. Only for a
 * state its caller alone holds and hands out read-only: the state cache's
 * (shared/adapters/event-store/player-states.ts), the replay engine's, foldPlayer's and
 * PlayerFolding's (test/layers.test.ts names who may import it); everyone else folds with
 * evolve. `player/fold.property.test.ts` shows the two agree on random histories.
 */
export function evolveInPlace(state: PlayerState, event: PlayerStreamEvent): PlayerState {
  switch (event.type) {
    case 'PlayerRegistered':
      register(state, event.data);
      break;
    case 'PlayerUpdated':
      Object.assign(state, {
        username: event.data.username,
        imageName: event.data.imageName,
        timeZone: event.data.timeZone,
        attributes: event.data.attributes ?? state.attributes,
      });
      break;
    case 'PlayerErased':
      // Every request naming the player now answers as for an unknown player.
      Object.assign(state, { registered: false, erased: true, username: ERASED_FIELD, imageName: null });
      break;
    case 'ActionProcessed':
      applyActionProcessed(state, event.data, event.revision);
      break;
    case 'ActionReversed':
      applyActionReversed(state, event.data);
      break;
    case 'BundlePurchased':
      applyBundlePurchased(state, event.data);
      break;
    case 'ProvisionCompleted':
      moveProvision(state, event.data.provisionUid, completed(event.data));
      break;
    case 'ProvisionFailed':
      moveProvision(state, event.data.provisionUid, failed(event.data));
      break;
    case 'ProvisionRefunded':
      moveProvision(state, event.data.provisionUid, refunded(event.data));
      break;
    case 'ChestOpened':
      applyChestOpened(state, event.data);
      break;
    case 'PlayerAdjusted':
      applyPlayerAdjusted(state, event.data);
      break;
    case 'LeagueFinished':
      finishLeague(state, event.data);
      break;
    case 'LeaderboardSeasonFinished':
      for (const l of event.data.levels) reachLevel(state, l);
      break;
    case 'PowerupActivated':
      setActivation(state, event.data.powerupUid, { activated: true, activatedAt: event.data.activatedAt });
      break;
    case 'PowerupDeactivated':
      setActivation(state, event.data.powerupUid, { activated: false, activatedAt: null });
      break;
    case 'PowerupExpired':
      setActivation(state, event.data.powerupUid, { expired: true });
      break;
    case 'StreakAtRisk':
      own(state, 'moments').set(momentKey(event.type, event.data.streakUid), { type: event.type, data: event.data });
      break;
    case 'MissionEnding':
      own(state, 'moments').set(momentKey(event.type, event.data.missionUid), { type: event.type, data: event.data });
      break;
    case 'LeagueEnding':
      own(state, 'moments').set(momentKey(event.type, event.data.leagueUid), { type: event.type, data: event.data });
      break;
    case 'PlayerInactive':
      own(state, 'moments').set(momentKey(event.type, ''), { type: event.type, data: event.data });
      break;
    case 'ExperimentJoined': {
      const { experimentUid, variantUid, referenceId, joinedAt } = event.data;
      own(state, 'experiments').set(experimentUid, { variant: variantUid, referenceId, joinedAt });
      break;
    }
    case 'PlayerRecomputed':
      // The fields of the state the recomputed history changed, as they now are: its effects are already in them.
      Object.assign(state, stateOfSnapshot(event.data.state), {
        recomputedActions: new Map(event.data.actions.map((a) => [a.referenceId, a])),
      });
      return state;
  }
  applyEffects(state, event.data.effects);
  return state;
}

/** What a player's standing reads of the state: points, balances, levels reached, holdings. */
const STANDING_FIELDS = ['points', 'balances', 'levelsReached', 'holdings'] as const;
/** What a standing's holding leaves out (what it consumed and granted): one empty array, frozen since nothing may write to it. */
const LEFT_OUT = Object.freeze([]) as never[];

/**
 * Folds into the state only what a player's standing reads (points, balances, levels reached,
 * holdings), as evolveInPlace would, and leaves the rest of it as it started; by changing it, as
 * evolveInPlace does, and only for the replay engine's own states. A what-if report compares no
 * more of the recorded state; such a state keeps nothing of the event, so a replay's parsed pages
 * of the log die young.
 */
export function evolveStandingInPlace(state: PlayerState, event: PlayerEvent): PlayerState {
  switch (event.type) {
    case 'PlayerRegistered':
      for (const l of event.data.levels) own(state, 'levelsReached').set(l.uid, l.level);
      break;
    case 'ActionProcessed': {
      const e = event.data;
      for (const award of e.awards)
        state.holdings.push({
          ...award,
          grants: LEFT_OUT,
          consumed: LEFT_OUT,
          awardedBy: e.referenceId,
          awardedAt: e.timestamp,
        });
      for (const l of e.levels) own(state, 'levelsReached').set(l.uid, l.level);
      break;
    }
    case 'ChestOpened':
    case 'PlayerAdjusted':
    case 'LeagueFinished':
    case 'LeaderboardSeasonFinished':
      for (const l of event.data.levels) own(state, 'levelsReached').set(l.uid, l.level);
      break;
    case 'ActionReversed':
      for (const r of event.data.revokedAwards) {
        const index = revokedHolding(state.holdings, r);
        if (index >= 0) state.holdings.splice(index, 1);
      }
      for (const l of event.data.revokedLevels) own(state, 'levelsReached').delete(l.uid);
      break;
    case 'PlayerRecomputed': {
      const recomputed = stateOfSnapshot(event.data.state);
      for (const field of STANDING_FIELDS)
        if (field in recomputed) Object.assign(state, { [field]: recomputed[field] });
      return state;
    }
  }
  applyAmounts(state, event.data.effects);
  return state;
}
