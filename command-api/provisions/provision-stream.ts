import { WrongExpectedVersionError, type EventMetadata, type EventStore } from '../../shared/event-store/port';
import { newEventId } from '../../shared/ids';

/**
 * `provision-<uid>` tells whose provision a uid is, so the transaction endpoints (which get only
 * the uid) can find the player stream that holds it. It is written before the player stream: a
 * provision whose player stream never got it (a rejected or interrupted purchase) does not exist.
 */
export const provisionStream = (provisionUid: string): string => `provision-${provisionUid}`;

export interface ProvisionOpened {
  provisionUid: string;
  playerId: string;
  referenceType: 'Store' | 'Action';
  /** The bundle of a store provision. */
  bundleUid: string | null;
  openedAt: number;
}

/** Idempotent: a retry of the same request finds its own record. */
export async function openProvision(events: EventStore, opened: ProvisionOpened, metadata: EventMetadata): Promise<void> {
  try {
    await events.appendToStream(provisionStream(opened.provisionUid), [{ id: newEventId(), type: 'ProvisionOpened', data: opened, metadata }], 'no_stream');
  } catch (e) {
    if (!(e instanceof WrongExpectedVersionError)) throw e;
  }
}

export async function findProvision(events: EventStore, provisionUid: string): Promise<ProvisionOpened | null> {
  const [first] = await events.readStream(provisionStream(provisionUid), { maxCount: 1 });
  return first?.type === 'ProvisionOpened' ? (first.data as ProvisionOpened) : null;
}
