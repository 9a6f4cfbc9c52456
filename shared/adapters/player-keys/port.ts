/**
 * The PlayerKeys port: one secret key per player, held outside the event log. Personal fields of
 * the player's events are encrypted under it (shared/adapters/event-store/personal-data.ts);
 * deleting it makes them unreadable everywhere the log is copied (crypto-shredding).
 */
export interface PlayerKeys {
  /** The player's key, made and kept on first use; the same key on every later call, from any process. */
  getOrCreate(playerId: string): Promise<Buffer>;
  /** The player's key, or null when the player has none (never had one, or it was deleted). */
  get(playerId: string): Promise<Buffer | null>;
  /** Deletes the key for good, so that no copy of it remains in the store's files; idempotent. */
  delete(playerId: string): Promise<void>;
  close(): Promise<void>;
}

/** AES-256 key length in bytes. */
export const KEY_BYTES = 32;
