import { indexCatalog } from '../../shared/catalog/catalog-index';
import { WrongExpectedVersionError, type EventMetadata } from '../../shared/event-store/port';
import type { ActionProcessed, ActionResult } from '../../shared/events/player-events';
import { fail, ok, TOO_MANY_CONCURRENT_CHANGES, type Result } from '../../shared/http/envelope';
import { decisionEnv, type CommandDeps } from '../deps';
import { completeReference, readReference, releaseReference, reserveReference, type ReferenceStatus } from '../references/reference-stream';
import { returnStock, takeStock, TRIGGER_ACTIVATIONS } from '../limited-stock/stock-stream';
import { openProvision } from '../provisions/provision-stream';
import { decideProcessAction, type ProcessActionCommand } from './decider';

const MAX_ATTEMPTS = 50;

export interface Processed {
  result: ActionResult;
  position: number;
}

/**
 * Processes one action: reference reserved (idempotency), limited trigger activations taken,
 * player events appended at the expected revision (re-deciding on conflict), reference completed.
 */
export async function processAction(cmd: ProcessActionCommand, metadata: EventMetadata, deps: CommandDeps): Promise<Result<Processed>> {
  let reserved: number | null = null;
  const costProvisionUid = deps.newUid();
  let costProvisionOpened = false;
  const exhausted = new Set<string>();
  const activations = new Set<string>();
  const giveBack = async (keep: ReadonlySet<string>) => {
    for (const uid of activations) if (!keep.has(uid)) await returnStock(deps.events, TRIGGER_ACTIVATIONS, uid, cmd.referenceId, cmd.playerId, metadata);
  };

  attempts: for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const { state, revision } = await deps.players.load(cmd.playerId);
    const { catalog } = deps.catalog();
    const decision = decideProcessAction(cmd, state, { ...decisionEnv(deps), catalog, exhaustedTriggers: exhausted, costProvisionUid });
    if (!decision.ok) {
      await giveBack(new Set());
      // The player already has it (a recovered or raced attempt): finish the record, report the duplicate.
      if (reserved !== null && decision.failure.code === 2601) await closing(() => finishFromPlayerStream(cmd, reserved!, metadata, deps));
      else if (reserved !== null) await closing(() => releaseReference(deps.events, cmd.referenceId, reserved!, `rejected: ${decision.failure.code}`, metadata));
      // A repeat of an action the player has, whose record a crash left reserved: finish the record.
      else if (decision.failure.code === 2601) await recoverIfStale(cmd.referenceId, metadata, deps);
      return decision;
    }
    if (reserved === null) {
      reserved = await reserve(cmd, metadata, deps);
      if (reserved === null) return fail(2601, 'Duplicate action');
    }
    const processed = decision.value.processed;
    const limited = processed.awards.filter((a) => a.limited).map((a) => a.uid);
    let short = false;
    for (const uid of limited) {
      const trigger = indexCatalog(catalog).triggerByUid.get(uid)!;
      let taken: boolean;
      try {
        taken = await takeStock(deps.events, TRIGGER_ACTIVATIONS, uid, trigger.limit, cmd.referenceId, cmd.playerId, metadata);
      } catch (e) {
        // The trigger's activations stayed contended through every retry: give up as below, so
        // that the referenceId is free for the client's retry at once.
        if (e instanceof WrongExpectedVersionError) break attempts;
        throw e;
      }
      if (taken) activations.add(uid);
      else {
        exhausted.add(uid);
        short = true;
      }
    }
    if (short) continue;
    if (processed.cost && !costProvisionOpened) {
      await openProvision(deps.events, { provisionUid: costProvisionUid, playerId: cmd.playerId, referenceType: 'Action', bundleUid: null, openedAt: deps.now() }, metadata);
      costProvisionOpened = true;
    }
    let appended;
    try {
      appended = await deps.players.append(cmd.playerId, decision.value.events, revision, metadata);
    } catch (e) {
      if (!(e instanceof WrongExpectedVersionError)) throw e;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 * attempt)));
      continue;
    }
    await giveBack(new Set(limited));
    const reservation = reserved;
    await closing(() =>
      completeReference(deps.events, cmd.referenceId, reservation, { playerId: cmd.playerId, playerRevision: appended.nextExpectedRevision, result: processed.result }, metadata),
    );
    return ok({ result: processed.result, position: appended.position });
  }
  await giveBack(new Set());
  if (reserved !== null) await closing(() => releaseReference(deps.events, cmd.referenceId, reserved!, 'too many concurrent changes', metadata));
  return fail(503, TOO_MANY_CONCURRENT_CHANGES);
}

