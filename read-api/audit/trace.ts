/**
 * The causal chain of an action or a provision, for auditors: each request that touched it (the
 * original one, a reversal, a refund, a cancel, the timeout job), the events it appended across
 * streams, the catalog rules behind each award, and every balance change with the balance before
 * and after. Used by GET /v1/audit/trace and `gamification trace`.
 *
 * A request appends all its events at once, so its events are found by its correlationId in the
 * streams it can have written (reference, player, provision, trigger-limit, bundle-stock), not by
 * scanning the whole log: reads stay proportional to the subject, whatever the size of the log.
 */
import { addAmounts } from '../../domain/amount';
import type { EventStore, RecordedEvent } from '../../shared/adapters/event-store/port';
import { playerEventOf, referenceEventOf } from '../../domain/events';
import { CATALOG_VERSIONS_FOLD } from '../../domain/catalog/versions';
import { foldStream } from '../../domain/stream-fold';
import type { Grant, Lot } from '../../domain/events/common';
import type { ChestOpened } from '../../domain/events/inventory-events';
import type {
  ActionProcessed,
  ActionReversed,
  Award,
  CapCut,
  LevelReached,
  MissionMove,
  PlayerRecomputed,
  RevokedAward,
  StreakStep,
} from '../../domain/events/player-events';
import type { ProvisionStatus } from '../../domain/events/provision-events';
import { PlayerFolding } from '../../domain/player/state';
import { provisionRecordOf } from '../../domain/provisions';
import { lotsGivenBack } from '../../domain/rules/lots';
import {
  BUNDLE_STOCK,
  CATALOG_STREAM,
  CHEST_STOCK,
  playerStream,
  provisionStream,
  referenceStream,
  stockStream,
  TRIGGER_ACTIVATIONS,
} from '../../domain/streams';
import { summarizeEvent } from './events';

export interface TracedEvent {
  position: number;
  stream: string;
  revision: number;
  type: string;
  /** When it was recorded (Unix ms). */
  time: number;
  summary: string;
}

export interface BalanceChange {
  /** Position of the player event that made the change. */
  position: number;
  type: string;
  /** A deliverable uid, or `points`. */
  balance: string;
  before: number;
  change: number;
  after: number;
}

/** What the catalog decided for an action: recorded in ActionProcessed, so it is what applied then. */
export interface Rules {
  catalogVersion: number;
  action: { uid: string; name: string; points: number; multiplier: number; grants: Grant[] };
  awards: (Pick<Award, 'kind' | 'uid' | 'label' | 'ruleType' | 'rank' | 'points' | 'grants' | 'limited'> & {
    challenge: ChallengeAction[][];
  })[];
  levels: Pick<LevelReached, 'uid' | 'label' | 'level' | 'target' | 'grants'>[];
  /** The streaks it counted for: the run after it, and each milestone it reached with what that granted. */
  streaks: (Pick<StreakStep, 'uid' | 'label' | 'length' | 'extended' | 'milestones'> & { freezesUsed: number })[];
  /**
   * The missions it made progress in: the steps (indexes from 0) whose condition it met, the steps
   * completed after it in the period, and the completion it made, with what that granted, or null.
   */
  missions: (Pick<MissionMove, 'uid' | 'label' | 'period' | 'completedSteps' | 'completion'> & { steps: number[] })[];
  /** The caps that cut what it earned, each with its period and limit (a `times` cap: it earned nothing). */
  caps: CapCut[];
  /** The lots of currencies that expire it granted (+) or its cost drew (-), each with when it expires. */
  lots: Lot[];
  /** The experiments it was decided under, each with the player's variant (absent: none). */
  experiments?: { uid: string; variant: string }[];
}

/**
 * What a reversal took back, each with the rule that had granted it: the awards, streak
 * milestones and mission completions its action or a later one had earned and that no longer
 * hold, and the lots of the cost it could not give back because they had expired.
 */
export interface TakenBack {
  awards: Pick<RevokedAward, 'kind' | 'uid' | 'rank' | 'awardedBy' | 'points' | 'grants'>[];
  milestones: NonNullable<ActionReversed['revokedMilestones']>;
  missions: NonNullable<ActionReversed['revokedMissions']>;
  lotsExpired: Lot[];
}

