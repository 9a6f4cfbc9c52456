/** How far the projections of another process got, read from the shared checkpoint. */
import type { ReadStore } from '../shared/adapters/read-store/port';
import { CHECKPOINTS, LOG_CHECKPOINT } from './projector';

const POLL_MS = 25;

/**
 * Read-your-writes for a read process whose projections run elsewhere (the projector role on
 * MongoDB): waits until the shared log checkpoint passes a position, polling, bounded in time.
 */
export class LogCheckpointWatcher {
  constructor(private readonly store: ReadStore) {}

  async position(): Promise<number> {
    const doc = await this.store
      .collection<{ _id: string; position: number }>(CHECKPOINTS)
      .findOne({ _id: LOG_CHECKPOINT });
    return doc?.position ?? 0;
  }

  /** Resolves true once `position` is projected, or false after `timeoutMs`. */
  async waitFor(position: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if ((await this.position()) >= position) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
}
