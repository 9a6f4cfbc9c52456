/**
 * What the runner (runner.ts) and the generations (generations.ts) share: the projectors'
 * contract, and where and under which names the checkpoints are written (which readers in other
 * processes read too). Apart from both, so that neither imports the other.
 */
import type { DomainEvent, EventType, Recorded } from '../domain/events';
import type { EventStore } from '../shared/adapters/event-store/port';
import type { IndexKeys, ReadStore } from '../shared/adapters/read-store/port';

/**
 * Turns events into read models. Handlers are idempotent: delivery is at least once, and after a
 * restart the runner replays every event after the projector's last written checkpoint, which
 * may be some way behind what the read models already hold (checkpoints are written in batches).
 */
export interface Projector {
  name: string;
  /** Collections it owns: dropped on rebuild. */
  collections: readonly string[];
  /** Collections an earlier version of it wrote and this one does not: dropped on rebuild too, so they do not linger. */
  retiredCollections?: readonly string[];
  /** The indexes the readers of its collections need (MongoDB creates them; the memory store keeps them ordered, ordered-index.ts). */
  indexes?: readonly { collection: string; keys: IndexKeys }[];
  /** Event types it handles; others are skipped without touching the read store. */
  handles: ReadonlySet<EventType>;
  /** `log`: streams it may read, for the rare decision its read models alone cannot make. */
  apply(event: Recorded<DomainEvent>, store: ReadStore, log: LogReader): Promise<void>;
  /**
   * Event types that change how the projector applies the events after them (the leaderboards'
   * board definitions), so that replaying earlier events against the state they leave would not
   * be idempotent: the runner writes the projector's checkpoint just before applying one (the
   * redelivery after a crash then starts at it, never before it) and just after.
   */
  checkpointAround?: ReadonlySet<EventType>;
  /**
   * Writes to `store` what the projector gathered in memory from the events applied to it since
   * it last wrote (a projector may add up several events' changes and write each document once).
   * Whoever applies events calls it before writing their checkpoints or reading what they did:
   * the runner before each batch's write and each write of the checkpoints, `replay` after each page.
   */
  flush?(store: ReadStore): Promise<void>;
  /** Forgets what the projector remembers in memory about `store`: the runner has dropped its collections. */
  reset?(store: ReadStore): void;
}

/** What a projector may read of the event log besides the events it is given. */
export type LogReader = Pick<EventStore, 'readStream'>;

export const CHECKPOINTS = 'checkpoints';
/**
 * Which log and which projectors the read models were built from: the id of the log's first
 * event and the projections' version. Read models built from another log (a new event store
 * behind old read models) or by another version are rebuilt.
 */
export const ORIGIN = '$origin';
/** The checkpoint of the whole log: how far the runner got, for readers in other processes. */
export const LOG_CHECKPOINT = '$log';
