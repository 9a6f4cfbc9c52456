import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { StoreUnavailableError } from '../event-store/port';
import { isUnavailable } from '../event-store/sqlite';
import { KEY_BYTES, type PlayerKeys } from './port';

/**
 * The embedded key store: its own SQLite file (DATA_DIR/player-keys.sqlite), apart from the log
 * so the log can be copied without its keys. `secure_delete` overwrites a deleted key's bytes,
 * and a checkpoint (TRUNCATE) after each delete empties the WAL, so no copy of the file holds it.
 */
export class SqlitePlayerKeys implements PlayerKeys {
  private readonly db: Database.Database;
  private readonly selectKey: Database.Statement<[string], { key: Buffer }>;
  private readonly insertKey: Database.Statement<[string, Buffer]>;
  private readonly deleteKey: Database.Statement<[string]>;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('secure_delete = ON');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec('CREATE TABLE IF NOT EXISTS player_keys (player_id TEXT PRIMARY KEY, key BLOB NOT NULL) STRICT');
    this.selectKey = this.db.prepare('SELECT key FROM player_keys WHERE player_id = ?');
    // Two processes making a key at once: the first one kept wins, and both read it back.
    this.insertKey = this.db.prepare('INSERT INTO player_keys (player_id, key) VALUES (?, ?) ON CONFLICT DO NOTHING');
    this.deleteKey = this.db.prepare('DELETE FROM player_keys WHERE player_id = ?');
  }

  async getOrCreate(playerId: string): Promise<Buffer> {
    return this.guarded(() => {
      const found = this.selectKey.get(playerId);
      if (found) return found.key;
      this.insertKey.run(playerId, randomBytes(KEY_BYTES));
      return this.selectKey.get(playerId)!.key;
    });
  }

  async get(playerId: string): Promise<Buffer | null> {
    return this.guarded(() => this.selectKey.get(playerId)?.key ?? null);
  }

  async delete(playerId: string): Promise<void> {
    this.guarded(() => {
      this.deleteKey.run(playerId);
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    });
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
    this.db.close();
  }
}
