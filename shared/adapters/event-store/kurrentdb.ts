/**
 * Production EventStore adapter: KurrentDB 25.1 or later through `@kurrent/kurrentdb-client`.
 * Every append is the server's multi-stream append: one atomic write to one or several streams,
 * each checked against its own expected revision. Revisions, idempotency by event id and
 * revision checks are the server's own; this file maps them onto the port. `connect` refuses an
 * older server up front.
 *
 * Positions. KurrentDB places an event in `$all` by a {commit, prepare} pair of log offsets. A
 * multi-stream append writes its events, in request order, as one run of self-committed records
 * (an implicit transaction: no separate commit record), so for each event commit = prepare = the
 * offset of its own record: unique per event, also between the events and streams of one append,
 * and increasing in `$all` order. The port's single `position` is therefore the commit position
 * (a byte offset, exact as a number up to 8 PiB of log). The server answers an append with the
 * commit position of its last record, which is its last event's position, and a retry it
 * recognises with the position of the first append's last event. Only legacy explicit
 * transactions (TCP clients) give several events one commit position with distinct prepares;
 * exposing commit for those would make a checkpointed reader skip events, so such an event is
 * refused loudly (see toRecorded).
 *
 * Exclusive `fromPosition`: the server reads `$all` from an exact record offset, inclusive,
 * and rejects an offset inside a record. Positions this adapter hands out (event positions,
 * 0) are record offsets, so a read starts there and drops the event at it; any other number
 * is resolved to the last event before it when that is among the last events, else refused
 * (see readStart).
 */
import {
  AccessDeniedError,
  ANY,
  BACKWARDS,
  CancelledError,
  DeadlineExceededError,
  END,
  KurrentDBClient,
  NO_STREAM,
  NotLeaderError,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  TimeoutError,
  UnavailableError,
  UnknownError,
  UnsupportedError,
  WrongExpectedVersionError as KurrentWrongExpectedVersionError,
  convertToCommandError,
  jsonEvent,
  streamNameFilter,
} from '@kurrent/kurrentdb-client';
import { Status } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/status_pb';
import type {
  AllStreamSubscription,
  AppendStreamRequest,
  AppendStreamState,
  JSONType,
  Position,
  ReadPosition,
  RecordedEvent as KurrentRecordedEvent,
} from '@kurrent/kurrentdb-client';
import type {
  AppendResult,
  EventMetadata,
  EventStore,
  ExpectedRevision,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamAppend,
  SubscribeOptions,
  Subscription,
  WriteProblem,
} from './port';
import {
  checkAppends,
  PositionNotInLogError,
  revisionMatches,
  StoreOutcomeUnknownError,
  StoreUnavailableError,
  WrongExpectedVersionError,
} from './port';

export interface KurrentDbEventStoreOptions {
  /**
   * Wait before resubscribing after a subscription lost its connection; it doubles with each drop
   * in a row, up to MAX_RESUBSCRIBE_DELAY_MS. Default 1000.
   */
  resubscribeDelayMs?: number;
}

/**
 * How many of the last domain events a read from a position between records looks through for
 * the last event before it (see readStart): more would let any client have the log scanned.
 */
const POSITION_SEARCH_LIMIT = 1000;

/** The longest wait between two attempts to resubscribe; a subscription that stayed up this long starts over from the shortest. */
const MAX_RESUBSCRIBE_DELAY_MS = 30_000;

/** The first KurrentDB release with multi-stream appends. */
const MULTI_STREAM_APPEND_SINCE = '25.1';

/** The server is too old for this service: it cannot append to several streams atomically. */
export class UnsupportedServerError extends Error {
  constructor() {
    super(
      `KurrentDB server before ${MULTI_STREAM_APPEND_SINCE} does not support multi-stream appends: this service needs KurrentDB ${MULTI_STREAM_APPEND_SINCE} or later`,
    );
    this.name = 'UnsupportedServerError';
  }
}