/** One action a recompute decided differently: its leaderboard points before and after, and the rules that now apply. */
export interface RecomputedAction {
  referenceId: string;
  pointsBefore: number;
  pointsAfter: number;
  rules: Rules;
}

/** An action whose progress an award used up: by condition of the rule, the actions that made up its challenge. */
export interface ChallengeAction {
  referenceId: string;
  /** When it happened (Unix ms). */
  time: number;
  /** What it added to a sum challenge (its detail value); 0 where the challenge counts actions. */
  value: number;
}

/** One request (or job run) and everything it appended about the subject. */
export interface CausalChain {
  /** Its decisive event: the first it appended to the player stream, else its last event. */
  cause: string;
  correlationId: string;
  causationId: string;
  keyName: string;
  catalogVersion: number;
  /** Who published that catalog version: the API key's name, or `file`; null for version 0 (none yet). */
  catalogPublishedBy: string | null;
  /** When its first event was recorded (Unix ms). */
  time: number;
  events: TracedEvent[];
  balanceChanges: BalanceChange[];
  rules: Rules | null;
  /** A recompute's chain: each action it decided differently, with its change and rules; null for other requests. */
  recomputed: RecomputedAction[] | null;
  /** A reversal's chain: what it took back and why; null for other requests. */
  takenBack: TakenBack | null;
}

export interface ActionTrace {
  referenceId: string;
  playerId: string;
  actionName: string;
  reversed: boolean;
  /** The provision of the action's cost, if it had one. */
  provisionUid: string | null;
  /** In log order: the processing request first, then its reversal. */
  chains: CausalChain[];
}

export interface ProvisionTrace {
  provisionUid: string;
  playerId: string;
  referenceType: 'Store' | 'Action';
  bundleUid: string | null;
  /** The action whose cost it is (Action provisions). */
  referenceId: string | null;
  status: ProvisionStatus;
  /** In log order: the purchase (or action) first, then completion, cancel, timeout, refund or reversal. */
  chains: CausalChain[];
}

export interface ChestOpeningTrace {
  openingUid: string;
  playerId: string;
  chestDeliverableUid: string;
  chestLabel: string;
  /** The opening's request: the chest taken, the prizes granted, the limited prizes' stock taken. */
  chains: CausalChain[];
}

export interface AdjustmentTrace {
  adjustmentUid: string;
  playerId: string;
  reason: string;
  /** The key that made it. */
  keyName: string;
  /** The adjustment's request: its points and deliverables, each balance before and after. */
  chains: CausalChain[];
}

interface PlayerHistory {
  playerId: string;
  events: RecordedEvent[];
}

/** The trace of an action by its referenceId, or null when no action has that referenceId. */
export async function traceReference(events: EventStore, referenceId: string): Promise<ActionTrace | null> {
  const reference = await events.readStream(referenceStream(referenceId));
  const recorded = reference.map(referenceEventOf).find((e) => e?.type === 'ReferenceRecorded');
  if (recorded?.type !== 'ReferenceRecorded') return null;
  const { playerId, actionName } = recorded.data;
  const player = { playerId, events: await events.readStream(playerStream(playerId)) };
  const { chains, processed, reversed } = await actionChains(events, referenceId, reference, player);
  return {
    referenceId,
    playerId,
    actionName,
    reversed: reversed !== null,
    provisionUid: processed?.cost?.provisionUid ?? null,
    chains,
  };
}

/** The trace of a store purchase or an action's cost by its provisionUid, or null when there is no such provision. */
export async function traceProvision(events: EventStore, provisionUid: string): Promise<ProvisionTrace | null> {
  const provision = await events.readStream(provisionStream(provisionUid));
  const record = provisionRecordOf(provision);
  if (!record) return null;
  const { opened } = record;
  const player = { playerId: opened.playerId, events: await events.readStream(playerStream(opened.playerId)) };
  const base = {
    provisionUid,
    playerId: opened.playerId,
    referenceType: opened.referenceType,
    bundleUid: opened.bundleUid,
    referenceId: opened.referenceId,
    status: record.status,
  };
  if (opened.referenceId !== null) {
    // An action's cost is charged and refunded by the action's own events: its trace is the action's.
    const reference = await events.readStream(referenceStream(opened.referenceId));
    return { ...base, chains: (await actionChains(events, opened.referenceId, reference, player)).chains };
  }
  const streams = [provision, player.events];
  if (opened.bundleUid) streams.push(await events.readStream(stockStream(BUNDLE_STOCK, opened.bundleUid)));
  const subjects = new Set([provisionUid]);
  return { ...base, chains: chainsOf(await publishersOf(events), streams, player, subjects, subjects) };
}

