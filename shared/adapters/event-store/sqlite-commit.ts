/**
 * The SQLite event store's group commit. A file store runs it in a worker thread that owns the
 * write connection (CommitWorker): the commit and its fsync leave the main thread, which collects
 * the next batch meanwhile. A store in memory runs it on its own connection (a worker cannot share
 * an in-memory database).
 */
import { parentPort, type Worker, workerData } from 'node:worker_threads';
import { startWorker } from '../worker-thread';
import Database from 'better-sqlite3';
import type { AppendResult, ExpectedRevision } from './port';
import { revisionMatches, StoreUnavailableError, WrongExpectedVersionError } from './port';

/** An event to write, its data and metadata already JSON (encoded on the main thread: see docs/benchmarks.md). */
export interface EncodedEvent {
  id: string;
  type: string;
  data: string;
  metadata: string;
}

export interface EncodedAppend {
  stream: string;
  expectedRevision: ExpectedRevision;
  events: EncodedEvent[];
}

/** One group commit: each entry is one command's append, all of its streams or none. */
export interface Batch {
  appends: EncodedAppend[][];
  createdAt: number;
}

/** `wrote` is false for a retried append answered with its earlier result. */
export type CommitOutcome = { ok: true; result: AppendResult; wrote: boolean } | { ok: false; error: unknown };

export interface Committed {
  outcomes: CommitOutcome[];
  /** The log's head before the batch: every event after it is the batch's. */
  headBefore: number;
  /** Revision and position of each event written, in the order written (appends, streams, events). */
  written: number[];
}

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

export const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

export function isUnavailable(error: unknown): boolean {
  // Checked by its code, not by class: the native module's error class may come from another module instance.
  const primary = codeOf(error)?.match(/^SQLITE_[A-Z]+/)?.[0];
  return primary !== undefined && UNAVAILABLE_CODES.has(primary);
}

/** Revision the first event of an append must land on, when the expected revision pins it. */
function pinnedStart(expected: ExpectedRevision): number | undefined {
  if (expected === 'no_stream') return 0;
  return typeof expected === 'number' ? expected + 1 : undefined;
}

interface StoredId {
  stream: string;
  revision: number;
  position: number;
}

/** What one stream's part of an append wrote: the stream's last revision and the last position. */
interface StreamWritten {
  revision: number;
  position: number;
}

interface Written {
  stream: string;
  revision: number;
  position: number;
}

/** Runs group commits on a connection that may write. */
export class Committer {
  private readonly insertEvent: Database.Statement<[string, number, string, string, string, string, number]>;
  private readonly selectStoredId: Database.Statement<[string], StoredId>;
  private readonly selectRevision: Database.Statement<[string], { revision: number | null }>;
  private readonly selectHead: Database.Statement<[], { position: number | null }>;
  /**
   * Current revisions of streams this committer wrote or read, the least recently used going
   * first: an unchecked append takes its revision from here. Never ahead of a stream (only what
   * committed is remembered); behind one another process appended to, UNIQUE (stream, revision)
   * refuses the write and the append is checked. Forgotten when another connection wrote.
   */
  private readonly known = new Map<string, number>();
  /**
   * The log's head after this committer's last commit; none yet at first, so its first commit
   * counts as finding another connection's (what was committed before it opened is not its own).
   */
  private head = -1;
  readonly commit: (batch: Batch) => Committed;

