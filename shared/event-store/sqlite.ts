/**
 * Embedded EventStore adapter: one SQLite file (better-sqlite3, WAL), shareable by several
 * processes. Behaves like EventStoreDB where the port makes it visible (see port.ts).
 */
import Database from 'better-sqlite3';
import {
  AppendResult,
  EventMetadata,
  EventStore,
  ExpectedRevision,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StoreUnavailableError,
  SubscribeOptions,
  Subscription,
  WrongExpectedVersionError,
} from './port';
import { WalCheckpointer } from './sqlite-checkpointer';

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
}

/** Rows per read while a subscription catches up, so a long replay never loads the whole log. */
const PAGE_SIZE = 1000;
/** Streams whose current revision is remembered (see `knownRevisions`); the oldest go first. */
const KNOWN_REVISIONS_LIMIT = 100_000;

/**
 * SQLite result codes (primary part of the extended code) meaning the file cannot be read or
 * written right now: the caller should get a 503, not a 500.
 */
const UNAVAILABLE_CODES = new Set([
  'SQLITE_READONLY',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_PERM',
  'SQLITE_PROTOCOL',
]);

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

interface StoredId {
  stream: string;
  revision: number;
  position: number;
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

function isUnavailable(error: unknown): boolean {
  // Checked by its code, not by class: the native module's error class may come from another module instance.
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  const primary = code.match(/^SQLITE_[A-Z]+/)?.[0];
  return primary !== undefined && UNAVAILABLE_CODES.has(primary);
}

function revisionMatches(expected: ExpectedRevision, actual: number): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return actual === -1;
  if (expected === 'stream_exists') return actual >= 0;
  return actual === expected;
}

/** Revision the first event of an append must land on, when the expected revision pins it. */
function pinnedStart(expected: ExpectedRevision): number | undefined {
  if (expected === 'no_stream') return 0;
  return typeof expected === 'number' ? expected + 1 : undefined;
}

interface PendingAppend {
  stream: string;
  events: NewEvent[];
  expected: ExpectedRevision;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

/** JSON of an event's metadata (the same object is encoded once per group commit). */
type MetadataEncoder = (metadata: EventMetadata) => string;

type AppendOutcome = { ok: true; result: AppendResult } | { ok: false; error: unknown };

/** What a group commit wrote: the log's head before it, and its events, in position order. */
interface CommittedBatch {
  outcomes: AppendOutcome[];
  headBefore: number;
  recorded: RecordedEvent[];
}

export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly now: () => number;
  private readonly pollIntervalMs: number;
  private readonly subscriptions = new Set<SqliteSubscription>();
  private closed = false;

  private readonly insertEvent: Database.Statement<[string, number, string, string, string, string, number]>;
  private readonly selectStoredId: Database.Statement<[string], StoredId>;
  private readonly selectRevision: Database.Statement<[string], { revision: number | null }>;
  private readonly selectStream: Database.Statement<[string, number, number], EventRow>;
  private readonly selectAll: Database.Statement<[number, number], EventRow>;
  private readonly selectHead: Database.Statement<[], { position: number | null }>;
  private readonly selectDataVersion: Database.Statement<[], number>;
  /**
   * Current revisions of streams this connection has read to the end or appended to since,
   * so that reading "what came after revision N" of such a stream (a cached player state
   * catching up) needs no query. Valid while no other connection commits to the file:
   * `PRAGMA data_version` changes when one does, and then the whole map is forgotten.
   */
  private readonly knownRevisions = new Map<string, number>();
  private dataVersion = -1;
  private readonly commitBatch: (batch: PendingAppend[]) => CommittedBatch;
  /** Appends waiting for the next group commit. */
  private pending: PendingAppend[] = [];
  private readonly checkpointer: WalCheckpointer | undefined;