/**
 * The record property that carries an event's metadata, as JSON. A multi-stream append takes
 * only string-valued properties (the client refuses anything else) and our metadata has numbers
 * and nested objects, so it travels whole, in one property. The server stores properties as the
 * event's metadata and reads them back as one JSON object, adding its own `$schema.name` and
 * `$schema.format`; the name has no `$` because the protocol reserves those keys for the server.
 */
const METADATA_PROPERTY = 'gamification.metadata';

/**
 * Domain events only. Every event of a `$` stream is the server's own (settings, system
 * projections, persistent subscription configuration) and filtering by event type is not enough:
 * `$persistentSubscriptionConfig` holds `PersistentConfig1` events. A `$`-typed event in a domain
 * stream would still come through (a link written there by a user projection): this service runs
 * no server projection that writes any.
 */
const domainStreams = () => streamNameFilter({ regex: '^[^$]' });
/** The streams whose name starts with one of `prefixes` (domain streams all: no prefix the service uses starts with `$`). */
const streamsStartingWith = (prefixes: readonly string[]) =>
  streamNameFilter({ regex: `^(?:${prefixes.map((p) => p.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')).join('|')})` });

/** gRPC status INTERNAL, which the client reports as an UnavailableError (see afterRefusal). */
const GRPC_INTERNAL = 13;
/** gRPC status FAILED_PRECONDITION: how a follower refuses an append (see isNotLeader). */
const GRPC_FAILED_PRECONDITION = 9;
/** gRPC status CANCELLED; from this side with this text, the client itself cancelled the call. */
const GRPC_CANCELLED = 1;
const CANCELLED_ON_CLIENT = 'Cancelled on client';
/** gRPC status ABORTED: the server's commit timeout; without details the client reports an UnknownError. */
const GRPC_ABORTED = 10;

function toStreamState(expected: ExpectedRevision): AppendStreamState {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  return BigInt(expected);
}

/** Revision the first event of an append lands on, when the expected revision pins it. */
function pinnedStart(expected: ExpectedRevision): number | undefined {
  if (expected === 'no_stream') return 0;
  return typeof expected === 'number' ? expected + 1 : undefined;
}

function toAppendRequest({ stream, events, expectedRevision }: StreamAppend): AppendStreamRequest {
  return { streamName: stream, events: events.map(toEventData), expectedState: toStreamState(expectedRevision) };
}

function toEventData(event: NewEvent) {
  return jsonEvent({
    id: event.id,
    type: event.type,
    // undefined has no JSON form; stored as null, as the embedded store does.
    data: (event.data ?? null) as JSONType,
    metadata: { [METADATA_PROPERTY]: JSON.stringify(event.metadata) },
  });
}

/** See METADATA_PROPERTY. Events appended before multi-stream appends carry the metadata itself. */
function fromStoredMetadata(stored: unknown): EventMetadata {
  const encoded =
    typeof stored === 'object' && stored !== null ? (stored as Record<string, unknown>)[METADATA_PROPERTY] : undefined;
  return (typeof encoded === 'string' ? JSON.parse(encoded) : stored) as EventMetadata;
}

function toRecorded({ event }: { event?: KurrentRecordedEvent }): RecordedEvent {
  if (!event) throw new Error('KurrentDB returned a link whose event is gone; links are not resolved here');
  const { position } = event;
  if (!position) {
    throw new Error(
      `KurrentDB gave no position for ${event.streamId}@${event.revision}: a server before 22.6, or an event of an explicit transaction`,
    );
  }
  if (position.commit !== position.prepare) {
    throw new Error(
      `event ${event.id} was written in an explicit transaction (commit ${position.commit}, prepare ${position.prepare}); ` +
        'its commit position is shared, so it has no position of its own',
    );
  }
  return {
    id: event.id,
    type: event.type,
    data: event.data,
    metadata: fromStoredMetadata(event.metadata),
    streamName: event.streamId,
    revision: Number(event.revision),
    position: Number(position.commit),
    createdAt: event.created.getTime(),
  };
}

