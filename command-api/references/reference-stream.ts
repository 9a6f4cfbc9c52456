import { WrongExpectedVersionError, type EventMetadata, type EventStore } from '../../shared/event-store/port';
import type { ActionResult } from '../../shared/events/player-events';
import { newEventId } from '../../shared/ids';

/**
 * `reference-<referenceId>` is the global idempotency record of an action: reserved before the
 * player stream is written, completed after. A reservation left behind by a crash is finished or
 * released by recovery, so a referenceId is never processed twice nor blocked for good.
 */
export const referenceStream = (referenceId: string): string => `reference-${referenceId}`;

export type ReferenceStatus =
  | { status: 'none' }
  | { status: 'reserved'; revision: number; playerId: string; reservedAt: number }
  | { status: 'completed'; revision: number; playerId: string; playerRevision: number; result: ActionResult }
  | { status: 'released'; revision: number };

export async function readReference(events: EventStore, referenceId: string): Promise<ReferenceStatus> {
  const stream = await events.readStream(referenceStream(referenceId));
  let status: ReferenceStatus = { status: 'none' };
  for (const e of stream) {
    const d = e.data as Record<string, unknown>;
    if (e.type === 'ReferenceReserved') status = { status: 'reserved', revision: e.revision, playerId: d.playerId as string, reservedAt: d.reservedAt as number };
    else if (e.type === 'ReferenceCompleted')
      status = { status: 'completed', revision: e.revision, playerId: d.playerId as string, playerRevision: d.playerRevision as number, result: d.result as ActionResult };
    else if (e.type === 'ReferenceReleased') status = { status: 'released', revision: e.revision };
  }
  return status;
}

/** Reserves a referenceId: the reservation's revision, or null when another request holds or completed it. */
export async function reserveReference(events: EventStore, referenceId: string, current: ReferenceStatus, data: { playerId: string; actionName: string; reservedAt: number }, metadata: EventMetadata): Promise<number | null> {
  if (current.status !== 'none' && current.status !== 'released') return null;
  try {
    const appended = await events.appendToStream(
      referenceStream(referenceId),
      [{ id: newEventId(), type: 'ReferenceReserved', data: { referenceId, ...data }, metadata }],
      current.status === 'none' ? 'no_stream' : current.revision,
    );
    return appended.nextExpectedRevision;
  } catch (e) {
    if (e instanceof WrongExpectedVersionError) return null;
    throw e;
  }
}

/** Both close the reservation at `reservation` (its revision); a conflict means recovery closed it first. */
export async function completeReference(events: EventStore, referenceId: string, reservation: number, data: { playerId: string; playerRevision: number; result: ActionResult }, metadata: EventMetadata): Promise<void> {
  await events.appendToStream(referenceStream(referenceId), [{ id: newEventId(), type: 'ReferenceCompleted', data: { referenceId, ...data }, metadata }], reservation);
}

export async function releaseReference(events: EventStore, referenceId: string, reservation: number, reason: string, metadata: EventMetadata): Promise<void> {
  await events.appendToStream(referenceStream(referenceId), [{ id: newEventId(), type: 'ReferenceReleased', data: { referenceId, reason }, metadata }], reservation);
}