  constructor(filePath: string, options: SqliteEventStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.pollIntervalMs = options.pollIntervalMs ?? 50;
    let db: Database.Database | undefined;
    try {
      const readonly = options.readonly ?? false;
      db = new Database(filePath, { readonly, fileMustExist: readonly, timeout: options.busyTimeoutMs ?? 5000 });
      db.pragma('journal_mode = WAL');
      // FULL syncs the WAL on every commit: an acknowledged append survives a power cut.
      db.pragma('synchronous = FULL');
      db.exec(SCHEMA);
    } catch (error) {
      db?.close();
      throw new StoreUnavailableError(`cannot open event store ${filePath}: ${String(error)}`, error);
    }
    this.db = db;
    if (!(options.readonly ?? false) && filePath !== ':memory:' && filePath !== '') {
      db.pragma('wal_autocheckpoint = 0');
      this.checkpointer = new WalCheckpointer(filePath, () => {
        // Without the worker, SQLite checkpoints inside commits again, so the WAL cannot grow without end.
        if (!this.closed) this.db.pragma('wal_autocheckpoint = 1000');
      });
    }
    this.insertEvent = this.db.prepare(
      'INSERT INTO events (stream, revision, event_id, type, data, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.selectStoredId = this.db.prepare('SELECT stream, revision, position FROM events WHERE event_id = ?');
    this.selectRevision = this.db.prepare('SELECT MAX(revision) AS revision FROM events WHERE stream = ?');
    this.selectStream = this.db.prepare(
      `SELECT ${COLUMNS} FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?`,
    );
    this.selectAll = this.db.prepare(`SELECT ${COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`);
    this.selectHead = this.db.prepare('SELECT MAX(position) AS position FROM events');
    this.selectDataVersion = this.db.prepare('PRAGMA data_version').pluck() as Database.Statement<[], number>;
    // Each append of several events is a savepoint inside the batch's transaction: one that
    // fails (a wrong expected revision) is undone alone, the others commit together. An append
    // of one event needs none: a failed INSERT undoes only itself (SQLite's ABORT).
    // Most appends are new events at the expected revision: they skip the per-event duplicate
    // lookup. A revision mismatch or an event id already stored is looked at again, checked, in
    // a fresh savepoint: a retried append then gets its earlier result, as it always did.
    const appendNew = this.db.transaction((p: PendingAppend, recorded: RecordedEvent[], encoded: MetadataEncoder) => this.appendSync(p, false, recorded, encoded));
    const appendChecked = this.db.transaction((p: PendingAppend, recorded: RecordedEvent[], encoded: MetadataEncoder) => this.appendSync(p, true, recorded, encoded));
    const appendOne = (p: PendingAppend, recorded: RecordedEvent[], encoded: MetadataEncoder): AppendResult => {
      // Events of a savepoint that is undone must not be reported as written.
      const mark = recorded.length;
      try {
        return p.events.length === 1 ? this.appendSync(p, false, recorded, encoded) : appendNew(p, recorded, encoded);
      } catch (error) {
        recorded.length = mark;
        if (!(error instanceof WrongExpectedVersionError) && (error as { code?: unknown }).code !== 'SQLITE_CONSTRAINT_UNIQUE') throw error;
        try {
          return appendChecked(p, recorded, encoded);
        } catch (again) {
          recorded.length = mark;
          throw again;
        }
      }
    };
    // IMMEDIATE takes the write lock up front: a deferred transaction that reads and then
    // writes gets SQLITE_BUSY at once (no busy wait) when another process wrote in between.
    this.commitBatch = this.db.transaction((batch: PendingAppend[]): CommittedBatch => {
      // The write lock is held from here to the commit, so every event after this head is the
      // batch's, and remembered revisions checked now stay valid until the commit.
      const headBefore = this.selectHead.get()?.position ?? 0;
      this.forgetRevisionsIfOthersWrote();
      const recorded: RecordedEvent[] = [];
      // The appends of one request share a metadata object: it is encoded once per batch.
      const encodedMetadata = new Map<EventMetadata, string>();
      const encoded: MetadataEncoder = (metadata) => {
        let json = encodedMetadata.get(metadata);
        if (json === undefined) encodedMetadata.set(metadata, (json = JSON.stringify(metadata)));
        return json;
      };
      const outcomes = batch.map((p): AppendOutcome => {
        try {
          return { ok: true, result: appendOne(p, recorded, encoded) };
        } catch (error) {
          // An error that ended the whole transaction (not just this append's savepoint) fails
          // the batch: the appends after it would otherwise run, and commit, outside of it.
          if (isUnavailable(error) || !this.db.inTransaction) throw error;
          return { ok: false, error };
        }
      });
      return { outcomes, headBefore, recorded };
    }).immediate;
  }

  /**
   * Group commit: appends made in the same turn of the event loop share one transaction, so one
   * disk sync acknowledges them all. Each still checks its own expected revision, in call order.
   */
  appendToStream(stream: string, events: NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      try {
        this.assertOpen();
      } catch (error) {
        return reject(error);
      }
      this.pending.push({ stream, events, expected: expectedRevision, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    let committed: CommittedBatch;
    try {
      committed = this.guard(() => this.commitBatch(batch));
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    }
    // From the events written, not the results: a retried append answers its earlier, older revision.
    for (const event of committed.recorded) if (this.knownRevisions.has(event.streamName)) this.knownRevisions.set(event.streamName, event.revision);
    committed.outcomes.forEach((outcome, i) => {
      if (outcome.ok) batch[i].resolve(outcome.result);
      else batch[i].reject(outcome.error);
    });
    if (committed.recorded.length) for (const subscription of this.subscriptions) subscription.offer(committed.headBefore, committed.recorded);
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
      }
      return rows.map(toRecorded);
    });
  }

