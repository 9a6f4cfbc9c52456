/** Those waiting for a log position to be projected: a write's answer, a read's `X-Min-Position`. */
export class PositionWaiters {
  private waiters: { position: number; resolve(reached: boolean): void }[] = [];

  get waiting(): boolean {
    return this.waiters.length > 0;
  }

  /** Resolves true once `release` reaches `position`, false after `timeoutMs` or at `fail`. */
  wait(position: number, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter = {
        position,
        resolve: (reached: boolean) => {
          clearTimeout(timer);
          resolve(reached);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Answers true to those waiting for `projected` or an earlier position. */
  release(projected: number): void {
    const still = this.waiters.filter((w) => w.position > projected);
    if (still.length === this.waiters.length) return;
    for (const w of this.waiters) if (w.position <= projected) w.resolve(true);
    this.waiters = still;
  }

  /** Answers false to every waiter: what they wait for will not be projected (a lasting fault, the end). */
  fail(): void {
    for (const w of this.waiters) w.resolve(false);
    this.waiters = [];
  }
}