/**
 * The trace of a chest opening by its openingUid (in the open's answer), or null when the player
 * has no such opening. The player is named too: the opening is found on their stream alone.
 */
export async function traceChestOpening(
  events: EventStore,
  playerId: string,
  openingUid: string,
): Promise<ChestOpeningTrace | null> {
  const player = { playerId, events: await events.readStream(playerStream(playerId)) };
  let opened: ChestOpened | null = null;
  for (const recorded of player.events) {
    const e = playerEventOf(recorded);
    if (e?.type === 'ChestOpened' && e.data.openingUid === openingUid) opened = e.data;
  }
  if (!opened) return null;
  // A limited prize's units are taken from its pool's stream, held by the opening.
  const streams = [player.events];
  for (const stockUid of new Set(opened.prizes.flatMap((p) => (p.stockUid ? [p.stockUid] : []))))
    streams.push(await events.readStream(stockStream(CHEST_STOCK, stockUid)));
  const subjects = new Set([openingUid]);
  return {
    openingUid,
    playerId,
    chestDeliverableUid: opened.chestDeliverableUid,
    chestLabel: opened.chestLabel,
    chains: chainsOf(await publishersOf(events), streams, player, subjects, subjects),
  };
}

/** The trace of a support adjustment by its adjustmentUid, or null when the player has no such adjustment. */
export async function traceAdjustment(
  events: EventStore,
  playerId: string,
  adjustmentUid: string,
): Promise<AdjustmentTrace | null> {
  const player = { playerId, events: await events.readStream(playerStream(playerId)) };
  const adjusted = player.events
    .map(playerEventOf)
    .find((e) => e?.type === 'PlayerAdjusted' && e.data.adjustmentUid === adjustmentUid);
  if (adjusted?.type !== 'PlayerAdjusted') return null;
  const subjects = new Set([adjustmentUid]);
  const { reason, keyName } = adjusted.data;
  return {
    adjustmentUid,
    playerId,
    reason,
    keyName,
    chains: chainsOf(await publishersOf(events), [player.events], player, subjects, subjects),
  };
}

/** Who published each catalog version, by version: the API key's name, or `file`. */
async function publishersOf(events: EventStore): Promise<Map<number, string>> {
  const versions = foldStream(CATALOG_STREAM, CATALOG_VERSIONS_FOLD, await events.readStream(CATALOG_STREAM)).state;
  return new Map(versions.versions.map((v) => [v.version, v.publishedBy]));
}

/** The action of a referenceId on the player's stream. */
function processedOf(player: PlayerHistory, referenceId: string): ActionProcessed | null {
  for (const recorded of player.events) {
    const e = playerEventOf(recorded);
    if (e?.type === 'ActionProcessed' && e.data.referenceId === referenceId) return e.data;
  }
  return null;
}

/** Its reversal, if any. */
function reversalOf(player: PlayerHistory, referenceId: string): ActionReversed | null {
  for (const recorded of player.events) {
    const e = playerEventOf(recorded);
    if (e?.type === 'ActionReversed' && e.data.referenceId === referenceId) return e.data;
  }
  return null;
}

async function actionChains(
  events: EventStore,
  referenceId: string,
  reference: RecordedEvent[],
  player: PlayerHistory,
) {
  const processed = processedOf(player, referenceId);
  const reversed = reversalOf(player, referenceId);
  const provisionUid = processed?.cost?.provisionUid;

  // Activations of limited triggers are taken by the action's awards and given back by its reversal.
  const triggers = new Set(
    [...(processed?.awards ?? []), ...(reversed?.revokedAwards ?? [])].filter((a) => a.limited).map((a) => a.uid),
  );
  const streams = [reference, player.events];
  if (provisionUid) streams.push(await events.readStream(provisionStream(provisionUid)));
  for (const uid of triggers) streams.push(await events.readStream(stockStream(TRIGGER_ACTIVATIONS, uid)));

  const subjects = new Set(provisionUid ? [referenceId, provisionUid] : [referenceId]);
  // Revoking an award returns the activation held by the action that earned it.
  const related = new Set([...subjects, ...(reversed?.revokedAwards ?? []).map((a) => a.awardedBy)]);
  return { chains: chainsOf(await publishersOf(events), streams, player, subjects, related), processed, reversed };
}

