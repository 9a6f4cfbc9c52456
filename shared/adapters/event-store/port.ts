/**
 * The EventStore port. Every adapter (embedded SQLite, KurrentDB) behaves like KurrentDB where
 * the code can see it, so the same command code is correct on both:
 * - stream revisions are 0-based; a stream with no events has no revision (`-1` here);
 * - one append writes to one or several streams atomically, each checked against its own
 *   expected revision: all of it is written, or none of it;
 * - the global log (`$all`) is ordered by `position`; reads and subscriptions "from" a
 *   position are exclusive of it;
 * - an append retried with the same event ids is not written twice: it answers the first result.
 */

/** Expected revision of a stream: any state, no stream yet, some stream, or an exact revision. */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | number;

// What an event is belongs to the domain; the port stores and reads them.
import type { EventMetadata, NewEvent, RecordedEvent } from '../../../domain/events/recorded';
export type { EventMetadata, NewEvent, RecordedEvent };

/** The events one append writes to one stream, and the revision that stream must be at. */
export interface StreamAppend {
  stream: string;
  /** At least one event. */
  events: NewEvent[];
  expectedRevision: ExpectedRevision;
}

export interface AppendResult {
  /** Per stream written, the revision of its last event: the expected revision of its next append. */
  revisions: Record<string, number>;
  /** Global position of the last event appended. */
  position: number;
}

export interface ReadStreamOptions {
  /** First revision to read (inclusive). Default 0. */
  fromRevision?: number;
  maxCount?: number;
}

export interface ReadAllOptions {
  /** Read events after this position (exclusive). Default: from the start. */
  fromPosition?: number;
  maxCount?: number;
  /**
   * Only the events of streams whose name starts with one of these (e.g. `player-`); `maxCount`
   * counts those. The others are skipped by the store, never decoded: a reader that needs a few
   * kinds of stream does not pay for the rest of the log. Default: every stream.
   */
  streamPrefixes?: readonly string[];
  /**
   * For a reader that never reads an event's metadata (a replay): the store may leave it out, an
   * empty object in its place (the embedded store then neither selects nor parses it, about a
   * tenth of its read). Default: the metadata as written.
   */
  withoutMetadata?: boolean;
  /**
   * One share of the streams starting with `prefix`: only those whose shareOf(name, count) (domain/streams.ts) is
   * `index` (the other streams are read as the other options say). Readers that split the log
   * between threads, each a share. Only the embedded store supports it; KurrentDB refuses it.
   */
  share?: { prefix: string; index: number; count: number };
}

/** A live catch-up subscription; `close()` stops delivery and resolves once stopped. */
export interface Subscription {
  close(): Promise<void>;
}

export interface SubscribeOptions {
  /** Deliver events after this position (exclusive). Default: from the start. */
  fromPosition?: number;
  /** Called for each event in order; the next event waits for the returned promise (back-pressure). */
  onEvent(event: RecordedEvent): Promise<void> | void;
  /** Called when the subscription stops on an error it cannot recover from. */
  onError?(error: Error): void;
  /** Told of each lost connection the subscription recovers from by itself, and when it tries again. */
  onDrop?(error: Error, retryInMs: number): void;
  /**
   * The only event types the subscriber handles. The store may leave the others out (the SQLite
   * store does, in its query, so their rows are never decoded) and then tells onPositionReached
   * how far it read. Default: every event.
   */
  eventTypes?: ReadonlySet<string>;
  /**
   * Called, in order with onEvent and awaited like it, when the log has been read up to
   * `position` and the events after the last one delivered were left out (see eventTypes).
   */
  onPositionReached?(position: number): Promise<void> | void;
  /**
   * The subscriber reads no action's details: where they are written encrypted, they may be
   * delivered so (the personal-data codec then leaves them sealed). Default: delivered readable.
   */
  sealedDetails?: boolean;
}

export interface EventStore {
  /**
   * Appends to every stream of `appends` in one atomic write. Each stream may appear once. On a
   * revision that does not match, nothing is written and WrongExpectedVersionError names the
   * first such stream and its actual revision. Events of one append follow each other in the
   * global log in the order given.
   */
  appendToStreams(appends: readonly StreamAppend[]): Promise<AppendResult>;
  /** Events of one stream in revision order; an empty array when the stream does not exist. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Current revision of a stream, or -1 when it has no events. */
  streamRevision(stream: string): Promise<number>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Position of the last event in the global log, or 0 when empty. */
  headPosition(): Promise<number>;
  subscribeToAll(options: SubscribeOptions): Subscription;
  /**
   * Why the store cannot take writes now (its file read-only, deleted, damaged, its disk full), or
   * null when it can. Cheap: the readiness probe asks it.
   */
  writeProblem(): WriteProblem | null;
  close(): Promise<void>;
}

