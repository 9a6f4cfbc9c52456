/**
 * A referenceId's record, as its own stream holds it: the action it names on a player's stream,
 * and whether that action was reversed.
 */
import { referenceEventOf } from './events';
import type { RecordedEvent } from './events/recorded';
import type { StreamFold } from './stream-fold';

export interface ReferenceRecord {
  /** The player whose action it is. */
  playerId: string;
  /** Revision of the action's ActionProcessed on the player's stream. */
  playerRevision: number;
  reversed: boolean;
}

/** A reference's record after one event of its stream (null: not recorded yet). */
export function evolveReference(record: ReferenceRecord | null, recorded: RecordedEvent): ReferenceRecord | null {
  const e = referenceEventOf(recorded);
  if (e?.type === 'ReferenceRecorded')
    return { playerId: e.data.playerId, playerRevision: e.data.playerRevision, reversed: false };
  if (e?.type === 'ReferenceReversed' && record) return { ...record, reversed: true };
  return record;
}

/** A reference's stream: no record before its ReferenceRecorded. */
export const REFERENCE_FOLD: StreamFold<ReferenceRecord | null> = { initial: () => null, evolve: evolveReference };