/** The server's conflict in the port's words: the stream it names and that stream's revision. */
function toConflict(error: KurrentWrongExpectedVersionError): WrongExpectedVersionError {
  const expected = typeof error.expectedState === 'bigint' ? Number(error.expectedState) : error.expectedState;
  const actual = error.actualState === NO_STREAM ? -1 : Number(error.actualState);
  return new WrongExpectedVersionError(error.streamName, expected, actual);
}

function at(position: number): Position {
  return { commit: BigInt(position), prepare: BigInt(position) };
}

/** Raw gRPC errors (some calls reject with them) as the client's own error classes. */
function commandError(error: unknown): unknown {
  return error instanceof Error ? convertToCommandError(error) : error;
}

/**
 * The store cannot answer now but may later: server down or unreachable, not the leader,
 * deadline passed, server-side timeout or cancellation (e.g. shutting down).
 */
function isUnavailable(error: unknown): boolean {
  // Discovery of a cluster gives up with a plain Error.
  if (error instanceof Error && error.message.startsWith('Failed to discover')) return true;
  const converted = commandError(error);
  return (
    converted instanceof UnavailableError ||
    converted instanceof NotLeaderError ||
    converted instanceof DeadlineExceededError ||
    converted instanceof TimeoutError ||
    converted instanceof CancelledError
  );
}

/**
 * A follower's refusal of an append: FAILED_PRECONDITION with NotLeaderNodeErrorDetails (the v2
 * API's answer). Client 1.3.1 knows no such detail: it reports an UnknownError and keeps its
 * channel to the follower, so every later append would be refused the same way (see rebuildClient).
 */
function isNotLeader(error: unknown): boolean {
  const converted = commandError(error);
  if (converted instanceof NotLeaderError) return true;
  if (!(converted instanceof UnknownError) || converted.code !== GRPC_FAILED_PRECONDITION) return false;
  const details = converted._raw?.metadata?.get('grpc-status-details-bin')?.[0];
  const typeUrl =
    details instanceof Buffer
      ? Status.deserializeBinary(new Uint8Array(details)).getDetails()?.getTypeUrl()
      : undefined;
  return typeUrl?.endsWith('NotLeaderNodeErrorDetails') === true || /not the leader/i.test(converted.message);
}

/**
 * Failures after which the append may or may not have been written: the request may have
 * reached the server before the client's deadline passed, the server's commit timed out
 * (ABORTED, which the client names TimeoutError), the connection dropped, or the call was
 * cancelled (the server shutting down, or this adapter replacing its client under it).
 */
function mayHaveWritten(error: unknown): boolean {
  const converted = commandError(error);
  return (
    converted instanceof DeadlineExceededError ||
    converted instanceof TimeoutError ||
    converted instanceof UnavailableError ||
    converted instanceof CancelledError ||
    (converted instanceof UnknownError && converted.code === GRPC_ABORTED) ||
    // The client cancelled it (see rebuildClient): it reports that as an UnknownError.
    (converted instanceof UnknownError &&
      converted.code === GRPC_CANCELLED &&
      converted._raw?.details === CANCELLED_ON_CLIENT)
  );
}

/**
 * grpc-js's own words for a call that failed before it went out on a connection: none to send it
 * on (`No connection established`, after a refused or failed connect; a name not resolved; the
 * channel closed), a deadline met while still waiting for one (no `remote_addr` in its details),
 * or a stream the server refused unread (REFUSED_STREAM). Such an append was certainly not written.
 */
const NOT_SENT =
  /No connection established|^Name resolution failed|^Failed to parse DNS address|^Channel closed before call started|^Stream refused by server|waiting for name resolution|waiting for metadata filters|Waiting for LB pick/;

