/**
 * Embedded EventStore adapter: one SQLite file (better-sqlite3, WAL), shareable by several
 * processes. Behaves like EventStoreDB where the port makes it visible (see port.ts).
 */
import Database from 'better-sqlite3';
import {
  AppendResult,
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

type AppendOutcome = { ok: true; result: AppendResult } | { ok: false; error: unknown };

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
  private readonly commitBatch: (batch: PendingAppend[]) => AppendOutcome[];
  /** Appends waiting for the next group commit. */
  private pending: PendingAppend[] = [];

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
    // Each append is a savepoint inside the batch's transaction: one that fails (a wrong
    // expected revision) is undone alone, the others commit together.
    // Most appends are new events at the expected revision: they skip the per-event duplicate
    // lookup. A revision mismatch or an event id already stored is looked at again, checked, in
    // a fresh savepoint: a retried append then gets its earlier result, as it always did.
    const appendNew = this.db.transaction((p: PendingAppend) => this.appendSync(p.stream, p.events, p.expected, false));
    const appendChecked = this.db.transaction((p: PendingAppend) => this.appendSync(p.stream, p.events, p.expected, true));
    const appendOne = (p: PendingAppend): AppendResult => {
      try {
        return appendNew(p);
      } catch (error) {
        if (!(error instanceof WrongExpectedVersionError) && (error as { code?: unknown }).code !== 'SQLITE_CONSTRAINT_UNIQUE') throw error;
        return appendChecked(p);
      }
    };
    // IMMEDIATE takes the write lock up front: a deferred transaction that reads and then
    // writes gets SQLITE_BUSY at once (no busy wait) when another process wrote in between.
    this.commitBatch = this.db.transaction((batch: PendingAppend[]) =>
      batch.map((p): AppendOutcome => {
        try {
          return { ok: true, result: appendOne(p) };
        } catch (error) {
          if (isUnavailable(error)) throw error;
          return { ok: false, error };
        }
      }),
    ).immediate;
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
    let outcomes: AppendOutcome[];
    try {
      outcomes = this.guard(() => this.commitBatch(batch));
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    }
    let appended = false;
    outcomes.forEach((outcome, i) => {
      if (outcome.ok) {
        appended ||= batch[i].events.length > 0;
        batch[i].resolve(outcome.result);
      } else batch[i].reject(outcome.error);
    });
    if (appended) for (const subscription of this.subscriptions) subscription.wake();
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const rows = this.guard(() => this.selectStream.all(stream, options.fromRevision ?? 0, options.maxCount ?? -1));
    return rows.map(toRecorded);
  }

  async streamRevision(stream: string): Promise<number> {
    return this.guard(() => this.currentRevision(stream));
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
    this.db.close();
  }

  private appendSync(stream: string, events: NewEvent[], expected: ExpectedRevision, checkDuplicates: boolean): AppendResult {
    const actual = this.currentRevision(stream);
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
      const { lastInsertRowid } = this.insertEvent.run(
        stream,
        revision,
        event.id,
        event.type,
        JSON.stringify(event.data) ?? 'null',
        JSON.stringify(event.metadata),
        createdAt,
      );
      position = Number(lastInsertRowid);
    }
    return { nextExpectedRevision: revision, position };
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
    // Deliver nothing before subscribeToAll has returned the subscription to its caller.
    await yieldToEventLoop();
    while (!this.closing) {
      this.wakeRequested = false;
      const page = this.readPage(position);
      for (const event of page) {
        if (this.closing) return;
        await this.options.onEvent(event);
        position = event.position;
      }
      // Between full pages, still let timers and I/O run: a replay with a synchronous
      // handler would otherwise starve the process (awaits alone only drain microtasks).
      if (page.length === PAGE_SIZE) await yieldToEventLoop();
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
