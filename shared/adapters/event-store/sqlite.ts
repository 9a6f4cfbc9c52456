/**
 * Embedded EventStore adapter: one SQLite file (better-sqlite3, WAL), shareable by several
 * processes. Behaves like EventStoreDB where the port makes it visible (see port.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type {
  AppendResult,
  EventMetadata,
  EventStore,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamAppend,
  SubscribeOptions,
  Subscription,
  WriteProblem,
} from './port';
import { checkAppends, StoreFaultError, StoreUnavailableError } from './port';
import { WalCheckpointer } from './sqlite-checkpointer';
import type { Batch, Committed } from './sqlite-commit';
import { codeOf, Committer, CommitWorker, isUnavailable } from './sqlite-commit';

export { isUnavailable };

export interface SqliteEventStoreOptions {
  /** How often an idle subscription looks for events appended by other processes. Default 50. */
  pollIntervalMs?: number;
  /** Clock for `createdAt`. Default Date.now. */
  now?: () => number;
  /**
   * Open the file read-only: reads work, appends throw StoreUnavailableError. Also the only
   * reliable way to test that path, since file permissions do not stop a root process.
   */
  readonly?: boolean;
  /** How long a write waits for another process's write lock before giving up. Default 5000. */
  busyTimeoutMs?: number;
  /** Told the number of appends of each group commit (the service's metrics). */
  onGroupCommit?(appends: number): void;
  /**
   * Run `PRAGMA quick_check` when opening (the service does, at start): a damaged file is refused
   * with a StoreFaultError instead of failing on some later read. Its cost: docs/operations.md, "Operating it".
   */
  checkIntegrity?: boolean;
  /**
   * Called once, with one line saying what is wrong and what to do, when the store finds a lasting
   * fault while open (its file deleted, replaced or damaged): from then on it refuses every write.
   */
  onFault?(reason: string): void;
  /**
   * Streams whose current revision is remembered (see `knownRevisions`), the least recently read
   * going first. Default 100,000. What it saves is the read of a stream a cached state is up to
   * date with, so the service bounds it by its player-state cache (about 115 bytes a stream).
   */
  rememberedStreams?: number;
}

/**
 * Free space the file's file system must have again before writes refused for a full disk are
 * taken again: a group commit's frames, with room to spare.
 */
const FREE_BYTES_TO_WRITE = 16 * 1024 * 1024;

/** How often an open file store checks that its path still names the file it opened. */
const SAME_FILE_CHECK_EVERY_MS = 1000;

/**
 * Rows per read while a subscription catches up, so a long replay never loads the whole log. Few:
 * a page's parsed events stay alive until the last is handled, and those the young generation's
 * collections find alive are copied, and promoted (pages of 1,000 doubled a rebuild's collection time).
 */
const PAGE_SIZE = 200;
/**
 * A subscription catching up lets timers and I/O run after this many events, not after each page:
 * a subscriber gathering what is delivered back to back (the projection runner's batches) gets that many.
 */