/** The uids an event is about: an action's referenceId, a provision, a chest opening, an adjustment, the holder of stock units. */
function namesOf(event: RecordedEvent): string[] {
  const d = event.data as {
    referenceId?: unknown;
    holder?: unknown;
    provisionUid?: unknown;
    openingUid?: unknown;
    adjustmentUid?: unknown;
    cost?: { provisionUid?: unknown } | null;
    refund?: { provisionUid?: unknown } | null;
    /** A recompute: the actions it decided differently. */
    changes?: { actions?: unknown };
  };
  const recomputed = Array.isArray(d.changes?.actions) ? (d.changes.actions as unknown[]) : [];
  return [
    d.referenceId,
    d.holder,
    d.provisionUid,
    d.openingUid,
    d.adjustmentUid,
    d.cost?.provisionUid,
    d.refund?.provisionUid,
    ...recomputed,
  ].filter((n): n is string => typeof n === 'string');
}

/**
 * Groups the events of `streams` into one chain per request that appended an event about a
 * subject. A request's other events join its chain unless they are about something else: nested
 * actions share their request's correlationId, and each action's trace keeps its own.
 */
function chainsOf(
  publishers: ReadonlyMap<number, string>,
  streams: RecordedEvent[][],
  player: PlayerHistory,
  subjects: ReadonlySet<string>,
  related: ReadonlySet<string>,
): CausalChain[] {
  const all = streams.flat().sort((a, b) => a.position - b.position);
  const correlations = new Set<string>();
  for (const e of all) if (namesOf(e).some((n) => subjects.has(n))) correlations.add(e.metadata.correlationId);
  const grouped = [...correlations].map((c) =>
    all.filter((e) => {
      const names = namesOf(e);
      return e.metadata.correlationId === c && (names.length === 0 || names.some((n) => related.has(n)));
    }),
  );
  const onPlayerStream = new Set(player.events);
  const changes = balanceChanges(player, new Set(grouped.flat().map((e) => e.position)));
  return grouped.map((chain): CausalChain => {
    const first = chain[0];
    const decisive = chain.find((e) => onPlayerStream.has(e)) ?? chain[chain.length - 1];
    const action = chain.find((e) => e.type === 'ActionProcessed');
    const recompute = chain.find((e) => e.type === 'PlayerRecomputed');
    const reversal = chain.find((e) => e.type === 'ActionReversed');
    return {
      cause: decisive.type,
      correlationId: first.metadata.correlationId,
      causationId: first.metadata.causationId,
      keyName: first.metadata.keyName,
      catalogVersion: first.metadata.catalogVersion,
      catalogPublishedBy: publishers.get(first.metadata.catalogVersion) ?? null,
      time: first.createdAt,
      events: chain.map((e) => ({
        position: e.position,
        stream: e.streamName,
        revision: e.revision,
        type: e.type,
        time: e.createdAt,
        summary: summarizeEvent(e),
      })),
      balanceChanges: chain.flatMap((e) => changes.get(e.position) ?? []),
      rules: action ? rulesOf(action) : null,
      recomputed: recompute ? recomputedOf(recompute) : null,
      takenBack: reversal ? takenBackOf(reversal) : null,
    };
  });
}

function rulesOf(event: RecordedEvent): Rules {
  const typed = playerEventOf(event);
  if (typed?.type !== 'ActionProcessed') throw new Error(`event ${event.id} is not an ActionProcessed`);
  return rulesOfAction(typed.data, event.metadata.catalogVersion);
}