/**
 * Reserves the referenceId. Optimistic: most references are new, so the stream is not read
 * first; a conflict reads it, recovers a reservation left by a crash, or reuses a released one.
 */
async function reserve(cmd: ProcessActionCommand, metadata: EventMetadata, deps: CommandDeps): Promise<number | null> {
  const data = { playerId: cmd.playerId, actionName: cmd.name, reservedAt: deps.now() };
  const first = await reserveReference(deps.events, cmd.referenceId, { status: 'none' }, data, metadata);
  if (first !== null) return first;
  let reference = await readReference(deps.events, cmd.referenceId);
  if (reference.status === 'reserved' && deps.now() - reference.reservedAt >= deps.staleReservationMs) {
    reference = await recoverReference(cmd.referenceId, reference, metadata, deps);
  }
  return reference.status === 'released' ? reserveReference(deps.events, cmd.referenceId, reference, data, metadata) : null;
}

/** Recovers the reference when a crash left it reserved longer than the stale window. */
async function recoverIfStale(referenceId: string, metadata: EventMetadata, deps: CommandDeps): Promise<void> {
  const reference = await readReference(deps.events, referenceId);
  if (reference.status === 'reserved' && deps.now() - reference.reservedAt >= deps.staleReservationMs) await recoverReference(referenceId, reference, metadata, deps);
}

/** Closes a reservation; if recovery already closed it, the player stream stays the truth. */
async function closing(close: () => Promise<void>): Promise<void> {
  try {
    await close();
  } catch (e) {
    if (!(e instanceof WrongExpectedVersionError)) throw e;
  }
}

/** Completes the reference from the player's recorded ActionProcessed. */
async function finishFromPlayerStream(cmd: ProcessActionCommand, reservation: number, metadata: EventMetadata, deps: CommandDeps): Promise<void> {
  const { state } = await deps.players.load(cmd.playerId);
  const revision = state.processed.get(cmd.referenceId)!;
  const event = await deps.players.eventAt(cmd.playerId, revision);
  await completeReference(deps.events, cmd.referenceId, reservation, { playerId: cmd.playerId, playerRevision: revision, result: (event!.data as ActionProcessed).result }, metadata);
}

/**
 * A reservation older than `staleReservationMs` was left by a crash: if the player stream has the
 * action, complete the record; otherwise release it (and its trigger activations) for a retry.
 */
export async function recoverReference(referenceId: string, reference: Extract<ReferenceStatus, { status: 'reserved' }>, metadata: EventMetadata, deps: CommandDeps): Promise<ReferenceStatus> {
  const { state } = await deps.players.load(reference.playerId);
  const revision = state.processed.get(referenceId);
  try {
    if (revision !== undefined) {
      const event = await deps.players.eventAt(reference.playerId, revision);
      await completeReference(deps.events, referenceId, reference.revision, { playerId: reference.playerId, playerRevision: revision, result: (event!.data as ActionProcessed).result }, metadata);
    } else {
      for (const t of deps.catalog().catalog.triggers.filter((x) => x.limited)) await returnStock(deps.events, TRIGGER_ACTIVATIONS, t.uid, referenceId, reference.playerId, metadata);
      await releaseReference(deps.events, referenceId, reference.revision, 'recovered after an interrupted attempt', metadata);
    }
  } catch (e) {
    if (!(e instanceof WrongExpectedVersionError)) throw e; // someone else recovered it first
  }
  return readReference(deps.events, referenceId);
}
