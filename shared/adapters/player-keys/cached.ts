import type { PlayerKeys } from './port';

/**
 * Keys kept in memory in front of a store, the most recently used `capacity` of them, so that
 * reading a player's events does not ask the store each time. A deleted key leaves the cache at
 * once; an absent key is not cached (another process may make it).
 */
export class CachedPlayerKeys implements PlayerKeys {
  private readonly cache = new Map<string, Buffer>();

  constructor(
    private readonly store: PlayerKeys,
    private readonly capacity = 10_000,
  ) {}

  async getOrCreate(playerId: string): Promise<Buffer> {
    return this.cached(playerId) ?? this.keep(playerId, await this.store.getOrCreate(playerId));
  }

  async get(playerId: string): Promise<Buffer | null> {
    const cached = this.cached(playerId);
    if (cached) return cached;
    const found = await this.store.get(playerId);
    return found && this.keep(playerId, found);
  }

  async delete(playerId: string): Promise<void> {
    this.cache.delete(playerId);
    await this.store.delete(playerId);
    this.cache.delete(playerId);
  }

  close(): Promise<void> {
    this.cache.clear();
    return this.store.close();
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
