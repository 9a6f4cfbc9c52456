/**
 * Production EventStore adapter: KurrentDB (or EventStoreDB 22.6+) through
 * `@kurrent/kurrentdb-client`. Appends, stream revisions, idempotency by event id and
 * wrong-expected-version checks are the server's own; this file maps them onto the port.
 *
 * Positions. KurrentDB places an event in `$all` by a {commit, prepare} pair of log offsets.
 * The gRPC append this adapter uses writes every event as its own self-committed record, so
 * for each of them commit = prepare = the offset of that event's record: unique per event,
 * also between the events of one multi-event append, and increasing in `$all` order. The
 * port's single `position` is therefore the commit position (a byte offset, exact as a
 * number up to 8 PiB of log); the append result's commit position is the last event's.
 * Only legacy explicit transactions (TCP clients) give several events one commit position
 * with distinct prepares; exposing commit for those would make a checkpointed reader skip
 * events, so such an event is refused loudly (see toRecorded).
 *
 * Exclusive `fromPosition`: the server reads `$all` from an exact record offset, inclusive,
 * and rejects an offset inside a record. Positions this adapter hands out (event positions,
 * 0) are record offsets, so a read starts there and drops the event at it; any other number
 * is resolved to the last event before it (see readStart).
 */
import {
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
  WrongExpectedVersionError as KurrentWrongExpectedVersionError,
  convertToCommandError,
  excludeSystemEvents,
  jsonEvent,
} from '@kurrent/kurrentdb-client';
import type {
  AllStreamSubscription,
  AppendStreamState,
  JSONType,
  Position,
  ReadPosition,
  RecordedEvent as KurrentRecordedEvent,
} from '@kurrent/kurrentdb-client';
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

export interface KurrentDbEventStoreOptions {
  /** Wait before resubscribing after the server dropped a subscription. Default 1000. */
  resubscribeDelayMs?: number;
}

function toStreamState(expected: ExpectedRevision): AppendStreamState {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  return BigInt(expected);
}

function revisionMatches(expected: ExpectedRevision, actual: number): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return actual === -1;
  if (expected === 'stream_exists') return actual >= 0;
  return actual === expected;
}

function toEventData(event: NewEvent) {
  return jsonEvent({
    id: event.id,
    type: event.type,
    // undefined has no JSON form; stored as null, as the embedded store does.
    data: (event.data ?? null) as JSONType,
    metadata: event.metadata,
  });
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
    metadata: event.metadata as EventMetadata,
    streamName: event.streamId,
    revision: Number(event.revision),
    position: Number(position.commit),
    createdAt: event.created.getTime(),
  };
}

function at(position: number): Position {
  return { commit: BigInt(position), prepare: BigInt(position) };
}

/**
 * The store cannot answer now but may later: server down or unreachable, not the leader,
 * deadline passed, server-side timeout or cancellation (e.g. shutting down).
 */
function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // Discovery of a cluster gives up with a plain Error.
  if (error.message.startsWith('Failed to discover')) return true;
  // Some calls reject with the raw gRPC error (e.g. UNAVAILABLE before any connection).
  const converted = convertToCommandError(error);
  return (
    converted instanceof UnavailableError ||
    converted instanceof NotLeaderError ||
    converted instanceof DeadlineExceededError ||
    converted instanceof TimeoutError ||
    converted instanceof CancelledError
  );
}

function translate(error: unknown): unknown {
  if (isUnavailable(error)) {
    return new StoreUnavailableError(`event store unavailable: ${(error as Error).message}`, error);
  }
  return error;
}

export class KurrentDbEventStore implements EventStore {
  private readonly client: KurrentDBClient;
  private readonly resubscribeDelayMs: number;
  private readonly subscriptions = new Set<KurrentDbSubscription>();
  private closed = false;

  /** `connectionString`: `kurrentdb://` or `esdb://`, e.g. `kurrentdb://localhost:2113?tls=false`. */
  constructor(connectionString: string, options: KurrentDbEventStoreOptions = {}) {
    this.client = KurrentDBClient.connectionString(connectionString);
    this.resubscribeDelayMs = options.resubscribeDelayMs ?? 1000;
  }

