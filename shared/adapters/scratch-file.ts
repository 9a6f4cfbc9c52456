/**
 * A scratch file of keyed records on disk, for work whose state outgrows the heap (a replay's
 * players). It is SQLite's anonymous temporary database: the file is unlinked as soon as it is
 * opened, in SQLite's temporary directory (SQLITE_TMPDIR, else /var/tmp or /tmp), so nothing
 * with a name is left, whether the work ends, the service stops or its process is killed (the
 * system frees it with the process): the records may hold personal data. SQLite keeps 2 MiB of
 * its pages in memory (its page cache), the rest on disk.
 */
import Database from 'better-sqlite3';

/** SQLite's page cache: the part of the file kept in memory (the file exists only past it). */
const CACHE_KIB = 2048;

/** Records read at a time in order: a page in memory at once. */
const PAGE = 500;

export class ScratchFile {
  private readonly db = new Database('');
  private readonly write: Database.Statement<[number, string, Buffer]>;
  private readonly read: Database.Statement<[string], { value: Buffer }>;
  private readonly page: Database.Statement<[number], { seq: number; key: string; value: Buffer }>;

  constructor() {
    // The pages SQLite keeps in memory before it writes to the file, in KiB.
    this.db.pragma(`cache_size = -${CACHE_KIB}`);
    this.db.exec('CREATE TABLE records (seq INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, value BLOB NOT NULL)');
    this.write = this.db.prepare('INSERT OR REPLACE INTO records (seq, key, value) VALUES (?, ?, ?)');
    this.read = this.db.prepare('SELECT value FROM records WHERE key = ?');
    this.page = this.db.prepare(`SELECT seq, key, value FROM records WHERE seq > ? ORDER BY seq LIMIT ${PAGE}`);
  }

  /** Writes records, each under its key and its place in the order (`seq`, one per key), in one transaction. */
  readonly put = this.db.transaction((records: readonly [seq: number, key: string, value: Buffer][]) => {
    for (const [seq, key, value] of records) this.write.run(seq, key, value);
  });

  get(key: string): Buffer | undefined {
    return this.read.get(key)?.value;
  }

  /** Every record in the order of `seq`, read a page at a time (writes in between are allowed). */
  *inOrder(): Generator<[seq: number, key: string, value: Buffer]> {
    for (let after = -Infinity; ;) {
      const rows = this.page.all(after);
      for (const row of rows) yield [row.seq, row.key, row.value];
      if (rows.length < PAGE) return;
      after = rows[rows.length - 1].seq;
    }
  }

  close(): void {
    this.db.close();
  }
}
