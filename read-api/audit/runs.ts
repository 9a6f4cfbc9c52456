/**
 * The long audit runs (a verification, a simulation): one of each kind at a time per deployment,
 * with their progress and last outcome readable by any process, after the request that started
 * one has ended (an ingress's timeout, a client that left). Each kind has one document in the
 * shared read store (MongoDB's `audit_runs`; the process's own store without MongoDB): the run
 * under way, written again with its progress every HEARTBEAT_MS, then its outcome. A run not
 * heard of for STALE_MS stopped with its process (killed, restarted): it reads as Interrupted, and
 * the next may start.
 */
import { DuplicateKeyError, type Collection, type Document } from '../../shared/adapters/read-store/port';

export type AuditRunKind = 'verify' | 'simulate';
/** How far a run got, in its own terms (a verification: events replayed and the log position reached). */
export type Progress = Record<string, number>;

export interface AuditRun<R> {
  runUid: string;
  status: 'Running' | 'Completed' | 'Failed' | 'Interrupted';
  /** Unix ms. */
  startedAt: number;
  endedAt: number | null;
  progress: Progress;
  result: R | null;
  /** Why it failed or was interrupted; null otherwise. */
  error: string | null;
}

type RunDocument = Document &
  Omit<AuditRun<unknown>, 'status'> & { status: 'Running' | 'Completed' | 'Failed'; heardAt: number };

export const AUDIT_RUNS = 'audit_runs';
export const HEARTBEAT_MS = 5_000;
/** Six heartbeats missed: its process stopped, not one slowed down by its work. */
export const STALE_MS = 30_000;

export class AuditRuns {
  private readonly beats = new Map<string, { timer: NodeJS.Timeout; progress: Progress }>();

  constructor(
    private readonly runs: Collection,
    private readonly warn: (error: unknown) => void,
    private readonly clock: () => number = Date.now,
    private readonly heartbeatMs = HEARTBEAT_MS,
  ) {}

  private get documents(): Collection<RunDocument> {
    return this.runs as unknown as Collection<RunDocument>;
  }

  /** Starts a run of `kind` unless one runs now, in any process: false then. */
  async begin(kind: AuditRunKind, runUid: string, progress: Progress): Promise<boolean> {
    const now = this.clock();
    try {
      // The filter misses a run under way and heard of lately: the upsert then fails on the _id.
      await this.documents.updateOne(
        { _id: kind, $or: [{ status: { $ne: 'Running' } }, { heardAt: { $lt: now - STALE_MS } }] },
        {
          $set: {
            runUid,
            status: 'Running',
            startedAt: now,
            endedAt: null,
            heardAt: now,
            progress,
            result: null,
            error: null,
          },
        },
        { upsert: true },
      );
    } catch (error) {
      if (error instanceof DuplicateKeyError) return false;
      throw error;
    }
    const beat = { timer: setInterval(() => void this.beat(kind, runUid), this.heartbeatMs), progress };
    beat.timer.unref();
    this.beats.set(kind, beat);
    return true;
  }

  /** The run's progress, written with its next heartbeat. */
  report(kind: AuditRunKind, progress: Progress): void {
    const beat = this.beats.get(kind);
    if (beat) beat.progress = progress;
  }

  /** The run ended: its outcome, readable until the next run of its kind. */
  async end(kind: AuditRunKind, runUid: string, outcome: { result: unknown } | { error: string }): Promise<void> {
    const beat = this.beats.get(kind);
    clearInterval(beat?.timer);
    this.beats.delete(kind);
    const now = this.clock();
    await this.documents
      .updateOne(
        { _id: kind, runUid },
        {
          $set: {
            status: 'result' in outcome ? 'Completed' : 'Failed',
            endedAt: now,
            heardAt: now,
            ...(beat ? { progress: beat.progress } : {}),
            result: 'result' in outcome ? outcome.result : null,
            error: 'error' in outcome ? outcome.error : null,
          },
        },
      )
      .catch((error: unknown) => this.warn(error));
  }

  /** The run of `kind` under way or last ended, in any process; null if none ran. */
  async latest<R>(kind: AuditRunKind): Promise<AuditRun<R> | null> {
    const doc = await this.documents.findOne({ _id: kind });
    if (!doc) return null;
    const { _id, heardAt, ...run } = doc;
    void _id;
    if (run.status === 'Running' && this.clock() - heardAt > STALE_MS)
      return { ...(run as AuditRun<R>), status: 'Interrupted', error: 'its process stopped before it ended' };
    return run as AuditRun<R>;
  }

  /** Stops the heartbeats (the process stops: its runs read as Interrupted once stale). */
  close(): void {
    for (const { timer } of this.beats.values()) clearInterval(timer);
    this.beats.clear();
  }

  private async beat(kind: AuditRunKind, runUid: string): Promise<void> {
    const beat = this.beats.get(kind);
    if (!beat) return;
    try {
      await this.documents.updateOne(
        { _id: kind, runUid },
        { $set: { heardAt: this.clock(), progress: beat.progress } },
      );
    } catch (error) {
      this.warn(error);
    }
  }
}
