import { addAmounts } from '../../shared/amount';
import type { Effects, Grant, PowerupInstance } from '../../shared/events/common';
import type { ActionProcessed, ActionReversed, Award, LevelReached, ProgressEntry } from '../../shared/events/player-events';
import type { RecordedEvent } from '../../shared/event-store/port';
import type { BundlePurchased, ProvisionCompleted, ProvisionCost, ProvisionFailed, ProvisionRefunded } from '../../shared/events/provision-events';
import type { ChestOpened, PowerupActivated } from '../../shared/events/inventory-events';

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

export type ProvisionStatus = 'Pending' | 'Completed' | 'Refunded' | 'Failed';

/** A store purchase or an action's cost: the Transaction of api.md. */
export interface ProvisionState {
  uid: string;
  referenceType: 'Store' | 'Action';
  status: ProvisionStatus;
  failureReason: 'Cancelled' | 'TimedOut' | null;
  /** The bundle bought (Store), or null (Action). */
  bundleUid: string | null;
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

/** Everything a player owns and has earned: the state the player deciders decide on. */
export interface PlayerState {
  registered: boolean;
  playerId: string;
  points: number;
  balances: ReadonlyMap<string, number>;
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
}

/**
 * A player's collections start as one shared empty instance and get their own on first write
 * (`own`): most players use few of them, and an empty Map costs about 170 bytes, which for a
 * cache of 100,000 players is hundreds of MiB. Only this module writes player state.
 */
const NOTHING: ReadonlyMap<never, never> = new Map<never, never>();
const NO_REFERENCES: ReadonlySet<string> = new Set();

type CollectionKey = { [K in keyof PlayerState]: PlayerState[K] extends ReadonlyMap<string, unknown> ? K : never }[keyof PlayerState];
type Writable<M> = M extends ReadonlyMap<infer Key, infer Value> ? Map<Key, Value> : never;

function own<K extends CollectionKey>(state: PlayerState, key: K): Writable<PlayerState[K]> {
  if (state[key] === NOTHING) (state as unknown as Record<K, Map<string, unknown>>)[key] = new Map();
  return state[key] as Writable<PlayerState[K]>;
}

export const initialPlayerState = (playerId: string): PlayerState => ({
  registered: false,
  playerId,
  points: 0,
  balances: NOTHING,
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
});

export function applyEffects(state: PlayerState, effects: Effects): void {
  state.points = addAmounts(state.points, effects.points);
  for (const b of effects.balances) own(state, 'balances').set(b.deliverableUid, addAmounts(state.balances.get(b.deliverableUid) ?? 0, b.amount));
  for (const p of effects.powerupsGranted) own(state, 'powerups').set(p.uid, { instance: p, activated: false, activatedAt: null, usesConsumed: 0, expired: false });
  for (const uid of effects.powerupsRemoved) own(state, 'powerups').delete(uid);
  for (const u of effects.powerupUses) {
    const owned = state.powerups.get(u.uid);
    if (owned) owned.usesConsumed += u.uses;
  }
}

/** Highest level number reached; 0 before any. */
export const currentLevel = (state: PlayerState): number => {
  let level = 0;
  for (const n of state.levelsReached.values()) level = Math.max(level, n);
  return level;
};

export const balanceOf = (state: PlayerState, deliverableUid: string): number => state.balances.get(deliverableUid) ?? 0;

/** Owned, not expired, uses left (decisions.md §11): whether it may be activated and applies when activated. */
export const isValidPowerup = (owned: OwnedPowerup, nowMs: number): boolean =>
  !owned.expired &&
  (owned.instance.neverExpires || Math.floor(nowMs / 1000) < owned.instance.expiresAt) &&
  (owned.instance.initialUseCount === 0 || owned.usesConsumed < owned.instance.initialUseCount);

function progressOf(state: PlayerState, rule: string): ProgressEntry[][] {
  let p = state.progress.get(rule);
  if (!p) own(state, 'progress').set(rule, (p = []));
  return p;
}

function reachLevel(state: PlayerState, l: LevelReached): void {
  own(state, 'levelsReached').set(l.uid, l.level);
  own(state, 'levelGrants').set(l.uid, l.grants);
}

function applyActionProcessed(state: PlayerState, e: ActionProcessed, revision: number): void {
  own(state, 'processed').set(e.referenceId, revision);
  // The gap runs from the latest award: a backdated action must not move it back.
  if (e.pointsAwarded) own(state, 'lastPointAward').set(e.actionName, Math.max(e.timestamp, state.lastPointAward.get(e.actionName) ?? e.timestamp));
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
  if (e.cost) {
    const { provisionUid, ...cost } = e.cost;
    own(state, 'provisions').set(provisionUid, {
      uid: provisionUid,
      referenceType: 'Action',
      status: 'Completed',
      failureReason: null,
      bundleUid: null,
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

function applyActionReversed(state: PlayerState, e: ActionReversed): void {
  if (state.reversed === NO_REFERENCES) state.reversed = new Set();
  (state.reversed as Set<string>).add(e.referenceId);
  // The reversed action no longer counts anywhere: neither as progress nor in what awards consumed.
  for (const [, perCondition] of state.progress) {
    for (let i = 0; i < perCondition.length; i++) perCondition[i] = perCondition[i]?.filter((x) => x.ref !== e.referenceId) ?? [];
  }
  for (const h of state.holdings) h.consumed = h.consumed.map((entries) => entries.filter((x) => x.ref !== e.referenceId));
  for (const r of e.revokedAwards) {
    const index = state.holdings.findIndex((h) => h.kind === r.kind && h.uid === r.uid && h.awardedBy === r.awardedBy && (h.rank?.rank ?? null) === r.rank);
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

function applyProvisionEvent(state: PlayerState, type: string, data: unknown): void {
  if (type === 'BundlePurchased') {
    const e = data as BundlePurchased;
    own(state, 'provisions').set(e.provisionUid, {
      uid: e.provisionUid,
      referenceType: 'Store',
      status: e.status,
      failureReason: null,
      bundleUid: e.bundleUid,
      stockTaken: e.stockTaken,
      cost: e.cost,
      contents: e.contents,
      powerupUids: e.effects.powerupsGranted.map((p) => p.uid),
      pendingUntil: e.pendingUntil,
      createDate: e.purchasedAt,
      updateDate: e.purchasedAt,
    });
    return;
  }
  const e = data as ProvisionCompleted | ProvisionFailed | ProvisionRefunded;
  const provision = state.provisions.get(e.provisionUid);
  if (!provision) return;
  if (type === 'ProvisionCompleted') {
    const c = e as ProvisionCompleted;
    Object.assign(provision, { status: 'Completed', pendingUntil: null, powerupUids: c.effects.powerupsGranted.map((p) => p.uid), updateDate: c.completedAt });
  } else if (type === 'ProvisionFailed') {
    const f = e as ProvisionFailed;
    Object.assign(provision, { status: 'Failed', failureReason: f.reason, pendingUntil: null, stockTaken: false, updateDate: f.failedAt });
  } else if (type === 'ProvisionRefunded') {
    Object.assign(provision, { status: 'Refunded', stockTaken: false, updateDate: (e as ProvisionRefunded).refundedAt });
  }
}

function applyChestOpened(state: PlayerState, e: ChestOpened): void {
  own(state, 'chestOpenings').set(e.openingUid, e);
  // Levels and powerups won from a chest have the opening as their origin, as an action's have the action.
  for (const l of e.levels) {
    reachLevel(state, l);
    own(state, 'levelOrigins').set(l.uid, e.openingUid);
  }
  for (const p of e.effects.powerupsGranted) own(state, 'powerupOrigins').set(p.uid, e.openingUid);
}

function applyPowerupActivation(state: PlayerState, type: string, data: unknown): void {
  const owned = state.powerups.get((data as { powerupUid: string }).powerupUid);
  if (!owned) return;
  if (type === 'PowerupActivated') Object.assign(owned, { activated: true, activatedAt: (data as PowerupActivated).activatedAt });
  else if (type === 'PowerupDeactivated') Object.assign(owned, { activated: false, activatedAt: null });
  else owned.expired = true;
}

/** Folds one recorded player event into the state (mutating it: states are owned by one loader). */
export function evolve(state: PlayerState, event: RecordedEvent): PlayerState {
  const data = event.data as Record<string, unknown> & { effects?: Effects };
  switch (event.type) {
    case 'PlayerRegistered':
      state.registered = true;
      for (const l of (data as { levels: LevelReached[] }).levels) reachLevel(state, l);
      break;
    case 'ActionProcessed':
      applyActionProcessed(state, data as unknown as ActionProcessed, event.revision);
      break;
    case 'ActionReversed':
      applyActionReversed(state, data as unknown as ActionReversed);
      break;
    case 'BundlePurchased':
    case 'ProvisionCompleted':
    case 'ProvisionFailed':
    case 'ProvisionRefunded':
      applyProvisionEvent(state, event.type, data);
      break;
    case 'ChestOpened':
      applyChestOpened(state, data as unknown as ChestOpened);
      break;
    case 'PowerupActivated':
    case 'PowerupDeactivated':
    case 'PowerupExpired':
      applyPowerupActivation(state, event.type, data);
      break;
    default:
      break;
  }
  if (data.effects) applyEffects(state, data.effects);
  return state;
}