  constructor(
    db: Database.Database,
    private readonly rememberedStreams: number,
  ) {
    this.insertEvent = db.prepare(
      'INSERT INTO events (stream, revision, event_id, type, data, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.selectStoredId = db.prepare('SELECT stream, revision, position FROM events WHERE event_id = ?');
    this.selectRevision = db.prepare('SELECT MAX(revision) AS revision FROM events WHERE stream = ?');
    this.selectHead = db.prepare('SELECT MAX(position) AS position FROM events');
    // Each append of several events is a savepoint inside the batch's transaction: one that
    // fails (a wrong expected revision) is undone alone, the others commit together. An append
    // of one event needs none: a failed INSERT undoes only itself (SQLite's ABORT).
    // Most appends are new events at the expected revisions: they skip the per-event duplicate
    // lookup. A revision mismatch or an event id already stored is looked at again, checked, in
    // a fresh savepoint: a retried append then gets its earlier result.
    type Append = (appends: EncodedAppend[], createdAt: number, written: Written[]) => AppendResult;
    const appendNew: Append = db.transaction((appends, createdAt, written) =>
      this.appendUnchecked(appends, createdAt, written),
    );
    const appendChecked: Append = db.transaction((appends, createdAt, written) =>
      this.appendChecked(appends, createdAt, written),
    );
    const appendOne: Append = (appends, createdAt, written) => {
      // Events of a savepoint that is undone must not be reported as written.
      const mark = written.length;
      try {
        const single = appends.length === 1 && appends[0].events.length === 1;
        return single ? this.appendUnchecked(appends, createdAt, written) : appendNew(appends, createdAt, written);
      } catch (error) {
        written.length = mark;
        if (!(error instanceof WrongExpectedVersionError) && codeOf(error) !== 'SQLITE_CONSTRAINT_UNIQUE') throw error;
        try {
          return appendChecked(appends, createdAt, written);
        } catch (again) {
          written.length = mark;
          throw again;
        }
      }
    };
    // IMMEDIATE takes the write lock up front: a deferred transaction that reads and then
    // writes gets SQLITE_BUSY at once (no busy wait) when another process wrote in between.
    const transaction = db.transaction(
      (batch: Batch): { outcomes: CommitOutcome[]; headBefore: number; written: Written[] } => {
        // The write lock is held from here to the commit, so every event after this head is the batch's.
        const headBefore = this.readHead();
        if (headBefore !== this.head) this.known.clear();
        const written: Written[] = [];
        const outcomes = batch.appends.map((appends): CommitOutcome => {
          const mark = written.length;
          try {
            const result = appendOne(appends, batch.createdAt, written);
            return { ok: true, result, wrote: written.length > mark };
          } catch (error) {
            // An error that ended the whole transaction (not just this append's savepoint) fails
            // the batch: the appends after it would otherwise run, and commit, outside of it.
            if (isUnavailable(error) || !db.inTransaction) throw error;
            return { ok: false, error };
          }
        });
        return { outcomes, headBefore, written };
      },
    ).immediate;
    this.commit = (batch) => {
      let committed: ReturnType<typeof transaction>;
      try {
        committed = transaction(batch);
      } catch (error) {
        // Rolled back whole: revisions read inside it (the batch's own inserts) never committed.
        this.known.clear();
        throw error;
      }
      const { outcomes, headBefore, written } = committed;
      const pairs: number[] = [];
      for (const { stream, revision, position } of written) {
        this.remember(stream, revision);
        pairs.push(revision, position);
      }
      this.head = written.length ? written[written.length - 1].position : headBefore;
      return { outcomes, headBefore, written: pairs };
    };
  }

  /** The log's head after this committer's last commit (-1 before the first). */
  get headAfter(): number {
    return this.head;
  }

  /**
   * Appends every stream's events without looking for a retried append. Each stream's revision
   * is taken from what is known without a query where that is safe: a stream expected not to
   * exist is written at revision 0, and a remembered revision is never ahead of the stream.
   * Either way UNIQUE (stream, revision) refuses an event whose revision is taken, and the
   * append is then tried again, checked (appendChecked).
   */
  private appendUnchecked(appends: readonly EncodedAppend[], createdAt: number, written: Written[]): AppendResult {
    const revisions: Record<string, number> = {};
    let position = 0;
    for (const { stream, events, expectedRevision } of appends) {
      const actual = expectedRevision === 'no_stream' ? -1 : (this.known.get(stream) ?? this.currentRevision(stream));
      if (!revisionMatches(expectedRevision, actual))
        throw new WrongExpectedVersionError(stream, expectedRevision, actual);
      const last = this.insert(stream, events, actual, createdAt, written);
      revisions[stream] = last.revision;
      position = last.position;
    }
    return { revisions, position };
  }

  /**
   * The checked append: a retry of an earlier append (every event id stored, each stream's at
   * the revisions it pins) answers the earlier result; some ids stored and not others is a
   * conflict, never a partial write; otherwise each stream's revision is read and checked.
   */
  private appendChecked(appends: readonly EncodedAppend[], createdAt: number, written: Written[]): AppendResult {
    const actuals = appends.map(({ stream }) => this.currentRevision(stream));
    const earlier = appends.map((append, i) => this.findEarlier(append, actuals[i]));
    if (earlier.every((e) => e !== undefined)) {
      const revisions: Record<string, number> = {};
      appends.forEach(({ stream }, i) => (revisions[stream] = earlier[i].revision));
      return { revisions, position: Math.max(...earlier.map((e) => e.position)) };
    }
    const retried = earlier.findIndex((e) => e !== undefined);
    if (retried >= 0)
      throw new WrongExpectedVersionError(appends[retried].stream, appends[retried].expectedRevision, actuals[retried]);
    const revisions: Record<string, number> = {};
    let position = 0;
    appends.forEach(({ stream, events, expectedRevision }, i) => {
      if (!revisionMatches(expectedRevision, actuals[i]))
        throw new WrongExpectedVersionError(stream, expectedRevision, actuals[i]);
      const last = this.insert(stream, events, actuals[i], createdAt, written);
      revisions[stream] = last.revision;
      position = last.position;
    });
    return { revisions, position };
  }

  /** Writes one stream's events after revision `actual`. */
  private insert(
    stream: string,
    events: readonly EncodedEvent[],
    actual: number,
    createdAt: number,
    written: Written[],
  ): StreamWritten {
    let revision = actual;
    let position = 0;
    for (const event of events) {
      revision += 1;
      const { lastInsertRowid } = this.insertEvent.run(
        stream,
        revision,
        event.id,
        event.type,
        event.data,
        event.metadata,
        createdAt,
      );
      position = Number(lastInsertRowid);
      written.push({ stream, revision, position });
    }
    return { revision, position };
  }

  /**
   * What an earlier append of this stream's events wrote, when these events are a retry of it;
   * undefined when none of the ids are stored. Anything in between is a conflict.
   */
  private findEarlier({ stream, events, expectedRevision }: EncodedAppend, actual: number): StreamWritten | undefined {
    const stored: StoredId[] = [];
    for (const event of events) {
      const found = this.selectStoredId.get(event.id);
      if (!found) continue;
      // KurrentDB would store it again; the global unique id here cannot, so say so loudly.
      if (found.stream !== stream) throw new Error(`event id ${event.id} is already used in stream ${found.stream}`);
      stored.push(found);
    }
    if (stored.length === 0) return undefined;
    const first = stored[0].revision;
    const start = pinnedStart(expectedRevision);
    const isRetry =
      stored.length === events.length &&
      stored.every((found, index) => found.revision === first + index) &&
      (start === undefined || first === start);
    if (!isRetry) throw new WrongExpectedVersionError(stream, expectedRevision, actual);
    const last = stored[stored.length - 1];
    return { revision: last.revision, position: last.position };
  }

  private currentRevision(stream: string): number {
    const revision = this.selectRevision.get(stream)?.revision ?? -1;
    this.remember(stream, revision);
    return revision;
  }

  private remember(stream: string, revision: number): void {
    this.known.delete(stream);
    this.known.set(stream, revision);
    if (this.known.size > this.rememberedStreams) this.known.delete(this.known.keys().next().value!);
  }

  private readHead(): number {
    return this.selectHead.get()?.position ?? 0;
  }
}

/** An error as it crosses from the worker: its class is gone, so what the store needs of it is named. */
type SentError =
  { wrongVersion: [string, ExpectedRevision, number] } | { message: string; code: string | undefined; name: string };

const sent = (error: unknown): SentError =>
  error instanceof WrongExpectedVersionError
    ? { wrongVersion: [error.streamName, error.expected, error.actual] }
    : {
        message: (error as Error)?.message ?? String(error),
        code: codeOf(error),
        name: (error as Error)?.name ?? 'Error',
      };

const received = (error: SentError): Error => {
  if ('wrongVersion' in error) return new WrongExpectedVersionError(...error.wrongVersion);
  const rebuilt = new Error(error.message);
  rebuilt.name = error.name;
  return error.code === undefined ? rebuilt : Object.assign(rebuilt, { code: error.code });
};

type Request = { batch: Batch } | { pragma: string } | 'stop';
type Answer =
  | { committed: Committed; headAfter: number }
  | { failed: SentError }
  | { pragma: unknown }
  | { pragmaFailed: SentError };

interface WriterData {
  role: 'sqlite-writer';
  file: string;
  busyTimeoutMs: number;
  rememberedStreams: number;
  /** [head after the writer's last commit, commits by other connections it found] (see CommitWorker.wroteAllUpTo). */
  heads: SharedArrayBuffer;
}

/** The worker's side: its own connection, with the store's durability. */
function runWriter(data: WriterData): void {
  const db = new Database(data.file, { timeout: data.busyTimeoutMs });
  // FULL syncs the WAL on every commit: an acknowledged append survives a power cut.
  db.pragma('synchronous = FULL');
  // The store's checkpointer copies the WAL into the file off this thread (sqlite-checkpointer.ts).
  db.pragma('wal_autocheckpoint = 0');
  const committer = new Committer(db, data.rememberedStreams);
  const heads = new BigInt64Array(data.heads);
  const port = parentPort!;
  port.on('message', (request: Request) => {
    if (request === 'stop') {
      db.close();
      port.close();
      return;
    }
    if ('pragma' in request) {
      let answer: Answer;
      try {
        answer = { pragma: db.pragma(request.pragma, { simple: true }) };
      } catch (error) {
        answer = { pragmaFailed: sent(error) };
      }
      port.postMessage(answer);
      return;
    }
    const before = committer.headAfter;
    let answer: Answer;
    try {
      const committed = committer.commit(request.batch);
      // Another connection committed since this one's last commit: counted before the new head is
      // shown, so the main thread never takes that head for this writer's alone.
      if (committed.headBefore !== before) Atomics.add(heads, 1, 1n);
      Atomics.store(heads, 0, BigInt(committer.headAfter));
      const outcomes = committed.outcomes.map((o) => (o.ok ? o : { ok: false as const, error: sent(o.error) }));
      answer = { committed: { ...committed, outcomes }, headAfter: committer.headAfter };
    } catch (error) {
      answer = { failed: sent(error) };
    }
    port.postMessage(answer);
  });
}

const started = (workerData as { data?: WriterData } | undefined)?.data;
if (parentPort && started?.role === 'sqlite-writer') runWriter(started);

/**
 * Loads this module in the worker: compiled, it is JavaScript; run from TypeScript (tsx, ts-jest),
 * the worker registers tsx first, as the main thread's loader does not reach it under ts-jest.
 */
type Waiting = { resolve(answer: Answer): void; reject(error: Error): void };

/** The main thread's side of the writer worker. Requests are answered in order. */
export class CommitWorker {
  private readonly worker: Worker;
  /** No head of the writer's own before its first commit. */
  private readonly heads = new BigInt64Array(new SharedArrayBuffer(16)).fill(-1n, 0, 1);
  private foreignSeen = 0n;
  private readonly waiting: Waiting[] = [];
  private stopping = false;
  /** Why the worker ended, once it has: requests are then refused at once. */
  private ended: Error | undefined;
  private readonly exited: Promise<void>;

