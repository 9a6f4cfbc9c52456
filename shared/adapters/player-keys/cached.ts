import type { PlayerKeys } from './port';

/**
 * Keys kept in memory in front of a store, the most recently used `capacity` of them, so that
 * reading a player's events does not ask the store each time. A deleted key leaves the cache at
 * once; an absent key is not cached (another process may make it).
 */
export class CachedPlayerKeys implements PlayerKeys {
  private readonly cache = new Map<string, Buffer>();
  /** Keys asked of the store and not answered yet, by player: one request per player at a time. */
  private readonly asked = new Map<string, Promise<Buffer>>();

  constructor(
    private readonly store: PlayerKeys,
    private readonly capacity = 10_000,
  ) {}

  async getOrCreate(playerId: string): Promise<Buffer> {
    const cached = this.cached(playerId);
    if (cached) return cached;
    const asked = this.asked.get(playerId);
    if (asked) return asked;
    const answer: Promise<Buffer> = this.store.getOrCreate(playerId).then(
      // Not kept when the player was deleted meanwhile: the cache would serve a deleted key.
      (key) => (this.answered(playerId, answer) ? this.keep(playerId, key) : key),
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
    const found = await this.store.get(playerId);
    return found && this.keep(playerId, found);
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
    const key = this.cache.get(playerId);
    if (!key) return undefined;
    // Map order is insertion order: re-inserting marks it the most recently used.
    this.cache.delete(playerId);
    this.cache.set(playerId, key);
    return key;
  }

  private keep(playerId: string, key: Buffer): Buffer {
    this.cache.set(playerId, key);
    if (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value!);
    return key;
  }
}
