import type { PlayerKeys } from './port';

/** How long a process may keep a key it read before asking the store again (PLAYER_KEY_CACHE_MS). */
export const DEFAULT_KEY_CACHE_MS = 2000;

/**
 * Keys kept in memory in front of a store, the most recently used `capacity` of them, so that
 * reading a player's events does not ask the store each time. A deleted key leaves this cache at
 * once; a key deleted by another process (an erasure answered there) leaves it at the latest
 * `maxAgeMs` after this process asked the store for it, which is how long an erasure waits before
 * it answers (command-api/erase-player/handler.ts). An absent key is not cached (another process may make it).
 */
export class CachedPlayerKeys implements PlayerKeys {
  private readonly cache = new Map<string, { key: Buffer; askedAt: number }>();
  /** Keys asked of the store and not answered yet, by player: one request per player at a time. */
  private readonly asked = new Map<string, Promise<Buffer>>();

  constructor(
    private readonly store: PlayerKeys,
    private readonly capacity = 10_000,
    private readonly maxAgeMs = DEFAULT_KEY_CACHE_MS,
    /** A monotonic clock: the age of an entry must not jump with the wall clock. */
    private readonly now: () => number = () => performance.now(),
  ) {}

  async getOrCreate(playerId: string): Promise<Buffer> {
    const cached = this.cached(playerId);
    if (cached) return cached;
    const asked = this.asked.get(playerId);
    if (asked) return asked;
    const askedAt = this.now();
    const answer: Promise<Buffer> = this.store.getOrCreate(playerId).then(
      // Not kept when the player was deleted meanwhile: the cache would serve a deleted key.
      (key) => (this.answered(playerId, answer) ? this.keep(playerId, key, askedAt) : key),
      (error: unknown) => {
        this.answered(playerId, answer);
        throw error;
      },
    );
    this.asked.set(playerId, answer);
    return answer;
  }

  async get(playerId: string): Promise<Buffer | null> {
    const cached = this.cached(playerId);
    if (cached) return cached;
    const askedAt = this.now();
    const found = await this.store.get(playerId);
    return found && this.keep(playerId, found, askedAt);
  }

  async delete(playerId: string): Promise<void> {
    this.asked.delete(playerId);
    this.cache.delete(playerId);
    await this.store.delete(playerId);
    this.cache.delete(playerId);
  }

  close(): Promise<void> {
    this.cache.clear();
    return this.store.close();
  }

  /** Whether `answer` is still the player's request in flight (no delete since), which it then no longer is. */
  private answered(playerId: string, answer: Promise<Buffer>): boolean {
    if (this.asked.get(playerId) !== answer) return false;
    this.asked.delete(playerId);
    return true;
  }

  private cached(playerId: string): Buffer | undefined {
    const entry = this.cache.get(playerId);
    if (!entry) return undefined;
    // Map order is insertion order: re-inserting marks it the most recently used.
    this.cache.delete(playerId);
    // Aged from when the store was asked: the store may have deleted it any time since.
    if (this.now() - entry.askedAt >= this.maxAgeMs) return undefined;
    this.cache.set(playerId, entry);
    return entry.key;
  }

  private keep(playerId: string, key: Buffer, askedAt: number): Buffer {
    this.cache.set(playerId, { key, askedAt });
    if (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value!);
    return key;
  }
}
