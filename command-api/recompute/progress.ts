/**
 * Which recomputes run now, and how far each got, as every command process sees it. The process
 * running one knows its progress; with several command processes (the split deployment) it also
 * writes it, with a heartbeat, to a document of the shared read store every HEARTBEAT_MS, so that
 * another process answers its status and refuses a second recompute while it runs. One not heard
 * of for STALE_MS is no longer running (its process stopped): its status reads Interrupted.
 */
import type { Collection } from '../../shared/adapters/read-store/port';

export type Progress = { eventsDone: number; eventsTotal: number };

type ProgressDoc = Progress & {
  _id: string;
  /** Unix ms (the wall clock: a process's sign of life, not business time). */
  heardAt: number;
};

/** The shared store's collection of the recomputes running now. */
export const RECOMPUTE_PROGRESS = 'recompute_progress';
export const HEARTBEAT_MS = 5_000;
/** Six heartbeats missed: a process stopped, not one slowed down by its work or a store's hiccup. */
export const STALE_MS = 30_000;

export class RecomputeProgress {
  /** The recomputes this process runs, with their latest progress. */
  private readonly here = new Map<string, Progress>();
  private readonly beats = new Map<string, NodeJS.Timeout>();

  /**
   * `shared`: where other command processes see this one's recomputes; null where this process is
   * the only one that runs them (the all-in-one process). `warn`: a heartbeat not written.
   */
  constructor(
    private readonly shared: Collection | null,
    private readonly warn: (error: unknown) => void,
    private readonly clock: () => number = Date.now,
  ) {}

  /** A recompute this process starts: heard of from now on, until `end`. */
  async start(recomputeUid: string): Promise<void> {
    this.here.set(recomputeUid, { eventsDone: 0, eventsTotal: 0 });
    if (!this.shared) return;
    await this.beat(recomputeUid);
    const timer = setInterval(() => void this.beat(recomputeUid), HEARTBEAT_MS);
    timer.unref();
    this.beats.set(recomputeUid, timer);
  }

  report(recomputeUid: string, progress: Progress): void {
    if (this.here.has(recomputeUid)) this.here.set(recomputeUid, progress);
  }

  /** Its outcome recorded (or given up on): running no more. Answers its last progress. */
  async end(recomputeUid: string): Promise<Progress> {
    const last = this.here.get(recomputeUid) ?? { eventsDone: 0, eventsTotal: 0 };
    clearInterval(this.beats.get(recomputeUid));
    this.beats.delete(recomputeUid);
    this.here.delete(recomputeUid);
    await this.shared?.deleteMany({ _id: recomputeUid }).catch((error: unknown) => this.warn(error));
    return last;
  }

  /** The progress of the recompute if it runs now, in this process or another one; null if not. */
  async of(recomputeUid: string): Promise<Progress | null> {
    const local = this.here.get(recomputeUid);
    if (local || !this.shared) return local ?? null;
    const doc = (await this.shared.findOne({ _id: recomputeUid })) as ProgressDoc | null;
    if (!doc || this.clock() - doc.heardAt > STALE_MS) return null;
    return { eventsDone: doc.eventsDone, eventsTotal: doc.eventsTotal };
  }

  /**
   * The recomputes running now, as a decision asks: this process's as they are at each question,
   * other processes' as heard now (those not heard of for STALE_MS stopped).
   */
  async runningNow(): Promise<Pick<ReadonlySet<string>, 'has'>> {
    const elsewhere = new Set<string>();
    if (this.shared)
      for (const doc of (await this.shared.find({})) as ProgressDoc[])
        if (this.clock() - doc.heardAt <= STALE_MS) elsewhere.add(doc._id);
    return { has: (recomputeUid) => this.here.has(recomputeUid) || elsewhere.has(recomputeUid) };
  }

  private async beat(recomputeUid: string): Promise<void> {
    const progress = this.here.get(recomputeUid);
    if (!progress || !this.shared) return;
    try {
      const doc: ProgressDoc = { _id: recomputeUid, ...progress, heardAt: this.clock() };
      await this.shared.replaceOne({ _id: recomputeUid }, doc, { upsert: true });
    } catch (error) {
      this.warn(error);
    }
  }
}
