/**
 * The embedded ReadStore kept in a file: the memory store for every query, with every document
 * it changes written behind to SQLite, so that a restart loads the read models and resumes the
 * projections from their checkpoints instead of replaying the whole log. Once written, a document
 * leaves memory but for its key and index entries (and a bounded cache of the latest used): the
 * read models of a million players cost their indexes in the heap, not their documents.
 *
 * For the projections, the file is a cache of what the log already says, never the truth: it is
 * written without waiting for the disk (synchronous NORMAL), and a lost or stale file costs a
 * replay. It also keeps the webhooks' cursors and waiting deliveries, which no replay restores:
 * losing the file restarts every webhook at the log's head. Writes are
 * gathered and written together every FLUSH_MS, each document as it is at that moment, in one
 * transaction: the file always holds a state the memory store had, whose checkpoints (written
 * through the store after the documents they cover) never run ahead of its documents.
 */
import Database from 'better-sqlite3';
import { StoreUnavailableError } from '../event-store/port';
import { MemoryReadStore } from './memory';
import type { Collection, Document, IndexKeys, ReadStore } from './port';

/** How long changes wait to be written together. */
const FLUSH_MS = 200;

/**
 * Documents kept in memory once written, most recently used first out: a few MiB, whatever the
 * number of players. Beyond them a document costs its key and its index entries; read again, it
 * comes from the file.
 */
