import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { StoreUnavailableError } from '../event-store/port';
import { isUnavailable } from '../event-store/sqlite';
import { KEY_BYTES, type PlayerKeys } from './port';

/** A key being made: written with the others of its event-loop turn, then given to everyone who asked. */
interface KeyCreation {
  kept: Promise<Buffer>;
  resolve(key: Buffer): void;
  reject(error: unknown): void;
}

/**
 * The embedded key store: its own SQLite file (DATA_DIR/player-keys.sqlite), apart from the log
 * so the log can be copied without its keys. `secure_delete` overwrites a deleted key's bytes,
 * and a checkpoint (TRUNCATE) after each delete empties the WAL, so no copy of the file holds it.
 */
export class SqlitePlayerKeys implements PlayerKeys {
  private readonly db: Database.Database;
  private readonly selectKey: Database.Statement<[string], { key: Buffer }>;
  private readonly deleteKey: Database.Statement<[string]>;
  private readonly writeKeys: (players: string[]) => Buffer[];
  /** Keys asked for in this turn of the event loop and not in the file yet, by player. */
  private creations = new Map<string, KeyCreation>();

  /** `busyTimeoutMs`: how long a write waits for another process's lock before the store is unavailable. */
  constructor(file: string, busyTimeoutMs = 5000) {
    this.db = new Database(file, { timeout: busyTimeoutMs });
    this.db.pragma('journal_mode = WAL');
    // FULL syncs the WAL on every commit: a key is on disk before any event encrypted under it is written.
    this.db.pragma('synchronous = FULL');
    this.db.pragma('secure_delete = ON');
    this.db.exec('CREATE TABLE IF NOT EXISTS player_keys (player_id TEXT PRIMARY KEY, key BLOB NOT NULL) STRICT');
    this.selectKey = this.db.prepare('SELECT key FROM player_keys WHERE player_id = ?');
    // Two processes making a key at once: the first one kept wins, and both read it back.
    const insertKey = this.db.prepare<[string, Buffer], { key: Buffer }>(
      'INSERT INTO player_keys (player_id, key) VALUES (?, ?) ON CONFLICT DO NOTHING RETURNING key',
    );
    this.deleteKey = this.db.prepare('DELETE FROM player_keys WHERE player_id = ?');
    this.writeKeys = this.db.transaction((players: string[]) => {
      // One call to the CSPRNG for the whole batch: a call costs about as much as the bytes of many keys.
      const bytes = randomBytes(KEY_BYTES * players.length);
      return players.map(
        (playerId, i) =>
          (insertKey.get(playerId, bytes.subarray(i * KEY_BYTES, (i + 1) * KEY_BYTES)) ?? this.selectKey.get(playerId)!)
            .key,
      );
    }).immediate;
  }

  /**
   * Group commit: the keys first asked for in the same turn of the event loop are written in one
   * transaction, so one disk sync makes them all durable, and each call resolves only after it.
   * Calls for a player whose key is being made share it.
   */
  async getOrCreate(playerId: string): Promise<Buffer> {
    const making = this.creations.get(playerId);
    if (making) return making.kept;
    const found = this.guarded(() => this.selectKey.get(playerId));
    if (found) return found.key;
    let resolve!: (key: Buffer) => void;
    let reject!: (error: unknown) => void;
    const kept = new Promise<Buffer>((res, rej) => ((resolve = res), (reject = rej)));
    this.creations.set(playerId, { kept, resolve, reject });
    if (this.creations.size === 1) setImmediate(() => this.writeCreations());
    return kept;
  }

  async get(playerId: string): Promise<Buffer | null> {
    return this.guarded(() => this.selectKey.get(playerId)?.key ?? null);
  }

  /**
   * A key still being made when its player is deleted is never written: those who asked for it
   * before the delete get it, as if it had been made and then deleted (what they encrypt under
   * it reads as erased).
   */
  async delete(playerId: string): Promise<void> {
    this.guarded(() => {
      this.deleteKey.run(playerId);
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    });
    const abandoned = this.creations.get(playerId);
    this.creations.delete(playerId);
    abandoned?.resolve(randomBytes(KEY_BYTES));
  }

  private writeCreations(): void {
    const batch = [...this.creations];
    this.creations = new Map();
    if (batch.length === 0) return;
    let kept: Buffer[];
    try {
      kept = this.guarded(() => this.writeKeys(batch.map(([playerId]) => playerId)));
    } catch (error) {
      for (const [, creation] of batch) creation.reject(error);
      return;
    }
    batch.forEach(([, creation], i) => creation.resolve(kept[i]));
  }

  /** A file that cannot be read or written now (read-only, full, locked) is the store being unavailable: a 503, not a 500. */
  private guarded<T>(operation: () => T): T {
    try {
      return operation();
    } catch (error) {
      if (isUnavailable(error))
        throw new StoreUnavailableError(`player key store unavailable: ${(error as Error).message}`, error);
      throw error;
    }
  }

  async close(): Promise<void> {
    // Keys already asked for are written, not lost with the connection.
    this.writeCreations();
    this.db.close();
  }
}
