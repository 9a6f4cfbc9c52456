import { type EventMetadata, type EventStore } from '../../shared/event-store/port';
import { newEventId } from '../../shared/ids';
import { retryOnConflict } from '../retry';

/**
 * `trigger-limit-<uid>` counts the activations of a limited trigger over all players. Each take
 * is an append at the expected revision, so concurrent takes can never exceed the limit.
 */
export const triggerLimitStream = (triggerUid: string): string => `trigger-limit-${triggerUid}`;

async function holders(events: EventStore, triggerUid: string): Promise<{ refs: Set<string>; revision: number }> {
  const refs = new Set<string>();
  let revision = -1;
  for (const e of await events.readStream(triggerLimitStream(triggerUid))) {
    const ref = (e.data as { referenceId: string }).referenceId;
    if (e.type === 'TriggerActivationTaken') refs.add(ref);
    else if (e.type === 'TriggerActivationReturned') refs.delete(ref);
    revision = e.revision;
  }
  return { refs, revision };
}

/** Takes one activation for a referenceId (idempotent per referenceId); false when none is left. */
export function takeActivation(events: EventStore, triggerUid: string, limit: number, referenceId: string, playerId: string, metadata: EventMetadata): Promise<boolean> {
  return retryOnConflict(async () => {
    const { refs, revision } = await holders(events, triggerUid);
    if (refs.has(referenceId)) return true;
    if (refs.size >= limit) return false;
    await events.appendToStream(
      triggerLimitStream(triggerUid),
      [{ id: newEventId(), type: 'TriggerActivationTaken', data: { triggerUid, referenceId, playerId }, metadata }],
      revision === -1 ? 'no_stream' : revision,
    );
    return true;
  });
}

/** Gives an activation back (a reversal, or a decision that was not written). */
export function returnActivation(events: EventStore, triggerUid: string, referenceId: string, playerId: string, metadata: EventMetadata): Promise<void> {
  return retryOnConflict(async () => {
    const { refs, revision } = await holders(events, triggerUid);
    if (!refs.has(referenceId)) return;
    await events.appendToStream(
      triggerLimitStream(triggerUid),
      [{ id: newEventId(), type: 'TriggerActivationReturned', data: { triggerUid, referenceId, playerId }, metadata }],
      revision,
    );
  });
}