const CACHED_DOCUMENTS = 20_000;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS documents (
    collection TEXT NOT NULL,
    id         TEXT NOT NULL,
    document   TEXT NOT NULL,
    PRIMARY KEY (collection, id)
  ) WITHOUT ROWID`;

const cacheKey = (collection: string, id: string) => `${collection}\u0000${id}`;

function* parsed(rows: Iterable<string>): Generator<Document> {
  for (const json of rows) yield JSON.parse(json) as Document;
}

export class FileBackedReadStore implements ReadStore {
  private readonly db: Database.Database;
  private readonly memory: MemoryReadStore;
  /** Documents changed since the last write, by collection. */
  private dirty = new Map<string, Set<string>>();
  /** Written documents read or written lately, by cacheKey, least recently used first. */
  private readonly cache = new Map<string, Document>();
  /** Collections dropped since the last write: their rows go first. */
  private dropped = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Writes the changes in one transaction; true when it removed a document. */
  private readonly writeChanges: () => boolean;
  private readonly selectCollection: Database.Statement<[string], string>;
  private readonly cachedDocuments: number;

  /**
   * Opens the file (created when missing) and loads every document it holds. The file is held
   * exclusively: a second process gets StoreUnavailableError and must keep its own read models.
   */
  constructor(
    file: string,
    /** Told when writing to the file failed; the changes stay in memory and are written with the next ones. */
    private readonly onWriteError: (error: unknown) => void,
    options: {
      /** Written documents kept in memory beyond their keys and index entries (tests: 0, every read from the file). */
      cachedDocuments?: number;
      /** Indexes filled as the file is loaded, in the same pass (ensureIndex later would read the file again for each). */
      indexes?: readonly { collection: string; keys: IndexKeys }[];
    } = {},
  ) {
    this.cachedDocuments = options.cachedDocuments ?? CACHED_DOCUMENTS;
    try {
      this.db = new Database(file, { timeout: 0 });
      this.db.pragma('locking_mode = EXCLUSIVE');
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      // A deleted document's bytes are overwritten: an erased player's name leaves the file.
      this.db.pragma('secure_delete = ON');
      this.db.exec(SCHEMA);
    } catch (error) {
      throw new StoreUnavailableError(`cannot open the read models file ${file}: ${String(error)}`, error);
    }
    const select = this.db.prepare('SELECT document FROM documents WHERE collection = ? AND id = ?').pluck();
    this.selectCollection = this.db
      .prepare('SELECT document FROM documents WHERE collection = ?')
      .pluck() as Database.Statement<[string], string>;
    this.memory = new MemoryReadStore(
      {
        changed: (collection, id) => this.markChanged(collection, id),
        dropped: (collection) => {
          this.dirty.delete(collection);
          this.dropped.add(collection);
          this.scheduleFlush();
        },
      },
      {
        // Evicted only once written and while unchanged since: the file holds it.
        read: (collection, id) => {
          const key = cacheKey(collection, id);
          let doc = this.cache.get(key);
          if (doc) this.cache.delete(key);
          else doc = JSON.parse(select.get(collection, id) as string) as Document;
          this.cached(key, doc);
          return doc;
        },
      },
    );
    for (const { collection, keys } of options.indexes ?? []) void this.memory.ensureIndex(collection, keys);
    // Read in the file's order, as before documents left memory: ties in unindexed sorts follow it.
    const rows = this.db.prepare('SELECT collection, document FROM documents').iterate() as Iterable<{
      collection: string;
      document: string;
    }>;
    for (const row of rows) this.memory.load(row.collection, [JSON.parse(row.document) as Document], true);

    const upsert = this.db.prepare(
      'INSERT INTO documents (collection, id, document) VALUES (?, ?, ?) ON CONFLICT (collection, id) DO UPDATE SET document = excluded.document',
    );
    const remove = this.db.prepare('DELETE FROM documents WHERE collection = ? AND id = ?');
    const removeCollection = this.db.prepare('DELETE FROM documents WHERE collection = ?');
    this.writeChanges = this.db.transaction(() => {
      let removed = this.dropped.size > 0;
      for (const collection of this.dropped) removeCollection.run(collection);
      for (const [collection, ids] of this.dirty) {
        for (const id of ids) {
          const doc = this.memory.storedDocument(collection, id);
          if (doc) upsert.run(collection, id, JSON.stringify(doc));
          else removed = remove.run(collection, id).changes > 0 || removed;
        }
      }
      return removed;
    });
  }

  collection<T extends Document = Document>(name: string): Collection<T> {
    return this.memory.collection<T>(name);
  }

  /** Queries run in memory: the memory store's indexes serve them, filled from the file in one pass. */
  ensureIndex(collection: string, keys: IndexKeys): Promise<void> {
    return this.memory.ensureIndex(collection, keys, () => parsed(this.selectCollection.iterate(collection)));
  }

  dropCollection(name: string): Promise<void> {
    return this.memory.dropCollection(name);
  }

  listCollections(): Promise<string[]> {
    return this.memory.listCollections();
  }

  /**
   * Writes what changed now (also what close does). The record of changes is cleared only once
   * their transaction has committed: a COMMIT refused (SQLITE_FULL on a full disk) rolls them
   * back, and they are written with the next attempt, checkpoints with them.
   */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.dirty.size && !this.dropped.size) return;
    try {
      // The WAL still holds the removed documents' earlier pages: moved into the file (where
      // secure_delete has blanked them) and emptied, so no copy of them stays on disk.
      if (this.writeChanges()) this.db.pragma('wal_checkpoint(TRUNCATE)');
    } catch (error) {
      // Tried again later even if nothing else changes (an idle service after a full disk).
      this.scheduleFlush();
      throw error;
    }
    // Nothing can change in between: the write is synchronous. What was written leaves memory
    // but for the cache; the stored documents are never changed in place, so caching them is safe.
    for (const [collection, ids] of this.dirty) {
      for (const id of ids) {
        const doc = this.memory.storedDocument(collection, id);
        if (!doc) continue;
        this.cached(cacheKey(collection, id), doc);
        this.memory.evict(collection, id);
      }
    }
    this.dropped = new Set();
    this.dirty = new Map();
  }

  private cached(key: string, doc: Document): void {
    this.cache.delete(key);
    this.cache.set(key, doc);
    if (this.cache.size > this.cachedDocuments) this.cache.delete(this.cache.keys().next().value!);
  }

  /** The read models are in memory (the file only keeps them across restarts): a replay to compare with them is too. */
  async scratch(): Promise<ReadStore> {
    return new MemoryReadStore();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    this.db.close();
    await this.memory.close();
  }

  private markChanged(collection: string, id: string): void {
    let ids = this.dirty.get(collection);
    if (!ids) this.dirty.set(collection, (ids = new Set()));
    ids.add(id);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      try {
        this.flush();
      } catch (error) {
        this.onWriteError(error);
        this.scheduleFlush();
      }
    }, FLUSH_MS);
    // Pending changes never keep a process alive: close() writes them.
    this.timer.unref();
  }
}