export interface WriteProblem {
  /** One line: what is wrong and what to do. */
  reason: string;
  /** It will not clear by itself: the operator must act and the service be restarted (a StoreFaultError). */
  lasting: boolean;
}

/** The stream's actual revision did not match the expected one; nothing was written. */
export class WrongExpectedVersionError extends Error {
  constructor(
    readonly streamName: string,
    readonly expected: ExpectedRevision,
    /** Actual revision, or -1 when the stream does not exist. */
    readonly actual: number,
  ) {
    super(`wrong expected version for stream ${streamName}: expected ${String(expected)}, actual ${actual}`);
    this.name = 'WrongExpectedVersionError';
  }
}

/** The backing store cannot be reached or written (read-only file, server down). Maps to 503. */
export class StoreUnavailableError extends Error {
  constructor(
    message: string,
    readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * An append whose outcome the store cannot tell: the call failed after it may have reached the
 * server (a deadline or the server's commit timeout, a dropped connection, a cancelled call), and
 * the events were not found on looking. It may still commit later, so it is not "nothing changed"
 * (StoreUnavailableError): the caller retries under the same idempotency key, or reads first.
 */
export class StoreOutcomeUnknownError extends Error {
  constructor(
    message: string,
    readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'StoreOutcomeUnknownError';
  }
}

/**
 * A fault of the store that lasts until the operator acts and the service restarts: its file was
 * deleted, replaced or found damaged. Every write is refused from then on (503).
 */
export class StoreFaultError extends StoreUnavailableError {
  constructor(message: string, cause?: unknown) {
    super(message, cause);
    this.name = 'StoreFaultError';
  }
}

/**
 * A read from a position that is not one of the log's (KurrentDB: not the start of a record) and
 * that the store will not search for: the caller's input is wrong (1001), not the store.
 */
export class PositionNotInLogError extends Error {
  constructor(readonly position: number) {
    super(`position ${position} is not a position of this log: use one it gave (an event's position)`);
    this.name = 'PositionNotInLogError';
  }
}

/** Whether a stream at revision `actual` (-1: none) satisfies `expected`. */
export function revisionMatches(expected: ExpectedRevision, actual: number): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return actual === -1;
  if (expected === 'stream_exists') return actual >= 0;
  return actual === expected;
}

/**
 * Refuses what no adapter can write: a stream named twice, a stream with no events, an event
 * id used twice, a non-finite number (NaN, Infinity) in an event's data or metadata. These are
 * programming errors, not conflicts: the append throws and writes nothing. The last guard of the
 * amounts: JSON would store a non-finite number as null, and the history would no longer say
 * what was decided.
 */
export function checkAppends(appends: readonly StreamAppend[]): void {
  if (appends.length === 0) throw new Error('an append needs at least one stream');
  const streams = new Set<string>();
  const ids = new Set<string>();
  for (const { stream, events } of appends) {
    if (streams.has(stream)) throw new Error(`stream ${stream} appears twice in one append`);
    streams.add(stream);
    if (events.length === 0) throw new Error(`the append to ${stream} has no events`);
    for (const { id, type, data, metadata } of events) {
      if (ids.has(id)) throw new Error(`event id ${id} appears twice in one append`);
      ids.add(id);
      const path = nonFinitePath(data, 'data') ?? nonFinitePath(metadata, 'metadata');
      if (path) throw new Error(`event ${type} of ${stream} holds a non-finite number at ${path}`);
    }
  }
}

/** Where a value holds NaN or ±Infinity (`data.effects.points`), or null. */
function nonFinitePath(value: unknown, path: string): string | null {
  const within = nonFiniteWithin(value);
  return within === null ? null : path + within;
}

/**
 * The way from `value` down to a non-finite number in it (`.effects.points`; '' for the value
 * itself), or null. Built on the way back from a find only: every event appended is walked, and
 * a path made for each of its values on the way down was 4.5 KB of garbage per action.
 */
function nonFiniteWithin(value: unknown): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : '';
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nonFiniteWithin(value[i]);
      if (found !== null) return `[${i}]${found}`;
    }
    return null;
  }
  for (const key in value) {
    const found = nonFiniteWithin((value as Record<string, unknown>)[key]);
    if (found !== null) return `.${key}${found}`;
  }
  return null;
}
