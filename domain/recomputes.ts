/** The recomputes the `recompute` stream records: each one started, and its outcome once it has one. */
import { recomputeOfEvent } from './events';
import type { RecordedEvent } from './events/recorded';
import type { StreamFold } from './stream-fold';

/** How a recompute ended, as recorded. */
export type RecomputeOutcome =
  { status: 'Completed'; applied: boolean; report: unknown } | { status: 'Failed'; message: string };

/** Each recompute by uid, oldest first: its outcome, or null while none is recorded (running, or cut short). */
export type Recomputes = ReadonlyMap<string, RecomputeOutcome | null>;

export const NO_RECOMPUTES: Recomputes = new Map();

/** The recomputes after one event of the stream. */
export function evolveRecomputes(recomputes: Recomputes, recorded: RecordedEvent): Recomputes {
  const e = recomputeOfEvent(recorded);
  if (!e) return recomputes;
  const outcome: RecomputeOutcome | null =
    e.type === 'RecomputeStarted'
      ? null
      : e.type === 'RecomputeCompleted'
        ? { status: 'Completed', applied: e.data.applied, report: e.data.report }
        : { status: 'Failed', message: e.data.message };
  return new Map(recomputes).set(e.data.recomputeUid, outcome);
}

/** The recomputes started and not ended: none is recorded as completed or failed. */
export const unfinishedOf = (recomputes: Recomputes): string[] =>
  [...recomputes].filter(([, outcome]) => outcome === null).map(([uid]) => uid);

/** The `recompute` stream. */
export const RECOMPUTES_FOLD: StreamFold<Recomputes> = { initial: () => NO_RECOMPUTES, evolve: evolveRecomputes };
