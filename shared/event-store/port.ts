/**
 * The EventStore port. Every adapter (embedded SQLite, KurrentDB) behaves like EventStoreDB
 * where the code can see it, so the same command code is correct on both:
 * - stream revisions are 0-based; a stream with no events has no revision (`-1` internally);
 * - an append is atomic to ONE stream and checks an expected revision;
 * - the global log (`$all`) is ordered by `position`; reads and subscriptions "from" a
 *   position are exclusive of it;
 * - an append retried with the same event ids is not written twice.
 */

/** Expected revision of an append: any state, no stream yet, some stream, or an exact revision. */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | number;

/** Metadata carried by every domain event (decisions.md §13). */
export interface EventMetadata {
  correlationId: string;
  causationId: string;
  keyName: string;
  catalogVersion: number;
  [extra: string]: unknown;
}

export interface NewEvent<Type extends string = string, Data = unknown> {
  /** A uuid. Deterministic ids make a retried append idempotent. */
  id: string;
  type: Type;
  data: Data;
  metadata: EventMetadata;
}

export interface RecordedEvent<Type extends string = string, Data = unknown> extends NewEvent<Type, Data> {
  streamName: string;
  /** 0-based revision of the event in its stream. */
  revision: number;
  /** Position in the global log; strictly increasing, not necessarily contiguous. */
  position: number;
  /** Unix ms when the store recorded it. */
  createdAt: number;
}

export interface AppendResult {
  /** Revision of the last event appended: the expected revision of the next append. */
  nextExpectedRevision: number;
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
}

export interface EventStore {
  appendToStream(stream: string, events: NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult>;
  /** Events of one stream in revision order; an empty array when the stream does not exist. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Current revision of a stream, or -1 when it has no events. */
  streamRevision(stream: string): Promise<number>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Position of the last event in the global log, or 0 when empty. */
  headPosition(): Promise<number>;
  subscribeToAll(options: SubscribeOptions): Subscription;
  close(): Promise<void>;
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
  constructor(message: string, readonly cause?: unknown) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}