/** Whether the append certainly did not reach the server (see NOT_SENT); then its failure changed nothing. */
function wasNotSent(error: unknown): boolean {
  const converted = commandError(error);
  if (!(converted instanceof UnavailableError || converted instanceof DeadlineExceededError)) return false;
  return NOT_SENT.test(converted._raw?.details ?? '');
}

/**
 * Whether `error`, a call's failure, is the client's kept answer to its server-features call. The
 * client asks the features once per connection, before its first append, and keeps the answer, a
 * failure too: only an UNAVAILABLE or CANCELLED one makes it reconnect (dropping what it kept)
 * and ask again, so one that met a deadline (a server slow after a restart) would refuse every
 * later append. After those two nothing is kept, and asking would start a call: not asked.
 */
async function featuresFailed(client: KurrentDBClient, error: unknown): Promise<boolean> {
  const converted = commandError(error);
  if (converted instanceof UnavailableError || converted instanceof CancelledError) return false;
  // Protected; kept and failed, it is this very error.
  const kept = (client as unknown as { capabilities: Promise<unknown> }).capabilities;
  return kept.then(
    () => false,
    (failure: unknown) => failure === error,
  );
}

/** The client's gRPC channel: protected, and the only handle on its connection (see release). */
interface WithChannel {
  getChannel(): Promise<{ close(): void }>;
}

/**
 * Ends a client's calls and closes its connection. `dispose()` only cancels the calls: the gRPC
 * channel stays open (with its keep-alive pings) until the process ends, one more for every
 * client replaced after a leader change. The client's native reader has a connection of its own
 * and no way to close it; it goes with the client once nothing refers to it.
 */
async function release(client: KurrentDBClient): Promise<void> {
  await client.dispose();
  // A client that never made a call has no channel, and asking for one would make it (discovering
  // a cluster first): only one that is there already, handed over at once, is closed.
  const channel = await Promise.race([
    (client as unknown as WithChannel).getChannel(),
    new Promise<undefined>((resolve) => setImmediate(() => resolve(undefined))),
  ]);
  channel?.close();
}

function unavailable(error: unknown): StoreUnavailableError {
  return new StoreUnavailableError(`event store unavailable: ${(error as Error).message}`, error);
}

/** An append that may have been written, or may still be (see afterRefusal). */
function outcomeUnknown(error: unknown): StoreOutcomeUnknownError {
  return new StoreOutcomeUnknownError(
    `event store: the append's outcome is unknown (${(error as Error).message}); it was not found written, and may still be`,
    error,
  );
}

function translate(error: unknown): unknown {
  return isUnavailable(error) ? unavailable(error) : error;
}

/**
 * A subscription's failure that resubscribing may cure: the store unavailable (see
 * isUnavailable), or an UnknownError without a gRPC status (the native client's) or with
 * CANCELLED (the call cancelled under it). Any other status (INVALID_ARGUMENT, FAILED_PRECONDITION,
 * PERMISSION_DENIED, UNIMPLEMENTED, UNKNOWN...) answers every attempt the same: it is reported.
 */
function isConnectionFault(error: unknown): boolean {
  if (isUnavailable(error)) return true;
  const converted = commandError(error);
  return converted instanceof UnknownError && (converted.code === undefined || converted.code === GRPC_CANCELLED);
}

/**
 * Reads also count UnknownError as unavailable. The native read path (readStream, readAll)
 * reports every gRPC status it has no name for as UnknownError, CANCELLED among them: what a
 * server going down answers the calls in flight, which must give a 503, not a 500. The same
 * class carries faults that retrying will not cure (INVALID_ARGUMENT, FAILED_PRECONDITION,
 * UNIMPLEMENTED: a request this adapter got wrong); those give a 503 too, every time, with the
 * original error as the cause for the logs. Appends keep UnknownError as it is: there it mostly
 * means a request the server refused.
 */
function translateRead(error: unknown): unknown {
  return commandError(error) instanceof UnknownError ? unavailable(error) : translate(error);
}