const EVENTS_BETWEEN_YIELDS = 1000;
/** Streams whose current revision is remembered by default (see `knownRevisions`); the oldest go first. */
const KNOWN_REVISIONS_LIMIT = 100_000;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS events (
    position   INTEGER PRIMARY KEY AUTOINCREMENT,
    stream     TEXT    NOT NULL,
    revision   INTEGER NOT NULL,
    event_id   TEXT    NOT NULL UNIQUE,
    type       TEXT    NOT NULL,
    data       TEXT    NOT NULL,
    metadata   TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (stream, revision)
  )`;

const COLUMNS = 'position, stream, revision, event_id, type, data, metadata, created_at';

interface EventRow {
  position: number;
  stream: string;
  revision: number;
  event_id: string;
  type: string;
  data: string;
  metadata: string;
  created_at: number;
}

/** What a read without metadata gives as each event's: nothing decoded, one frozen object for all. */
const NO_METADATA = Object.freeze({}) as EventMetadata;

/**
 * A row of a read without metadata: COLUMNS but metadata, as an array (an object per row of a
 * replay's read cost a tenth of it).
 */
type RowWithoutMetadata = [
  position: number,
  stream: string,
  revision: number,
  eventId: string,
  type: string,
  data: string,
  createdAt: number,
];
const COLUMNS_WITHOUT_METADATA = 'position, stream, revision, event_id, type, data, created_at';

/** domain/streams.ts shareOf in SQL, before its `% count` (the codes of a stream name's last two characters). */
const SHARE_OF = '(unicode(substr(stream, -1)) + 31 * unicode(substr(stream, -2, 1)))';

/** An event as a reader that never reads its metadata gets it: the column not even selected. */
function toRecordedWithoutMetadata(row: RowWithoutMetadata): RecordedEvent {
  return {
    id: row[3],
    type: row[4],
    data: JSON.parse(row[5]),
    metadata: NO_METADATA,
    streamName: row[1],
    revision: row[2],
    position: row[0],
    createdAt: row[6],
  };
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    type: row.type,
    data: JSON.parse(row.data),
    metadata: JSON.parse(row.metadata),
    streamName: row.stream,
    revision: row.revision,
    position: row.position,
    createdAt: row.created_at,
  };
}

/** SQLite result codes meaning the file is damaged: a lasting fault, never retried. */
const DAMAGED_CODES = /^SQLITE_(CORRUPT|NOTADB)/;

const isDamaged = (error: unknown): boolean => DAMAGED_CODES.test(codeOf(error) ?? '');

const damaged = (file: string, detail: string): string =>
  `event store ${file} is damaged (${detail}); stop every process using it and restore the file from a backup (sqlite3's .recover can salvage the rows still readable)`;

/** SQLite result codes of a file this process may not write (or create). */
const NOT_WRITABLE_CODES = /^SQLITE_(READONLY|CANTOPEN|PERM)/;

interface PendingAppend {
  appends: readonly StreamAppend[];
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

/** Events a subscription read, and the position it read up to (past the last event when others were left out). */
interface Page {
  events: RecordedEvent[];
  reached: number;
}

const pageOf = (events: RecordedEvent[], after: number): Page => ({
  events,
  reached: events.length ? events[events.length - 1].position : after,
});

export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly now: () => number;
  private readonly pollIntervalMs: number;
  private readonly subscriptions = new Set<SqliteSubscription>();
  private closed = false;
  /** Set by close(): appends are refused, those accepted are committed. */
  private closing: Promise<void> | undefined;
  private readonly file: string;
  private readonly readonly: boolean;
  /** The file opened (null in memory): its path must keep naming it, or writes would go nowhere. */
  private readonly opened: { dev: number; ino: number } | null;
  /** A lasting fault found while open: every write is refused with it. */
  private fault: string | null = null;
  /** Why the last write failed for a full disk (SQLITE_FULL); null once one commits or the file has room again. */
  private full: string | null = null;
  private readonly onFault: ((reason: string) => void) | undefined;
  private readonly sameFileTimer: NodeJS.Timeout | undefined;

  private readonly selectRevision: Database.Statement<[string], { revision: number | null }>;
  private readonly selectStream: Database.Statement<[string, number, number], EventRow>;
  private readonly selectAll: Database.Statement<[number, number], EventRow>;
  /** The log after a position up to another, only events of the types a JSON array names. */
  private readonly selectAllOfTypes: Database.Statement<[number, number, string, number], EventRow>;
  /** Reads of the log restricted to stream prefixes, by their number of prefixes. */
  private readonly selectAllOfPrefixes = new Map<string, Database.Statement<unknown[], EventRow>>();
  /** The same without metadata, rows as arrays, by their number of prefixes (0: every stream). */
  private readonly selectAllWithoutMetadata = new Map<string, Database.Statement<unknown[], RowWithoutMetadata>>();
  private readonly selectHead: Database.Statement<[], { position: number | null }>;
  private readonly selectDataVersion: Database.Statement<[], number>;
  /**
   * Current revisions of streams this connection has read to the end or appended to since,
   * so that reading "what came after revision N" of such a stream (a cached player state
   * catching up) needs no query. Valid while no other connection commits to the file:
   * `PRAGMA data_version` changes when one does, and then the whole map is forgotten, unless
   * the only one was this store's writer thread (CommitWorker.wroteAllUpTo).
   */
  private readonly knownRevisions = new Map<string, number>();
  private readonly rememberedStreams: number;
  /**
   * Set when data_version changed while the writer had a batch in flight and the head seen may be
   * that batch's: nothing remembered is trusted until its answer tells whether it was (whoWrote).
   */
  private unconfirmed = false;
  private dataVersion = -1;
  private dataVersionCheckedThisTurn = false;
  /** The group commit on this connection: a store in memory (or read-only). */
  private readonly committer: Committer | undefined;
  /** The group commit in a worker thread with its own connection: a store in a file. */
  private readonly writer: CommitWorker | undefined;
  /** The batch the writer is committing (one at a time), until its appends are answered. */
  private inFlight: Promise<void> | undefined;
  /** The streams of the batch in flight: once the writer has committed it, what is remembered of them is stale until its answer. */
  private readonly inFlightStreams = new Set<string>();
  /** Appends waiting for the next group commit. */
  private pending: PendingAppend[] = [];
  private readonly checkpointer: WalCheckpointer | undefined;
  private readonly onGroupCommit: ((appends: number) => void) | undefined;

  constructor(filePath: string, options: SqliteEventStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.pollIntervalMs = options.pollIntervalMs ?? 50;
    this.onGroupCommit = options.onGroupCommit;
    this.file = filePath;
    this.readonly = options.readonly ?? false;
    this.onFault = options.onFault;
    this.rememberedStreams = options.rememberedStreams ?? KNOWN_REVISIONS_LIMIT;
    const inFile = filePath !== ':memory:' && filePath !== '';
    let db: Database.Database | undefined;
    try {
      db = new Database(filePath, {
        readonly: this.readonly,
        fileMustExist: this.readonly,
        timeout: options.busyTimeoutMs ?? 5000,
      });
      db.pragma('journal_mode = WAL');
      // FULL syncs the WAL on every commit: an acknowledged append survives a power cut.
      db.pragma('synchronous = FULL');
      db.exec(SCHEMA);
      if (options.checkIntegrity) {
        const problems = (db.pragma('quick_check') as { quick_check: string }[]).map((row) => row.quick_check);
        // The first problem is enough to say the file is damaged ("*** in database main ***" heads a list).
        const first = problems
          .join('\n')
          .split('\n')
          .find((line) => !line.startsWith('***'));
        if (problems.join() !== 'ok') throw new StoreFaultError(damaged(filePath, `quick_check: ${first}`));
      }
    } catch (error) {
      db?.close();
      throw this.openFailure(error);
    }
    this.db = db;
    this.opened = inFile ? fs.statSync(filePath) : null;
    if (this.opened) this.sameFileTimer = setInterval(() => this.checkSameFile(), SAME_FILE_CHECK_EVERY_MS).unref();
    this.selectRevision = this.db.prepare('SELECT MAX(revision) AS revision FROM events WHERE stream = ?');
    this.selectStream = this.db.prepare(
      `SELECT ${COLUMNS} FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?`,
    );
    this.selectAll = this.db.prepare(`SELECT ${COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`);
    this.selectAllOfTypes = this.db.prepare(
      `SELECT ${COLUMNS} FROM events WHERE position > ? AND position <= ? AND type IN (SELECT value FROM json_each(?)) ORDER BY position LIMIT ?`,
    );
    this.selectHead = this.db.prepare('SELECT MAX(position) AS position FROM events');
    this.selectDataVersion = this.db.prepare('PRAGMA data_version').pluck() as Database.Statement<[], number>;
    // Read-only, the commit runs here and fails as SQLite refuses it (a 503).
    if (this.readonly || !inFile) {
      this.committer = new Committer(db, this.rememberedStreams);
      return;
    }
    const writer = new CommitWorker(
      filePath,
      { busyTimeoutMs: options.busyTimeoutMs ?? 5000, rememberedStreams: this.rememberedStreams },
      (error) => {
        if (!this.closed)
          this.failWith(`event store ${filePath}: its writer thread stopped (${error.message}); restart the service`);
      },
    );
    this.writer = writer;
    this.checkpointer = new WalCheckpointer(filePath, () => {
      // Without the worker, SQLite checkpoints inside commits again, so the WAL cannot grow without end.
      if (!this.closed) writer.pragma('wal_autocheckpoint = 1000').catch(() => undefined);
    });
  }

  /**
   * Group commit: appends made in the same turn of the event loop share one transaction, so one
   * disk sync acknowledges them all. Each is still all-or-nothing and checks its own expected
   * revisions, in call order.
   */
  appendToStreams(appends: readonly StreamAppend[]): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      try {
        this.assertOpen();
        if (this.closing) throw new StoreUnavailableError('event store is closed');
        if (this.fault) throw new StoreFaultError(this.fault);
        checkAppends(appends);
      } catch (error) {
        return reject(error);
      }
      this.pending.push({ appends, resolve, reject });
      // While the writer commits a batch, the next one gathers: it goes when that one is answered.
      if (this.pending.length === 1 && !this.inFlight) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    if (this.inFlight) return;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    let encoded: Batch;
    try {
      // Cheap (one stat per group commit), and nothing is acknowledged into a file no one can open again.
      this.checkSameFile();
      if (this.fault) throw new StoreFaultError(this.fault);
      encoded = this.encode(batch);
      if (this.committer) {
        const committer = this.committer;
        this.answer(
          batch,
          encoded,
          this.guard(() => committer.commit(encoded)),
        );
        return;
      }
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    }
    for (const p of batch) for (const { stream } of p.appends) this.inFlightStreams.add(stream);
    this.inFlight = this.writer!.commit(encoded).then(
      (committed) => {
        this.inFlight = undefined;
        this.inFlightStreams.clear();
        // Its head is shown now: whether the commit seen was this batch's alone can be told.
        if (this.unconfirmed)
          try {
            this.whoWrote();
          } catch {
            // The head unread: nothing remembered is trusted (the next read meets the fault itself).
            this.knownRevisions.clear();
            this.unconfirmed = false;
          }
        this.answer(batch, encoded, committed);
        this.flush();
      },
      (error: unknown) => {
        this.inFlight = undefined;
        this.inFlightStreams.clear();
        // Without an answer the batch may have committed: nothing remembered is trusted.
        this.knownRevisions.clear();
        this.unconfirmed = false;
        const failure = this.failure(error);
        for (const p of batch) p.reject(failure);
        this.flush();
      },
    );
  }

  /**
   * The batch as the commit takes it: data and metadata as JSON (the appends of one request
   * share a metadata object: it is encoded once per batch), and one creation time.
   */
  private encode(batch: PendingAppend[]): Batch {
    const encodedMetadata = new Map<EventMetadata, string>();
    const encoded = (metadata: EventMetadata): string => {
      let json = encodedMetadata.get(metadata);
      if (json === undefined) encodedMetadata.set(metadata, (json = JSON.stringify(metadata)));
      return json;
    };
    return {
      createdAt: this.now(),
      appends: batch.map((p) =>
        p.appends.map(({ stream, expectedRevision, events }) => ({
          stream,
          expectedRevision,
          events: events.map((event) => ({
            id: event.id,
            type: event.type,
            data: JSON.stringify(event.data) ?? 'null',
            metadata: encoded(event.metadata),
          })),
        })),
      ),
    };
  }

  /** Answers a committed batch's appends, and hands its events to the subscriptions. */
  private answer(batch: PendingAppend[], encoded: Batch, committed: Committed): void {
    this.full = null;
    const { written } = committed;
    const recorded: RecordedEvent[] = [];
    // The all-in-one service's main thread has none (its projections read in their own thread).
    const handed = this.subscriptions.size > 0;
    let next = 0;
    committed.outcomes.forEach((outcome, i) => {
      if (!outcome.ok || !outcome.wrote) return;
      for (const { stream, events } of batch[i].appends)
        for (const event of events) {
          const revision = written[next];
          if (handed)
            recorded.push({
              ...event,
              data: event.data === undefined ? null : event.data,
              streamName: stream,
              revision,
              position: written[next + 1],
              createdAt: encoded.createdAt,
            });
          next += 2;
          // From the events written, not the results: a retried append answers its earlier, older
          // revision. Forward only: a read since the commit may have remembered a later one.
          const known = this.knownRevisions.get(stream);
          if (known !== undefined && revision > known) this.knownRevisions.set(stream, revision);
        }
    });
    committed.outcomes.forEach((outcome, i) => {
      if (outcome.ok) batch[i].resolve(outcome.result);
      else batch[i].reject(outcome.error);
    });
    if (recorded.length)
      for (const subscription of this.subscriptions) subscription.offer(committed.headBefore, recorded);
    this.onGroupCommit?.(batch.length);
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const from = options.fromRevision ?? 0;
    const maxCount = options.maxCount ?? -1;
    return this.guard(() => {
      const known = this.knownRevision(stream);
      if (known !== undefined && from > known) return [];
      const rows = this.selectStream.all(stream, from, maxCount);
      // Read to the end: the last row is the current revision, or no row from 0 means no stream.
      if (maxCount < 0 || rows.length < maxCount) {
        if (rows.length) this.rememberRevision(stream, rows[rows.length - 1].revision);
        else if (from === 0) this.rememberRevision(stream, -1);
        // Nothing after a cached state's revision, forgotten (another connection wrote): the
        // index says which it is, so the state's next loads need no query again.
        else if (!this.knownRevisions.has(stream)) this.rememberRevision(stream, this.currentRevision(stream));
      }
      return rows.map(toRecorded);
    });
  }

  async streamRevision(stream: string): Promise<number> {
    return this.guard(() => this.knownRevision(stream) ?? this.currentRevision(stream));
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const { fromPosition = 0, maxCount = -1, streamPrefixes, withoutMetadata = false, share } = options;
    if (!streamPrefixes && !withoutMetadata && !share) return this.readPage(fromPosition, maxCount);
    if (streamPrefixes?.length === 0) return [];
    // The rows of other streams, and of other shares, are matched in SQLite, their data never copied out nor parsed.
    const count = streamPrefixes?.length ?? 0;
    const matches: unknown[] = (streamPrefixes ?? []).flatMap((prefix) => [prefix.length, prefix]);
    if (share) matches.push(share.prefix.length, share.prefix, share.count, share.index);
    if (withoutMetadata) {
      const select = this.selectAllOf(this.selectAllWithoutMetadata, count, !!share, COLUMNS_WITHOUT_METADATA, true);
      return this.guard(() => select.all(fromPosition, ...matches, maxCount)).map(toRecordedWithoutMetadata);
    }
    const select = this.selectAllOf(this.selectAllOfPrefixes, count, !!share, COLUMNS, false);
    return this.guard(() => select.all(fromPosition, ...matches, maxCount)).map(toRecorded);
  }

  /** The read of the log restricted to `count` stream prefixes (substr, not LIKE: exact and case-sensitive; 0: every stream), and to a share. */
  private selectAllOf<Row>(
    prepared: Map<string, Database.Statement<unknown[], Row>>,
    count: number,
    shared: boolean,
    columns: string,
    raw: boolean,
  ): Database.Statement<unknown[], Row> {
    const key = `${count}${shared ? ' shared' : ''}`;
    let select = prepared.get(key);
    if (!select) {
      const streams = count ? Array.from({ length: count }, () => 'substr(stream, 1, ?) = ?').join(' OR ') : '1';
      const share = shared ? `substr(stream, 1, ?) != ? OR ${SHARE_OF} % ? = ?` : '1';
      select = this.db.prepare<unknown[], Row>(
        `SELECT ${columns} FROM events WHERE position > ? AND (${streams}) AND (${share}) ORDER BY position LIMIT ?`,
      );
      if (raw) select = select.raw(true);
      prepared.set(key, select);
    }
    return select;
  }

  async headPosition(): Promise<number> {
    return this.guard(() => this.selectHead.get()?.position ?? 0);
  }

  /**
   * Another connection of this process (the projections' thread) found the file damaged: this
   * one refuses writes from now on, as if it had found it itself.
   */
  faultFoundElsewhere(reason: string): void {
    this.failWith(reason);
  }

  /**
   * Another connection (a thread or process) appended: the idle subscriptions read now instead
   * of at their next poll tick.
   */
  appendedElsewhere(): void {
    for (const subscription of this.subscriptions) subscription.wake();
  }

  /**
   * Catch-up then live. Do not `await close()` from inside `onEvent`: close waits for the
   * in-flight handler, which would then wait for itself.
   */
  subscribeToAll(options: SubscribeOptions): Subscription {
    this.assertOpen();
    const types = options.eventTypes && JSON.stringify([...options.eventTypes]);
    const subscription = new SqliteSubscription(
      options,
      this.pollIntervalMs,
      (after) => (types ? this.readPageOfTypes(after, types) : pageOf(this.readPage(after, PAGE_SIZE), after)),
      () => this.subscriptions.delete(subscription),
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  /**
   * A lasting fault (deleted, replaced, damaged), else what stops writes now: the file or its WAL
   * not writable by this process (a read-only DATA_DIR or mount), or a full disk (a write failed
   * with SQLITE_FULL and the file has no room yet; it clears by itself once it has).
   */
  writeProblem(): WriteProblem | null {
    this.checkSameFile();
    if (this.fault) return { reason: this.fault, lasting: true };
    if (this.readonly) return { reason: `event store ${this.file} is open read-only`, lasting: false };
    if (this.full && !this.hasRoom()) return { reason: this.full, lasting: false };
    this.full = null;
    if (!this.opened) return null;
    for (const file of [this.file, `${this.file}-wal`]) {
      try {
        fs.accessSync(file, fs.constants.W_OK);
      } catch (error) {
        if (codeOf(error) === 'ENOENT') continue;
        return {
          reason: `cannot write ${file} (${codeOf(error)}); make ${path.dirname(this.file)} and the files in it writable by the user the service runs as`,
          lasting: false,
        };
      }
    }
    return null;
  }

  close(): Promise<void> {
    return (this.closing ??= this.closeDown());
  }

  private async closeDown(): Promise<void> {
    // Appends already accepted are committed, not dropped.
    this.flush();
    while (this.inFlight) await this.inFlight;
    this.closed = true;
    clearInterval(this.sameFileTimer);
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    await this.checkpointer?.stop();
    await this.writer?.stop();
    this.db.close();
  }

  /** `maxCount` -1 means no limit. */
  private readPage(fromPosition: number, maxCount: number): RecordedEvent[] {
    return this.guard(() => this.selectAll.all(fromPosition, maxCount)).map(toRecorded);
  }

  /**
   * Up to PAGE_SIZE events of the types `types` (a JSON array) names after a position, and the
   * position read up to: the head as it was before the read, when the page is not full (the
   * rows of other types up to it were passed over inside SQLite).
   */
  private readPageOfTypes(after: number, types: string): Page {
    return this.guard(() => {
      const head = this.selectHead.get()?.position ?? 0;
      const rows = this.selectAllOfTypes.all(after, head, types, PAGE_SIZE);
      const reached = rows.length === PAGE_SIZE ? rows[rows.length - 1].position : Math.max(after, head);
      return { events: rows.map(toRecorded), reached };
    });
  }

  /**
   * The remembered revision of a stream, once no other connection has committed since it was
   * learnt. Another process's commit is looked for once per turn of the event loop: reads of one
   * turn all see the file as it was at its start, as if that commit had come a moment later.
   */
  private knownRevision(stream: string): number | undefined {
    if (!this.dataVersionCheckedThisTurn) {
      this.dataVersionCheckedThisTurn = true;
      setImmediate(() => (this.dataVersionCheckedThisTurn = false));
      this.forgetRevisionsIfOthersWrote();
    }
    // The writer may have committed it already: read until its answer says so.
    if (this.unconfirmed || this.inFlightStreams.has(stream)) return undefined;
    return this.knownRevisions.get(stream);
  }

  private forgetRevisionsIfOthersWrote(): void {
    const version = this.selectDataVersion.get()!;
    if (version === this.dataVersion) return;
    // Taken as seen only once judged: a head unread (the read failed) is judged again next time.
    this.whoWrote();
    this.dataVersion = version;
  }

  /**
   * The writer thread is another connection: its commits change data_version too, and the
   * revisions it answered stay valid unless some other connection committed as well. Forgetting
   * them all for the writer's own commit in flight (seen before it showed its head) made every
   * state cached read its stream again.
   */
  private whoWrote(): void {
    const ours = this.writer ? this.writer.wroteAllUpTo(this.selectHead.get()?.position ?? 0, !!this.inFlight) : false;
    this.unconfirmed = ours === undefined;
    if (ours === false) this.knownRevisions.clear();
  }

  private rememberRevision(stream: string, revision: number): void {
    this.knownRevisions.delete(stream);
    this.knownRevisions.set(stream, revision);
    if (this.knownRevisions.size > this.rememberedStreams)
      this.knownRevisions.delete(this.knownRevisions.keys().next().value!);
  }

  private currentRevision(stream: string): number {
    return this.selectRevision.get(stream)?.revision ?? -1;
  }

  /** The path no longer names the file opened (deleted, or replaced by another): a lasting fault. */
  private checkSameFile(): void {
    if (!this.opened || this.fault || this.closed) return;
    let now: fs.Stats | null = null;
    try {
      now = fs.statSync(this.file);
    } catch (error) {
      // Only a file that is gone says anything: another error (a permission) is not a replacement.
      if (codeOf(error) !== 'ENOENT') return;
    }
    if (now && now.dev === this.opened.dev && now.ino === this.opened.ino) return;
    this.failWith(
      `event store ${this.file} was deleted or replaced while the service was running, so writes are stopped (they would be lost); restore the file and its -wal from a backup, then restart the service`,
    );
  }

  /** Records a lasting fault (the first one found) and reports it once. */
  private failWith(reason: string): StoreFaultError {
    if (!this.fault) {
      this.fault = reason;
      this.onFault?.(reason);
    }
    return new StoreFaultError(this.fault);
  }

  /** Why the file could not be opened, as one line saying what to do. */
  private openFailure(error: unknown): StoreUnavailableError {
    if (error instanceof StoreUnavailableError) return error;
    const detail = `${codeOf(error) ?? 'error'}: ${(error as Error).message}`;
    if (isDamaged(error)) return new StoreFaultError(damaged(this.file, detail), error);
    if (this.readonly || !NOT_WRITABLE_CODES.test(codeOf(error) ?? ''))
      return new StoreUnavailableError(`cannot open event store ${this.file} (${detail})`, error);
    return new StoreUnavailableError(
      `cannot open event store ${this.file} for writing (${detail}); make ${path.dirname(this.file)} and the files in it writable by the user the service runs as`,
      error,
    );
  }

  /**
   * Whether the file can grow again after a write failed for a full disk: below its page limit
   * (`PRAGMA max_page_count`), on a file system with FREE_BYTES_TO_WRITE free.
   */
  private hasRoom(): boolean {
    if (this.closed) return false;
    if (
      (this.db.pragma('page_count', { simple: true }) as number) >=
      (this.db.pragma('max_page_count', { simple: true }) as number)
    )
      return false;
    if (!this.opened) return true;
    const { bavail, bsize } = fs.statfsSync(path.dirname(this.file));
    return bavail * bsize >= FREE_BYTES_TO_WRITE;
  }

  private guard<T>(operation: () => T): T {
    this.assertOpen();
    try {
      return operation();
    } catch (error) {
      throw this.failure(error);
    }
  }

  /** What a failed read or commit throws: a damaged file is a lasting fault, a full disk is remembered. */
  private failure(error: unknown): unknown {
    if (error instanceof StoreUnavailableError) return error;
    if (isDamaged(error)) return this.failWith(damaged(this.file, `${codeOf(error)}: ${(error as Error).message}`));
    if (codeOf(error)?.startsWith('SQLITE_FULL')) {
      this.full = `disk full: event store ${this.file} cannot grow (${codeOf(error)}: ${(error as Error).message}), so writes are refused until space is freed on its disk`;
    }
    if (isUnavailable(error))
      return new StoreUnavailableError(`event store unavailable: ${(error as Error).message}`, error);
    return error;
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreUnavailableError('event store is closed');
  }
}

class SqliteSubscription implements Subscription {
  private closing = false;
  /** Set by an append since the last page was read, so the loop does not go idle on it. */
  private wakeRequested = false;
  /**
   * Events this process committed, handed over as they were appended instead of read back (those
   * of the types subscribed to), and the position of the last event the subscription has read or
   * holds: a batch is taken only when it follows on from that position with nothing in between
   * (no other process wrote there).
   */
  private handed: RecordedEvent[] = [];
  private tail = -1;
  private endIdle: (() => void) | undefined;
  private readonly stopped: Promise<void>;

  constructor(
    private readonly options: SubscribeOptions,
    private readonly pollIntervalMs: number,
    /** Up to PAGE_SIZE events after a position. */
    private readonly readPage: (after: number) => Page,
    onStop: () => void,
  ) {
    this.stopped = this.run().then(onStop, (error: unknown) => {
      onStop();
      const failure = error instanceof Error ? error : new Error(String(error));
      // Without onError the rejection stays unhandled on purpose: a projector that stopped
      // must not go unnoticed.
      if (!this.options.onError) throw failure;
      this.options.onError(failure);
    });
  }

  /**
   * Events committed by this process after `headBefore`. Subscribers get the appended objects
   * themselves (events are not changed once appended); otherwise the next page is read.
   */
  offer(headBefore: number, events: RecordedEvent[]): void {
    if (headBefore === this.tail) {
      const types = this.options.eventTypes;
      for (const event of events) if (!types || types.has(event.type)) this.handed.push(event);
      this.tail = events[events.length - 1].position;
    }
    this.wakeRequested = true;
    this.endIdle?.();
  }

  wake(): void {
    this.wakeRequested = true;
    this.endIdle?.();
  }

  async close(): Promise<void> {
    this.closing = true;
    this.endIdle?.();
    await this.stopped.catch(() => undefined);
  }

  private async run(): Promise<void> {
    let position = this.options.fromPosition ?? 0;
    let sinceYield = 0;
    // Deliver nothing before subscribeToAll has returned the subscription to its caller.
    await yieldToEventLoop();
    while (!this.closing) {
      this.wakeRequested = false;
      // Appends handed over since the last read move the tail on, whether or not they had events of the types subscribed to.
      const handedOver = this.tail > position;
      let page: RecordedEvent[];
      let reached: number;
      if (handedOver) {
        page = this.handed;
        this.handed = [];
        reached = this.tail;
      } else {
        ({ events: page, reached } = this.readPage(position));
        this.tail = reached;
      }
      for (const event of page) {
        if (this.closing) return;
        await this.options.onEvent(event);
        position = event.position;
      }
      if (reached > position) {
        if (this.closing) return;
        await this.options.onPositionReached?.(reached);
        position = reached;
      }
      // Between full pages, still let timers and I/O run now and then: a replay with a synchronous
      // handler would otherwise starve the process (awaits alone only drain microtasks).
      // After a hand-over, nothing is left to read unless another process wrote: the poll finds that.
      if (page.length === PAGE_SIZE && !handedOver) {
        sinceYield += PAGE_SIZE;
        if (sinceYield < EVENTS_BETWEEN_YIELDS) continue;
        sinceYield = 0;
        await yieldToEventLoop();
      } else {
        sinceYield = 0;
        await this.idle();
      }
    }
  }

  /** Waits for an append by this instance, or a poll tick for appends by other processes. */
  private idle(): Promise<void> {
    if (this.wakeRequested || this.closing) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.endIdle?.(), this.pollIntervalMs);
      this.endIdle = () => {
        clearTimeout(timer);
        this.endIdle = undefined;
        resolve();
      };
    });
  }
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