  /** `onFailure` runs once if the worker ends other than by `stop`: what it was doing is refused. */
  constructor(
    file: string,
    options: { busyTimeoutMs: number; rememberedStreams: number },
    onFailure: (error: Error) => void,
  ) {
    const data: WriterData = { role: 'sqlite-writer', file, ...options, heads: this.heads.buffer };
    this.worker = startWorker(__filename, data);
    let failure: Error | undefined;
    this.worker.on('message', (answer: Answer) => this.waiting.shift()?.resolve(answer));
    this.worker.on('error', (error) => (failure = error));
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', (code) => {
        const error = failure ?? new Error(`exited with code ${code}`);
        // Whether its last batch committed is not known: the caller retries, and a retry finds it.
        this.ended = new StoreUnavailableError(`the event store's writer thread stopped (${error.message})`, error);
        for (const w of this.waiting.splice(0)) w.reject(this.ended);
        if (!this.stopping) onFailure(error);
        resolve();
      }),
    );
    // Unreferenced after its listeners are on (adding one references it again): referenced only
    // while a request is on its way, so a store never closed does not keep the process alive.
    this.worker.unref();
  }

  /** Commits a batch in the worker; a failure of the whole batch rejects, with the SQLite error's code. */
  async commit(batch: Batch): Promise<Committed> {
    const answer = await this.request({ batch });
    if ('failed' in answer) throw received(answer.failed);
    const { committed } = answer as { committed: Committed };
    return {
      ...committed,
      outcomes: committed.outcomes.map((o) => (o.ok ? o : { ok: false, error: received(o.error as SentError) })),
    };
  }

  /** Runs a pragma on the write connection (what only that connection does: its checkpoints, its page limit). */
  async pragma(pragma: string): Promise<unknown> {
    const answer = await this.request({ pragma });
    if ('pragmaFailed' in answer) throw received(answer.pragmaFailed);
    return (answer as { pragma: unknown }).pragma;
  }

  /**
   * Whether the log's head `head` (as the main connection sees it) holds only this writer's
   * commits since the last call: no other connection committed meanwhile. Undefined when it cannot
   * tell yet: while a batch is in flight (`committing`), the writer may commit it between the
   * reading of `head` and this call, or the batch be visible a moment before the writer shows its
   * head; ask again once it is answered.
   */
  wroteAllUpTo(head: number, committing: boolean): boolean | undefined {
    // The head first: the worker counts another connection's commit before it shows its own next head.
    const last = Atomics.load(this.heads, 0);
    const foreign = Atomics.load(this.heads, 1);
    if (foreign !== this.foreignSeen) {
      this.foreignSeen = foreign;
      return false;
    }
    if (last === BigInt(head)) return true;
    return committing ? undefined : false;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.worker.ref();
    this.worker.postMessage('stop' satisfies Request);
    await this.exited;
  }

  private request(request: Request): Promise<Answer> {
    return new Promise((resolve, reject) => {
      if (this.ended) return reject(this.ended);
      this.worker.ref();
      this.waiting.push({
        resolve: (answer) => {
          if (this.waiting.length === 0) this.worker.unref();
          resolve(answer);
        },
        reject,
      });
      this.worker.postMessage(request);
    });
  }
}