/** Each action a recompute decided differently, as the recompute decided it, with its leaderboard points before and after. */
function recomputedOf(event: RecordedEvent): RecomputedAction[] {
  const typed = playerEventOf(event);
  if (typed?.type !== 'PlayerRecomputed') throw new Error(`event ${event.id} is not a PlayerRecomputed`);
  const e: PlayerRecomputed = typed.data;
  const scores = new Map(e.scores.map((s) => [s.ref, s]));
  return e.actions.map((a) => {
    // A decision that changed without moving the action's points has no score change recorded.
    const score = scores.get(a.referenceId);
    return {
      referenceId: a.referenceId,
      pointsBefore: score?.before ?? a.result.earnedPoints,
      pointsAfter: score?.after ?? a.result.earnedPoints,
      rules: rulesOfAction(a, e.catalogVersion),
    };
  });
}

function takenBackOf(event: RecordedEvent): TakenBack {
  const typed = playerEventOf(event);
  if (typed?.type !== 'ActionReversed') throw new Error(`event ${event.id} is not an ActionReversed`);
  const e = typed.data;
  // The cost's lots that expired before the reversal: not given back (grants.ts, giveBack).
  const lots = e.refund?.lots ?? [];
  const given = lotsGivenBack(lots, e.reversedAt).lots;
  return {
    awards: e.revokedAwards.map(({ kind, uid, rank, awardedBy, points, grants }) => ({
      kind,
      uid,
      rank,
      awardedBy,
      points,
      grants,
    })),
    milestones: e.revokedMilestones ?? [],
    missions: e.revokedMissions ?? [],
    lotsExpired: lots.filter((l) => !given.includes(l)),
  };
}

function rulesOfAction(e: ActionProcessed, catalogVersion: number): Rules {
  return {
    catalogVersion,
    action: {
      uid: e.actionUid,
      name: e.actionName,
      points: e.actionPoints,
      multiplier: e.multiplier,
      grants: e.actionGrants,
    },
    // Recorded with the award: the progress it consumed, condition by condition (none for a rank).
    awards: e.awards.map(({ kind, uid, label, ruleType, rank, points, grants, limited, consumed }) => ({
      kind,
      uid,
      label,
      ruleType,
      rank,
      points,
      grants,
      limited,
      challenge: consumed.map((entries) =>
        entries.map((entry) => ({ referenceId: entry.ref, time: entry.ts, value: entry.value })),
      ),
    })),
    levels: e.levels.map(({ uid, label, level, target, grants }) => ({ uid, label, level, target, grants })),
    streaks: (e.streaks ?? []).map(({ uid, label, length, extended, freezesUsed, milestones }) => ({
      uid,
      label,
      length,
      extended,
      freezesUsed,
      milestones,
    })),
    missions: (e.missions ?? []).map(({ uid, label, period, matches, completedSteps, completion }) => ({
      uid,
      label,
      period,
      steps: matches.map((m) => m.step),
      completedSteps,
      completion,
    })),
    caps: e.result.capped ?? [],
    lots: e.effects.lots ?? [],
    ...(e.experiments ? { experiments: e.experiments } : {}),
  };
}

/**
 * Replays the player's stream as the command side folds it, noting the balances before
 * each event at `positions`: before + change = after, change by change.
 */
function balanceChanges(player: PlayerHistory, positions: ReadonlySet<number>): Map<number, BalanceChange[]> {
  const folding = new PlayerFolding(player.playerId);
  const changes = new Map<number, BalanceChange[]>();
  for (const recorded of player.events) {
    const e = playerEventOf(recorded);
    if (!e) continue;
    if (positions.has(recorded.position)) {
      const { state } = folding;
      const { effects } = e.data;
      const change = (balance: string, before: number, amount: number): BalanceChange => ({
        position: recorded.position,
        type: e.type,
        balance,
        before,
        change: amount,
        after: addAmounts(before, amount),
      });
      const made: BalanceChange[] = [];
      if (effects.points !== 0) made.push(change('points', state.points, effects.points));
      const running = new Map(state.balances);
      for (const b of effects.balances) {
        const c = change(b.deliverableUid, running.get(b.deliverableUid) ?? 0, b.amount);
        running.set(b.deliverableUid, c.after);
        made.push(c);
      }
      changes.set(recorded.position, made);
    }
    folding.add(e);
  }
  return changes;
}