  async appendToStream(stream: string, events: NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    this.assertOpen();
    if (events.length === 0) return this.checkRevision(stream, expectedRevision);
    try {
      const result = await this.client.appendToStream(stream, events.map(toEventData), {
        streamState: toStreamState(expectedRevision),
      });
      const nextExpectedRevision = Number(result.nextExpectedRevision);
      // A retry the server recognised may come back without a position: look the last event up.
      const position = result.position
        ? Number(result.position.commit)
        : (await this.readStream(stream, { fromRevision: nextExpectedRevision, maxCount: 1 }))[0].position;
      return { nextExpectedRevision, position };
    } catch (error) {
      if (error instanceof KurrentWrongExpectedVersionError) {
        const actual = error.actualState === NO_STREAM ? -1 : Number(error.actualState);
        throw new WrongExpectedVersionError(stream, expectedRevision, actual);
      }
      throw translate(error);
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
    const [last] = await this.collect(this.client.readStream(stream, { direction: BACKWARDS, fromRevision: END, maxCount: 1 }));
    return last?.revision ?? -1;
  }

  /** Domain events only: KurrentDB's own (`$`-typed) events are not part of the port's log. */
  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const after = options.fromPosition ?? 0;
    const { maxCount } = options;
    const read = this.client.readAll({
      fromPosition: await this.readStart(after),
      filter: excludeSystemEvents(),
      // One more: the read is inclusive of its start, which is dropped below.
      maxCount: maxCount === undefined ? undefined : maxCount + 1,
    });
    const later = (await this.collect(read)).filter((event) => event.position > after);
    return maxCount === undefined ? later : later.slice(0, maxCount);
  }

  /** Position of the last domain event, the last one a subscription delivers, so waiting for it ends. */
  async headPosition(): Promise<number> {
    this.assertOpen();
    const read = this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1, filter: excludeSystemEvents() });
    const [last] = await this.collect(read);
    return last?.position ?? 0;
  }

  /**
   * Catch-up then live, from a server subscription to `$all` without system events. A dropped
   * connection resubscribes from the last delivered position; a failing handler or any other
   * error stops it and is reported. Do not `await close()` from inside `onEvent`.
   */
  subscribeToAll(options: SubscribeOptions): Subscription {
    this.assertOpen();
    const subscription = new KurrentDbSubscription(
      options,
      this.resubscribeDelayMs,
      (after) => this.readStart(after),
      (start) => this.client.subscribeToAll({ fromPosition: start, filter: excludeSystemEvents() }),
      () => this.subscriptions.delete(subscription),
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    await this.client.dispose();
  }

  /**
   * An empty append only checks the revision, as in the embedded store; position 0: nothing to
   * wait for. Checked here because the server's answer cannot say "no stream" for it.
   */
  private async checkRevision(stream: string, expected: ExpectedRevision): Promise<AppendResult> {
    const actual = await this.streamRevision(stream);
    if (!revisionMatches(expected, actual)) throw new WrongExpectedVersionError(stream, expected, actual);
    return { nextExpectedRevision: actual, position: 0 };
  }

  /**
   * Where a forward read must start to see every event after `after`. Positions this adapter
   * hands out are record offsets and start the read themselves, which a one-event probe
   * confirms. Any other number (between records) cannot be read from, so the start is the
   * last event before it, found by reading back from the head: a cost that only such
   * positions pay.
   */
  private async readStart(after: number): Promise<ReadPosition> {
    if (after <= 0) return START;
    try {
      await this.client.readAll({ fromPosition: at(after), maxCount: 1 }).next();
      return at(after);
    } catch (error) {
      if (isUnavailable(error)) throw translate(error);
    }
    try {
      for await (const { event } of this.client.readAll({ direction: BACKWARDS, fromPosition: END, filter: excludeSystemEvents() })) {
        if (event && event.position.commit <= BigInt(after)) return event.position;
      }
    } catch (error) {
      throw translate(error);
    }
    return START;
  }

  /** Reads all events, mapped to the port; a stream that does not exist has none. */
  private async collect(read: AsyncIterable<{ event?: KurrentRecordedEvent }>): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of read) events.push(toRecorded(resolved));
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw translate(error);
    }
    return events;
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreUnavailableError('event store is closed');
  }
}

/** Marks an error thrown by the subscriber's handler, which stops the subscription for good. */
class HandlerFailure {
  constructor(readonly error: unknown) {}
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
    while (!this.closing) {
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
        }
      } catch (error) {
        if (error instanceof HandlerFailure) throw error.error;
        const failure = translate(error);
        if (!(failure instanceof StoreUnavailableError)) throw failure;
      } finally {
        await this.unsubscribe();
      }
      // Dropped (server gone, leader changed, stream ended): try again from the last delivered event.
      await this.pause();
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

  private pause(): Promise<void> {
    if (this.closing) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.endPause?.(), this.resubscribeDelayMs);
      this.endPause = () => {
        clearTimeout(timer);
        this.endPause = undefined;
        resolve();
      };
    });
  }
}