  async streamRevision(stream: string): Promise<number> {
    return this.guard(() => this.knownRevision(stream) ?? this.currentRevision(stream));
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.readPage(options.fromPosition ?? 0, options.maxCount ?? -1);
  }

  async headPosition(): Promise<number> {
    return this.guard(() => this.selectHead.get()?.position ?? 0);
  }

  /**
   * Catch-up then live. Do not `await close()` from inside `onEvent`: close waits for the
   * in-flight handler, which would then wait for itself.
   */
  subscribeToAll(options: SubscribeOptions): Subscription {
    this.assertOpen();
    const subscription = new SqliteSubscription(
      options,
      this.pollIntervalMs,
      (after) => this.readPage(after, PAGE_SIZE),
      () => this.subscriptions.delete(subscription),
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Appends already accepted are committed, not dropped.
    this.flush();
    this.closed = true;
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    await this.checkpointer?.stop();
    this.db.close();
  }

  /**
   * Appends one stream's events, adding what it wrote to `recorded`. Unchecked, the stream's
   * revision is taken from what is known without a query where that is safe: a stream expected
   * not to exist is written at revision 0, and a remembered revision is never ahead of the
   * stream. Either way UNIQUE (stream, revision) refuses an event whose revision is taken, and
   * the append is then tried again, checked, against the stream's revision read from the file.
   */
  private appendSync({ stream, events, expected }: PendingAppend, checkDuplicates: boolean, recorded: RecordedEvent[], encoded: MetadataEncoder): AppendResult {
    // An empty append inserts nothing that UNIQUE could refuse: it always reads the revision.
    const actual = checkDuplicates || events.length === 0 ? this.currentRevision(stream) : this.assumedRevision(stream, expected);
    const duplicate = checkDuplicates ? this.findDuplicate(stream, events, expected, actual) : undefined;
    if (duplicate) return duplicate;
    if (!revisionMatches(expected, actual)) throw new WrongExpectedVersionError(stream, expected, actual);
    // An empty append only checks the revision, as in EventStoreDB; position 0: nothing to wait for.
    if (events.length === 0) return { nextExpectedRevision: actual, position: 0 };

    const createdAt = this.now();
    let revision = actual;
    let position = 0;
    for (const event of events) {
      revision += 1;
      const data = JSON.stringify(event.data) ?? 'null';
      const { lastInsertRowid } = this.insertEvent.run(stream, revision, event.id, event.type, data, encoded(event.metadata), createdAt);
      position = Number(lastInsertRowid);
      recorded.push({ ...event, data: event.data === undefined ? null : event.data, streamName: stream, revision, position, createdAt });
    }
    return { nextExpectedRevision: revision, position };
  }

  /** See appendSync: the revision an unchecked append may assume, querying only when nothing is known. */
  private assumedRevision(stream: string, expected: ExpectedRevision): number {
    if (expected === 'no_stream') return -1;
    return this.knownRevisions.get(stream) ?? this.currentRevision(stream);
  }

  /**
   * The result of the earlier append when `events` is a retry of it, undefined when none of
   * the ids are stored. Anything in between is a conflict, never a silent partial write.
   */
  private findDuplicate(
    stream: string,
    events: NewEvent[],
    expected: ExpectedRevision,
    actual: number,
  ): AppendResult | undefined {
    const stored: StoredId[] = [];
    const seen = new Set<string>();
    for (const event of events) {
      if (seen.has(event.id)) throw new Error(`event id ${event.id} appears twice in one append to ${stream}`);
      seen.add(event.id);
      const found = this.selectStoredId.get(event.id);
      if (!found) continue;
      // EventStoreDB would store it again; the global unique id here cannot, so say so loudly.
      if (found.stream !== stream) throw new Error(`event id ${event.id} is already used in stream ${found.stream}`);
      stored.push(found);
    }
    if (stored.length === 0) return undefined;

    const first = stored[0].revision;
    const start = pinnedStart(expected);
    const isRetry =
      stored.length === events.length &&
      stored.every((found, index) => found.revision === first + index) &&
      (start === undefined || first === start);
    if (!isRetry) throw new WrongExpectedVersionError(stream, expected, actual);
    const last = stored[stored.length - 1];
    return { nextExpectedRevision: last.revision, position: last.position };
  }

  /** `maxCount` -1 means no limit. */
  private readPage(fromPosition: number, maxCount: number): RecordedEvent[] {
    return this.guard(() => this.selectAll.all(fromPosition, maxCount)).map(toRecorded);
  }

  /** The remembered revision of a stream, once no other connection has committed since it was learnt. */
  private knownRevision(stream: string): number | undefined {
    this.forgetRevisionsIfOthersWrote();
    return this.knownRevisions.get(stream);
  }

  private forgetRevisionsIfOthersWrote(): void {
    const version = this.selectDataVersion.get()!;
    if (version !== this.dataVersion) {
      this.knownRevisions.clear();
      this.dataVersion = version;
    }
  }

  private rememberRevision(stream: string, revision: number): void {
    this.knownRevisions.delete(stream);
    this.knownRevisions.set(stream, revision);
    if (this.knownRevisions.size > KNOWN_REVISIONS_LIMIT) this.knownRevisions.delete(this.knownRevisions.keys().next().value!);
  }

  private currentRevision(stream: string): number {
    return this.selectRevision.get(stream)?.revision ?? -1;
  }

  private guard<T>(operation: () => T): T {
    this.assertOpen();
    try {
      return operation();
    } catch (error) {
      if (isUnavailable(error)) {
        throw new StoreUnavailableError(`event store unavailable: ${(error as Error).message}`, error);
      }
      throw error;
    }
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
   * Events this process committed, handed over as they were appended instead of read back, and
   * the position of the last event the subscription has or holds: a batch is taken only when it
   * follows on from that position with nothing in between (no other process wrote there).
   */
  private handed: RecordedEvent[] = [];
  private tail = -1;
  private endIdle: (() => void) | undefined;
  private readonly stopped: Promise<void>;

  constructor(
    private readonly options: SubscribeOptions,
    private readonly pollIntervalMs: number,
    /** Up to PAGE_SIZE events after a position. */
    private readonly readPage: (after: number) => RecordedEvent[],
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
      for (const event of events) this.handed.push(event);
      this.tail = events[events.length - 1].position;
    }
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
    // Deliver nothing before subscribeToAll has returned the subscription to its caller.
    await yieldToEventLoop();
    while (!this.closing) {
      this.wakeRequested = false;
      const handedOver = this.handed.length > 0;
      let page: RecordedEvent[];
      if (handedOver) {
        page = this.handed;
        this.handed = [];
      } else {
        page = this.readPage(position);
        this.tail = page.length ? page[page.length - 1].position : position;
      }
      for (const event of page) {
        if (this.closing) return;
        await this.options.onEvent(event);
        position = event.position;
      }
      // Between full pages, still let timers and I/O run: a replay with a synchronous
      // handler would otherwise starve the process (awaits alone only drain microtasks).
      // After a hand-over, nothing is left to read unless another process wrote: the poll finds that.
      if (page.length === PAGE_SIZE && !handedOver) await yieldToEventLoop();
      else await this.idle();
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