/** What one stream's part of an append wrote: the revision and position of its last event. */
type StreamWritten = { revision: number; position: number };

/** How much of one stream's part of an append that stream already holds, as a retry finds it. */
type Earlier = 'none' | 'some' | StreamWritten;

export class KurrentDbEventStore implements EventStore {
  /** Replaced when it is stuck on a follower (see rebuildClient). */
  private client: KurrentDBClient;
  private readonly resubscribeDelayMs: number;
  private readonly subscriptions = new Set<KurrentDbSubscription>();
  private closed = false;

  /**
   * Connects and checks that the server has multi-stream appends (KurrentDB 25.1+): refuses
   * with UnsupportedServerError otherwise, with StoreUnavailableError when it cannot be reached.
   */
  static async connect(
    connectionString: string,
    options: KurrentDbEventStoreOptions = {},
  ): Promise<KurrentDbEventStore> {
    const store = new KurrentDbEventStore(connectionString, options);
    try {
      await store.checkMultiStreamAppends();
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  /**
   * Does not contact the server (see `connect`). `connectionString`: `kurrentdb://` or
   * `esdb://`, e.g. `kurrentdb://localhost:2113?tls=false`.
   */
  constructor(
    private readonly connectionString: string,
    options: KurrentDbEventStoreOptions = {},
  ) {
    this.client = KurrentDBClient.connectionString(connectionString);
    this.resubscribeDelayMs = options.resubscribeDelayMs ?? 1000;
  }

  async appendToStreams(appends: readonly StreamAppend[]): Promise<AppendResult> {
    this.assertOpen();
    checkAppends(appends);
    const client = this.client;
    try {
      const written = await client.multiStreamAppend(appends.map(toAppendRequest));
      const revisions: Record<string, number> = {};
      for (const { streamName, revision } of written.responses) revisions[streamName] = Number(revision);
      // The commit position of the append's last record: its last event's (see the opening comment).
      return { revisions, position: Number(written.position) };
    } catch (error) {
      if (isNotLeader(error)) {
        // Refused before anything was written: the next append goes to the leader, through a new client.
        this.rebuildClient(client);
        throw unavailable(error);
      }
      // Failed asking the server's features, before sending anything: a new client asks them again.
      if (await featuresFailed(client, error)) {
        this.rebuildClient(client);
        throw unavailable(error);
      }
      return this.afterRefusal(appends, error);
    }
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const read = this.client.readStream(stream, {
      fromRevision: BigInt(options.fromRevision ?? 0),
      maxCount: options.maxCount,
    });
    return this.collect(read);
  }

  async streamRevision(stream: string): Promise<number> {
    this.assertOpen();
    const [last] = await this.collect(
      this.client.readStream(stream, { direction: BACKWARDS, fromRevision: END, maxCount: 1 }),
    );
    return last?.revision ?? -1;
  }

  /** Domain events only (see domainStreams). */
  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const after = options.fromPosition ?? 0;
    const { maxCount } = options;
    // Only the embedded store's replays are split between threads.
    if (options.share) throw new Error('the KurrentDB event store reads no share of the log');
    if (options.streamPrefixes?.length === 0) return [];
    const read = this.client.readAll({
      fromPosition: await this.readStart(after),
      filter: options.streamPrefixes ? streamsStartingWith(options.streamPrefixes) : domainStreams(),
      // One more: the read is inclusive of its start, which is dropped below.
      maxCount: maxCount === undefined ? undefined : maxCount + 1,
    });
    const later = (await this.collect(read)).filter((event) => event.position > after);
    return maxCount === undefined ? later : later.slice(0, maxCount);
  }

  /** Position of the last domain event, the last one a subscription delivers, so waiting for it ends. */
  async headPosition(): Promise<number> {
    this.assertOpen();
    const read = this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1, filter: domainStreams() });
    const [last] = await this.collect(read);
    return last?.position ?? 0;
  }

  /**
   * Catch-up then live, from a server subscription to `$all`'s domain streams. A lost connection
   * is told to `onDrop` and resubscribes from the last delivered position, after a wait that
   * doubles with each drop in a row; a failing handler or any other error stops it and is
   * reported. Do not `await close()` from inside `onEvent`.
   */
  subscribeToAll(options: SubscribeOptions): Subscription {
    this.assertOpen();
    const subscription = new KurrentDbSubscription(
      options,
      this.resubscribeDelayMs,
      (after) => this.readStart(after),
      (start) => this.client.subscribeToAll({ fromPosition: start, filter: domainStreams() }),
      () => this.subscriptions.delete(subscription),
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  /**
   * None known ahead of a write: the client reconnects by itself, and a write while the server
   * is unreachable answers 503 on its own.
   */
  writeProblem(): WriteProblem | null {
    return null;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    await release(this.client);
  }

  /**
   * Replaces a client whose channel leads to a follower. The client has no public reconnect and
   * does not reconnect on the v2 API's not-leader answer; a new one discovers the cluster again
   * (node preference: leader) on its first call. Calls still under way on the old one are
   * cancelled: an append among them is looked up (see mayHaveWritten), a subscription resubscribes.
   */
  private rebuildClient(stale: KurrentDBClient): void {
    if (this.closed || this.client !== stale) return;
    this.client = KurrentDBClient.connectionString(this.connectionString);
    void release(stale);
  }

  /**
   * An append session with nothing in it: the client first asks the server's features whether
   * it has multi-stream appends and refuses with UnsupportedError when not, before sending
   * anything. A server that has them answers the empty session however it does, and writes
   * nothing (with no stream named, no permission is needed either).
   */
  private async checkMultiStreamAppends(): Promise<void> {
    try {
      await this.client.multiStreamAppend([]);
    } catch (error) {
      if (error instanceof UnsupportedError) throw new UnsupportedServerError();
      if (isUnavailable(error)) throw unavailable(error);
      // A failed features call is kept by the client: the first append asks them again through a new one.
      if (await featuresFailed(this.client, error)) this.rebuildClient(this.client);
      // Wrong credentials would fail every call after this one.
      if (error instanceof AccessDeniedError) throw error;
    }
  }

  /**
   * An append the server refused, or whose answer never came. A conflict may be the retry of an
   * append it wrote: then the first result (see earlierResult), else the conflict it names.
   * Servers 25.1 to 26.0.2 answer an append to several streams of which some already hold their
   * events (a partial retry) with an internal error instead of a conflict, which the client
   * reports as unavailable: that one is examined here, and named as the conflict it is. A
   * failure after which the append may have been written (see mayHaveWritten) is looked up too:
   * StoreUnavailableError says nothing changed, and the command's next attempt has new event ids,
   * so saying it of a write that landed would have it written twice. Not found, or the lookup
   * failing, the outcome is still unknown: the server may commit it after the lookup (a commit
   * that timed out), so StoreOutcomeUnknownError, unless the append certainly never went out (see
   * wasNotSent). Anything else keeps its meaning.
   */
  private async afterRefusal(appends: readonly StreamAppend[], error: unknown): Promise<AppendResult> {
    const refusal = commandError(error);
    const isConflict = refusal instanceof KurrentWrongExpectedVersionError;
    const isMalfunction = refusal instanceof UnavailableError && refusal.code === GRPC_INTERNAL;
    if (isConflict || isMalfunction) {
      const earlier = await this.earlierResult(appends);
      if (earlier) return earlier;
      if (isConflict) throw toConflict(refusal);
      const conflict = await this.conflictIn(appends);
      if (conflict) throw conflict;
    } else if (wasNotSent(error)) {
      throw unavailable(error);
    } else if (mayHaveWritten(error)) {
      const earlier = await this.earlierResult(appends).catch(() => undefined);
      if (earlier) return earlier;
      throw outcomeUnknown(error);
    }
    throw translate(error);
  }

  /**
   * The result of the append these appends retry, when every stream already holds its events,
   * in order, where the append puts them: right after the expected revision, or anywhere for
   * 'any' and 'stream_exists'. Undefined otherwise. Pinned streams are looked at first: a
   * conflict is common, a retry rare, and one read of a pinned stream usually tells.
   */
  private async earlierResult(appends: readonly StreamAppend[]): Promise<AppendResult | undefined> {
    const pinnedFirst = [...appends].sort(
      (a, b) =>
        Number(pinnedStart(a.expectedRevision) === undefined) - Number(pinnedStart(b.expectedRevision) === undefined),
    );
    const written = new Map<string, StreamWritten>();
    for (const append of pinnedFirst) {
      const earlier = await this.earlier(append);
      if (earlier === 'none' || earlier === 'some') return undefined;
      written.set(append.stream, earlier);
    }
    const revisions: Record<string, number> = {};
    for (const { stream } of appends) revisions[stream] = written.get(stream)!.revision;
    return { revisions, position: Math.max(...[...written.values()].map((w) => w.position)) };
  }

  /**
   * The conflict to name when the server could not: the first stream, in request order, that
   * already holds some of its events or is not at its expected revision, as later servers name it.
   */
  private async conflictIn(appends: readonly StreamAppend[]): Promise<WrongExpectedVersionError | undefined> {
    for (const append of appends) {
      const actual = await this.streamRevision(append.stream);
      if (!revisionMatches(append.expectedRevision, actual) || (await this.earlier(append)) !== 'none') {
        return new WrongExpectedVersionError(append.stream, append.expectedRevision, actual);
      }
    }
    return undefined;
  }

  private async earlier({ stream, events, expectedRevision }: StreamAppend): Promise<Earlier> {
    const ids = new Set(events.map(({ id }) => id));
    const start = pinnedStart(expectedRevision);
    const candidates =
      start === undefined
        ? await this.findByIds(stream, ids)
        : await this.readStream(stream, { fromRevision: start, maxCount: events.length });
    const held = candidates.filter(({ id }) => ids.has(id));
    if (held.length === 0) return 'none';
    const isRetry =
      held.length === events.length &&
      held.every((e, i) => e.id === events[i].id && e.revision === held[0].revision + i);
    if (!isRetry) return 'some';
    const last = held[held.length - 1];
    return { revision: last.revision, position: last.position };
  }

  /** The stream's events with these ids, in revision order, searched from the end, where a retry's are. */
  private async findByIds(stream: string, ids: ReadonlySet<string>): Promise<RecordedEvent[]> {
    const found: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(stream, { direction: BACKWARDS, fromRevision: END })) {
        const event = toRecorded(resolved);
        if (ids.has(event.id)) found.unshift(event);
        if (found.length === ids.size) break;
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw translateRead(error);
    }
    return found;
  }

  /**
   * Where a forward read must start to see every event after `after`. Positions this adapter
   * hands out are record offsets and start the read themselves, which a one-event probe
   * confirms. Any other number (between records: a client's guess) is refused by the server;
   * then the start is the last event before it, looked for among the last
   * POSITION_SEARCH_LIMIT domain events only (the whole log when it is shorter), and
   * PositionNotInLogError when it is further back.
   */
  private async readStart(after: number): Promise<ReadPosition> {
    if (after <= 0) return START;
    try {
      await this.client.readAll({ fromPosition: at(after), maxCount: 1 }).next();
      return at(after);
    } catch {
      // Refused. The server answers a position inside a record with gRPC UNKNOWN, which the
      // native client reports as an UnavailableError without its text, as it does a server
      // that is down: the bounded read below tells them apart, failing too when it is down.
    }
    let looked = 0;
    try {
      for await (const { event } of this.client.readAll({
        direction: BACKWARDS,
        fromPosition: END,
        filter: domainStreams(),
        maxCount: POSITION_SEARCH_LIMIT,
      })) {
        looked++;
        if (event && event.position.commit <= BigInt(after)) return event.position;
      }
    } catch (error) {
      throw translateRead(error);
    }
    if (looked < POSITION_SEARCH_LIMIT) return START;
    throw new PositionNotInLogError(after);
  }

  /** Reads all events, mapped to the port; a stream that does not exist has none. */
  private async collect(read: AsyncIterable<{ event?: KurrentRecordedEvent }>): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of read) events.push(toRecorded(resolved));
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw translateRead(error);
    }
    return events;
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreUnavailableError('event store is closed');
  }
}

