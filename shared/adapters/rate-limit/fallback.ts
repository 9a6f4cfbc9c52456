/**
 * Rate limits on a shared store (Redis) that, while the store is away, are kept in this process
 * instead of failing the request: a process whose requests need nothing else of that store (the
 * read role) goes on serving. Meanwhile each process allows a key the whole rate on its own.
 */
import { StoreUnavailableError } from '../event-store/port';
import type { RateLimiter, RateLimitResult, RateLimitSetting } from './port';

export class FallbackRateLimiter implements RateLimiter {
  /** Whether the last take fell back: the switch each way is said once, not at every request. */
  private fallen = false;

  constructor(
    private readonly shared: RateLimiter,
    private readonly local: RateLimiter,
    private readonly said: (fallen: boolean, reason: string) => void,
  ) {}

  async take(key: string, setting: RateLimitSetting): Promise<RateLimitResult> {
    try {
      const taken = await this.shared.take(key, setting);
      if (this.fallen) this.switch(false, 'the shared store answers again');
      return taken;
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      if (!this.fallen) this.switch(true, error.message);
      return this.local.take(key, setting);
    }
  }

  /** Never a reason not to serve: takes do not fail while the shared store is away. */
  async problem(): Promise<string | null> {
    return null;
  }

  async close(): Promise<void> {
    await Promise.all([this.shared.close(), this.local.close()]);
  }

  private switch(fallen: boolean, reason: string): void {
    this.fallen = fallen;
    this.said(fallen, reason);
  }
}
