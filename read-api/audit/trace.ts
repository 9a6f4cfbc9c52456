/**
 * The causal chain of an action or a provision, for auditors: each request that touched it (the
 * original one, a reversal, a refund, a cancel, the timeout job, a crash recovery), the events it
 * appended across streams, the catalog rules behind each award, and every balance change with
 * the balance before and after. Used by GET /v1/audit/trace and `gamification trace`.
 *
 * A request's events are found by its correlationId in the streams it can write (reference,
 * player, provision, trigger-limit, bundle-stock), not by scanning the whole log: reads stay
 * proportional to the subject, whatever the size of the log.
 */
import { BUNDLE_STOCK, stockStream, TRIGGER_ACTIVATIONS } from '../../command-api/limited-stock/stock-stream';
import { playerStream } from '../../command-api/player/repository';
import { evolve, initialPlayerState, type PlayerState, type ProvisionStatus } from '../../command-api/player/state';
import { findProvision, provisionStream } from '../../command-api/provisions/provision-stream';
import { CATALOG_STREAM, type CatalogPublished } from '../../command-api/publish-catalog/publish';
import { referenceStream } from '../../command-api/references/reference-stream';
import { addAmounts } from '../../shared/amount';
import type { EventStore, RecordedEvent } from '../../shared/event-store/port';
import type { Effects, Grant } from '../../shared/events/common';
import type { ActionProcessed, ActionReversed, Award, LevelReached } from '../../shared/events/player-events';
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
  awards: Pick<Award, 'kind' | 'uid' | 'label' | 'ruleType' | 'rank' | 'points' | 'grants' | 'limited'>[];
  levels: Pick<LevelReached, 'uid' | 'label' | 'level' | 'target' | 'grants'>[];
}

/** One request (or job run) and everything it appended about the subject. */
export interface CausalChain {
  /** Its decisive event: the first it appended to the player stream, else its last event. */
  cause: string;
  correlationId: string;
  causationId: string;
  keyName: string;
  catalogVersion: number;
  /** When its first event was recorded (Unix ms). */
  time: number;
  events: TracedEvent[];
  balanceChanges: BalanceChange[];
  rules: Rules | null;
}

export interface ActionTrace {
  referenceId: string;
  playerId: string;
  actionName: string | null;
  /** The reference record: `released` when no attempt got onto the player stream. */
  status: 'reserved' | 'completed' | 'released';
  reversed: boolean;
  /** The provision of the action's cost, if it had one. */
  provisionUid: string | null;
  /** In log order: the processing request first, then a reversal or recoveries. */
  chains: CausalChain[];
}

export interface ProvisionTrace {
  provisionUid: string;
  playerId: string;
  referenceType: 'Store' | 'Action';
  bundleUid: string | null;
  /** The action whose cost it is (Action provisions). */
  referenceId: string | null;
  /** null: the purchase never reached the player stream (rejected or interrupted), so nothing was charged. */
  status: ProvisionStatus | null;
  /** In log order: the purchase first, then completion, cancel, timeout or refund. */
  chains: CausalChain[];
}

interface PlayerHistory {
  playerId: string;
  events: RecordedEvent[];
}

const REFERENCE_STATUS = { ReferenceReserved: 'reserved', ReferenceCompleted: 'completed', ReferenceReleased: 'released' } as const;

/** The trace of an action by its referenceId, or null when the reference was never reserved. */
export async function traceReference(events: EventStore, referenceId: string): Promise<ActionTrace | null> {
  const reference = await events.readStream(referenceStream(referenceId));
  if (reference.length === 0) return null;
  const playerId = (reference[0].data as { playerId: string }).playerId;
  const player = { playerId, events: await events.readStream(playerStream(playerId)) };
  const { chains, processed } = await actionChains(events, referenceId, reference, player);
  const last = reference[reference.length - 1].type as keyof typeof REFERENCE_STATUS;
  return {
    referenceId,
    playerId,
    actionName: processed?.actionName ?? ((reference[0].data as { actionName?: string }).actionName ?? null),
    status: REFERENCE_STATUS[last],
    reversed: chains.some((c) => c.cause === 'ActionReversed'),
    provisionUid: processed?.cost?.provisionUid ?? null,
    chains,
  };
}

/** The trace of a store purchase or an action's cost by its provisionUid, or null when there is no such provision. */
export async function traceProvision(events: EventStore, provisionUid: string): Promise<ProvisionTrace | null> {
  const opened = await findProvision(events, provisionUid);
  if (!opened) return null;
  const player = { playerId: opened.playerId, events: await events.readStream(playerStream(opened.playerId)) };
  const base = { provisionUid, playerId: opened.playerId, referenceType: opened.referenceType, bundleUid: opened.bundleUid };
  if (opened.referenceType === 'Action') {
    // An action's cost is charged and refunded by the action's own events: its trace is the action's.
    const charged = player.events.find((e) => e.type === 'ActionProcessed' && (e.data as ActionProcessed).cost?.provisionUid === provisionUid);
    const referenceId = charged ? (charged.data as ActionProcessed).referenceId : null;
    const reference = referenceId ? await events.readStream(referenceStream(referenceId)) : [];
    const { chains, state } = referenceId
      ? await actionChains(events, referenceId, reference, player)
      : chainsOf([await events.readStream(provisionStream(provisionUid)), player.events], player, new Set([provisionUid]), new Set([provisionUid]));
    return { ...base, referenceId, status: state.provisions.get(provisionUid)?.status ?? null, chains };
  }
  const streams = [await events.readStream(provisionStream(provisionUid)), player.events];
  if (opened.bundleUid) streams.push(await events.readStream(stockStream(BUNDLE_STOCK, opened.bundleUid)));
  const subjects = new Set([provisionUid]);
  const { chains, state } = chainsOf(streams, player, subjects, subjects);
  return { ...base, referenceId: null, status: state.provisions.get(provisionUid)?.status ?? null, chains };
}