/** Marks an error thrown by the subscriber's handler, which stops the subscription for good. */
class HandlerFailure extends Error {
  constructor(readonly error: unknown) {
    super('the subscription handler failed');
  }
}

class KurrentDbSubscription implements Subscription {
  private closing = false;
  private current: AllStreamSubscription | undefined;
  private endPause: (() => void) | undefined;
  private readonly stopped: Promise<void>;

  constructor(
    private readonly options: SubscribeOptions,
    private readonly resubscribeDelayMs: number,
    /** Where to subscribe from to get every event after a position (and maybe the one at it). */
    private readonly startAfter: (after: number) => Promise<ReadPosition>,
    private readonly open: (start: ReadPosition) => AllStreamSubscription,
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

  async close(): Promise<void> {
    this.closing = true;
    this.endPause?.();
    await this.unsubscribe();
    await this.stopped.catch(() => undefined);
  }

  private async run(): Promise<void> {
    let after = this.options.fromPosition ?? 0;
    /** Drops in a row: no event delivered, and not up for long, in between. */
    let drops = 0;
    while (!this.closing) {
      const openedAt = Date.now();
      let dropped: unknown;
      try {
        const start = await this.startAfter(after);
        if (this.closing) return;
        this.current = this.open(start);
        // Iterated at once, so that even an immediate failure of the call reaches this loop.
        // `for await` pulls one event at a time: while a handler runs, the stream's buffer
        // fills and the server is asked to wait (back-pressure).
        for await (const resolved of this.current) {
          if (this.closing) return;
          const event = toRecorded(resolved);
          if (event.position <= after) continue;
          try {
            await this.options.onEvent(event);
          } catch (error) {
            throw new HandlerFailure(error);
          }
          after = event.position;
          drops = 0;
        }
        dropped = new StoreUnavailableError('event store ended the subscription');
      } catch (error) {
        if (error instanceof HandlerFailure) throw error.error;
        if (!isConnectionFault(error)) throw commandError(error);
        dropped = translateRead(error);
      } finally {
        await this.unsubscribe();
      }
      if (this.closing) return;
      // Dropped (server gone, leader changed, stream ended): try again from the last delivered event.
      drops = Date.now() - openedAt >= MAX_RESUBSCRIBE_DELAY_MS ? 1 : drops + 1;
      const delay = Math.min(this.resubscribeDelayMs * 2 ** (drops - 1), MAX_RESUBSCRIBE_DELAY_MS);
      this.options.onDrop?.(dropped instanceof Error ? dropped : new Error(String(dropped)), delay);
      await this.pause(delay);
    }
  }

  private async unsubscribe(): Promise<void> {
    const current = this.current;
    if (!current) return;
    this.current = undefined;
    // Nothing reads it any more: a failure reported while it winds down has no one to tell.
    current.on('error', () => undefined);
    // A subscription whose call never opened has nothing to cancel.
    await current.unsubscribe().catch(() => undefined);
  }

  private pause(ms: number): Promise<void> {
    if (this.closing) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.endPause?.(), ms);
      this.endPause = () => {
        clearTimeout(timer);
        this.endPause = undefined;
        resolve();
      };
    });
  }
}