async function actionChains(events: EventStore, referenceId: string, reference: RecordedEvent[], player: PlayerHistory) {
  const about = (type: string) => player.events.find((e) => e.type === type && (e.data as { referenceId: string }).referenceId === referenceId);
  const processed = about('ActionProcessed')?.data as ActionProcessed | undefined;
  const reversed = about('ActionReversed')?.data as ActionReversed | undefined;
  const provisionUid = processed?.cost?.provisionUid;

  // A request may take activations of any limited trigger of its catalog and give back those it
  // did not keep; a reversal returns the activations of the awards it revokes.
  const triggers = new Set((reversed?.revokedAwards ?? []).filter((a) => a.limited).map((a) => a.uid));
  for (const version of new Set(reference.map((e) => e.metadata.catalogVersion))) {
    for (const t of (await publishedCatalog(events, version))?.catalog.triggers ?? []) if (t.limited) triggers.add(t.uid);
  }
  const streams = [reference, player.events];
  if (provisionUid) streams.push(await events.readStream(provisionStream(provisionUid)));
  for (const uid of triggers) streams.push(await events.readStream(stockStream(TRIGGER_ACTIVATIONS, uid)));

  const subjects = new Set(provisionUid ? [referenceId, provisionUid] : [referenceId]);
  // Revoking an award returns the activation held by the action that earned it.
  const related = new Set([...subjects, ...(reversed?.revokedAwards ?? []).map((a) => a.awardedBy)]);
  return { ...chainsOf(streams, player, subjects, related), processed };
}

async function publishedCatalog(events: EventStore, version: number): Promise<CatalogPublished | null> {
  // Version n is the catalog stream's revision n - 1 (publishCatalog appends one version per revision).
  const [event] = await events.readStream(CATALOG_STREAM, { fromRevision: version - 1, maxCount: 1 });
  return event ? (event.data as CatalogPublished) : null;
}

/** The uids an event is about: an action's referenceId, a provision, the holder of stock units. */
function namesOf(event: RecordedEvent): string[] {
  const d = event.data as { referenceId?: unknown; holder?: unknown; provisionUid?: unknown; cost?: { provisionUid?: unknown } | null; refund?: { provisionUid?: unknown } | null };
  return [d.referenceId, d.holder, d.provisionUid, d.cost?.provisionUid, d.refund?.provisionUid].filter((n): n is string => typeof n === 'string');
}

/**
 * Groups the events of `streams` into one chain per request that appended an event about a
 * subject. A request's other events join its chain unless they are about something else: nested
 * actions share their request's correlationId, and each action's trace keeps its own.
 */
function chainsOf(streams: RecordedEvent[][], player: PlayerHistory, subjects: ReadonlySet<string>, related: ReadonlySet<string>): { chains: CausalChain[]; state: PlayerState } {
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
  const replay = replayBalances(player, new Set(grouped.flat().map((e) => e.position)));
  const chains = grouped.map((chain): CausalChain => {
    const first = chain[0];
    const decisive = chain.find((e) => onPlayerStream.has(e)) ?? chain[chain.length - 1];
    const action = chain.find((e) => e.type === 'ActionProcessed');
    return {
      cause: decisive.type,
      correlationId: first.metadata.correlationId,
      causationId: first.metadata.causationId,
      keyName: first.metadata.keyName,
      catalogVersion: first.metadata.catalogVersion,
      time: first.createdAt,
      events: chain.map((e) => ({ position: e.position, stream: e.streamName, revision: e.revision, type: e.type, time: e.createdAt, summary: summarizeEvent(e) })),
      balanceChanges: chain.flatMap((e) => replay.changes.get(e.position) ?? []),
      rules: action ? rulesOf(action) : null,
    };
  });
  return { chains, state: replay.state };
}

function rulesOf(event: RecordedEvent): Rules {
  const e = event.data as ActionProcessed;
  return {
    catalogVersion: event.metadata.catalogVersion,
    action: { uid: e.actionUid, name: e.actionName, points: e.actionPoints, multiplier: e.multiplier, grants: e.actionGrants },
    awards: e.awards.map(({ kind, uid, label, ruleType, rank, points, grants, limited }) => ({ kind, uid, label, ruleType, rank, points, grants, limited })),
    levels: e.levels.map(({ uid, label, level, target, grants }) => ({ uid, label, level, target, grants })),
  };
}

/**
 * Replays the player's stream as the command side does (evolve), noting the balances before
 * each event at `positions`: before + change = after, change by change.
 */
function replayBalances(player: PlayerHistory, positions: ReadonlySet<number>): { changes: Map<number, BalanceChange[]>; state: PlayerState } {
  const state = initialPlayerState(player.playerId);
  const changes = new Map<number, BalanceChange[]>();
  for (const e of player.events) {
    const effects = (e.data as { effects?: Effects }).effects;
    if (effects && positions.has(e.position)) {
      const change = (balance: string, before: number, amount: number): BalanceChange => ({ position: e.position, type: e.type, balance, before, change: amount, after: addAmounts(before, amount) });
      const made: BalanceChange[] = [];
      if (effects.points !== 0) made.push(change('points', state.points, effects.points));
      const running = new Map(state.balances);
      for (const b of effects.balances) {
        const c = change(b.deliverableUid, running.get(b.deliverableUid) ?? 0, b.amount);
        running.set(b.deliverableUid, c.after);
        made.push(c);
      }
      changes.set(e.position, made);
    }
    evolve(state, e);
  }
  return { changes, state };
}
