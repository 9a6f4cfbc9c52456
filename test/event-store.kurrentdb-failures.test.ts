/**
 * The KurrentDB adapter against a stand-in server: the real client and its native reader talk
 * gRPC to a small fake that answers as KurrentDB does where these tests look (server features,
 * the multi-stream append session, stream and `$all` reads), and fails on demand. It checks what
 * only a server's answers reach: the version check, what an append sends, how refusals and
 * broken reads come out. The real server's own behaviour is the contract suite's, with
 * EVENTSTORE_URL.
 */
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { Any } from 'google-protobuf/google/protobuf/any_pb';
import { ServerFeaturesService } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/serverfeatures_grpc_pb';
import { SupportedMethod, SupportedMethods } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/serverfeatures_pb';
import { Code } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/code_pb';
import { Empty, StreamIdentifier, UUID } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/shared_pb';
import { Status } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/status_pb';
import { StreamsService } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/streams_grpc_pb';
import { ReadReq, ReadResp } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/streams_pb';
import { NotLeaderNodeErrorDetails } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v2/errors_pb';
import { StreamRevisionConflictErrorDetails } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v2/streams/errors_pb';
import { StreamsServiceService } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v2/streams/streams_grpc_pb';
import { AppendRecord, AppendRequest, AppendResponse, AppendSessionResponse } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v2/streams/streams_pb';
import { KurrentDbEventStore, UnsupportedServerError } from '../shared/event-store/kurrentdb';
import { EventMetadata, NewEvent, StoreUnavailableError, WrongExpectedVersionError } from '../shared/event-store/port';

const metadata: EventMetadata = { correlationId: 'corr-1', causationId: 'cause-1', keyName: 'fake-key', catalogVersion: 3, extra: { nested: [1, 'two', { three: 0.5 }] } };

function event(type = 'Happened'): NewEvent {
  return { id: randomUUID(), type, data: { n: 1 }, metadata };
}

interface StoredEvent {
  id: string;
  stream: string;
  revision: number;
  position: number;
  type: string;
  data: string;
  /** The event's metadata bytes, as the server hands them out. */
  metadata: string;
}

/** An answer the fake gives instead of its own. */
type Failure = { code: grpc.status; details: string; metadata?: grpc.Metadata };

/** gRPC code and message of the server's revision conflict, with its details as the v2 API sends them. */
function revisionConflict(stream: string, expected: string, actual: string): Failure {
  const details = new StreamRevisionConflictErrorDetails().setStream(stream).setExpectedRevision(expected).setActualRevision(actual);
  const any = new Any();
  any.setTypeUrl('type.googleapis.com/kurrentdb.protocol.v2.streams.errors.StreamRevisionConflictErrorDetails');
  any.setValue(details.serializeBinary());
  const status = new Status().setCode(Code.FAILED_PRECONDITION).setMessage('Append failed due to a revision conflict').setDetails(any);
  const trailers = new grpc.Metadata();
  trailers.set('grpc-status-details-bin', Buffer.from(status.serializeBinary()));
  return { code: grpc.status.FAILED_PRECONDITION, details: `Append failed due to a revision conflict on stream '${stream}'.`, metadata: trailers };
}

/** A follower's answer to an append (the v2 API): FAILED_PRECONDITION naming the leader. */
function notLeader(): Failure {
  const leader = new NotLeaderNodeErrorDetails.NodeInfo().setHost('node-2').setPort(2113).setNodeId(randomUUID());
  const any = new Any();
  any.setTypeUrl('type.googleapis.com/kurrent.rpc.NotLeaderNodeErrorDetails');
  any.setValue(new NotLeaderNodeErrorDetails().setCurrentLeader(leader).serializeBinary());
  const message = 'The server is not the leader node and cannot handle the request. Please retry your request against the leader node directly at node-2:2113';
  const trailers = new grpc.Metadata();
  trailers.set('grpc-status-details-bin', Buffer.from(new Status().setCode(Code.FAILED_PRECONDITION).setMessage(message).setDetails(any).serializeBinary()));
  return { code: grpc.status.FAILED_PRECONDITION, details: message, metadata: trailers };
}

/** What a server that cannot map its own answer sends (25.1 to 26.0.2, on a partial retry to several streams). */
const serverMalfunction: Failure = { code: grpc.status.INTERNAL, details: 'An internal server error occurred. Please contact support if the problem persists.' };

class FakeKurrentDb {
  /** What the features endpoint reports; undefined: it has none, like a server before 21.10. */
  serverVersion: string | undefined = '25.1.0';
  readonly events: StoredEvent[] = [];
  readonly appendSessions: AppendRequest[][] = [];
  readonly reads: ReadReq.Options[] = [];
  /** Answers the next append session with this instead of writing it. */
  failNextAppend: Failure | undefined;
  /** Writes the next append session, then answers it with this (a commit the client never hears of). */
  failNextAppendAfterWriting: Failure | undefined;
  /**
   * Clients (by the connection name each sends) whose channel leads to a follower: their appends
   * are refused as not-leader. `next`: the client of the next append joins them.
   */
  readonly onFollower = new Set<string>();
  nextAppendOnFollower = false;
  /** Answers every stream read with this. */
  failReads: Failure | undefined;
  /** Leaves every read open without an answer, as a server that is going away. */
  stallReads = false;
  private nextPosition = 1000;

  private constructor(
    private readonly server: grpc.Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeKurrentDb> {
    const server = new grpc.Server();
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
    );
    const fake = new FakeKurrentDb(server, `kurrentdb://127.0.0.1:${port}?tls=false&defaultDeadline=2000`);
    server.addService(ServerFeaturesService, {
      getSupportedMethods: (_call: grpc.ServerUnaryCall<Empty, SupportedMethods>, callback: grpc.sendUnaryData<SupportedMethods>) => fake.features(callback),
    });
    server.addService(StreamsServiceService, {
      appendSession: (call: grpc.ServerReadableStream<AppendRequest, AppendSessionResponse>, callback: grpc.sendUnaryData<AppendSessionResponse>) => {
        const requests: AppendRequest[] = [];
        const client = String(call.metadata.get('connection-name')[0]);
        call.on('data', (request: AppendRequest) => requests.push(request));
        call.on('end', () => fake.appendSession(client, requests, callback));
      },
    });
    server.addService(StreamsService, { read: (call: grpc.ServerWritableStream<ReadReq, ReadResp>) => fake.read(call) });
    return fake;
  }

  stop(): void {
    this.server.forceShutdown();
  }

  eventsOf(stream: string): StoredEvent[] {
    return this.events.filter((e) => e.stream === stream);
  }

  /** Stores events as another writer would have. */
  store(stream: string, events: { id?: string; type?: string; metadata: string }[]): StoredEvent[] {
    return events.map(({ id = randomUUID(), type = 'Happened', metadata: stored }) => {
      const written = { id, stream, revision: this.eventsOf(stream).length, position: (this.nextPosition += 100), type, data: '{"n":1}', metadata: stored };
      this.events.push(written);
      return written;
    });
  }

  private features(callback: grpc.sendUnaryData<SupportedMethods>): void {
    if (this.serverVersion === undefined) return callback({ code: grpc.status.UNIMPLEMENTED, details: 'unknown service' });
    const appendSession = new SupportedMethod().setServiceName('kurrentdb.protocol.v2.streams.streamsservice').setMethodName('appendsession');
    callback(null, new SupportedMethods().setEventStoreServerVersion(this.serverVersion).setMethodsList([appendSession]));
  }

  /** Checks every stream's expected revision, then writes all or nothing, as the server does (minus idempotency). */
  private appendSession(client: string, requests: AppendRequest[], callback: grpc.sendUnaryData<AppendSessionResponse>): void {
    this.appendSessions.push(requests);
    if (this.nextAppendOnFollower) this.onFollower.add(client);
    this.nextAppendOnFollower = false;
    if (this.onFollower.has(client)) return callback(notLeader());
    const failure = this.failNextAppend;
    this.failNextAppend = undefined;
    if (failure) return callback(failure);
    const afterWriting = this.failNextAppendAfterWriting;
    this.failNextAppendAfterWriting = undefined;
    if (afterWriting) {
      this.appendSession(client, requests, () => undefined);
      this.appendSessions.pop();
      return callback(afterWriting);
    }
    for (const request of requests) {
      const expected = Number(request.getExpectedRevision());
      const actual = this.eventsOf(request.getStream()).length - 1;
      const matches = expected === -2 || (expected === -1 ? actual === -1 : expected === -4 ? actual >= 0 : actual === expected);
      if (!matches) return callback(revisionConflict(request.getStream(), String(expected), String(actual)));
    }
    const response = new AppendSessionResponse();
    let last: StoredEvent | undefined;
    for (const request of requests) {
      const written = this.store(
        request.getStream(),
        request.getRecordsList().map((record) => {
          const type = record.getSchema()!.getName();
          // As the server renders stored properties: one JSON object, with its own schema keys.
          return { id: record.getRecordId(), type, metadata: JSON.stringify({ ...properties(record), '$schema.name': type, '$schema.format': 'Json' }) };
        }),
      );
      last = written[written.length - 1];
      response.addOutput(new AppendResponse().setStream(request.getStream()).setStreamRevision(String(last.revision)));
    }
    callback(null, response.setPosition(String(last!.position)));
  }

  private read(call: grpc.ServerWritableStream<ReadReq, ReadResp>): void {
    const options = call.request.getOptions()!;
    this.reads.push(options);
    if (this.stallReads) return;
    if (this.failReads) return void call.emit('error', this.failReads);
    const backwards = options.getReadDirection() === ReadReq.Options.ReadDirection.BACKWARDS;
    const count = options.hasCount() ? Number(options.getCount()) : Infinity;
    let selected: StoredEvent[];
    if (options.hasStream()) {
      const stream = options.getStream()!;
      const identifier = stream.getStreamIdentifier()!;
      const name = Buffer.from(identifier.getStreamName_asU8()).toString();
      const events = this.eventsOf(name);
      if (events.length === 0) {
        call.write(new ReadResp().setStreamNotFound(new ReadResp.StreamNotFound().setStreamIdentifier(identifier)));
        return void call.end();
      }
      const from = stream.hasRevision() ? Number(stream.getRevision()) : stream.hasEnd() ? Infinity : 0;
      selected = backwards ? events.filter((e) => e.revision <= from).reverse() : events.filter((e) => e.revision >= from);
    } else {
      const all = options.getAll()!;
      const regex = options.getFilter()?.getStreamIdentifier()?.getRegex();
      const log = this.events.filter((e) => regex === undefined || new RegExp(regex).test(e.stream));
      const from = all.hasPosition() ? Number(all.getPosition()!.getCommitPosition()) : all.hasEnd() ? Infinity : 0;
      // As the server answers a position inside a record.
      if (all.hasPosition() && !this.events.some((e) => e.position === from)) {
        return void call.emit('error', { code: grpc.status.UNKNOWN, details: 'Unexpected ReadAllResult: InvalidPosition' });
      }
      selected = backwards ? log.filter((e) => e.position <= from).reverse() : log.filter((e) => e.position >= from);
    }
    for (const stored of selected.slice(0, count)) call.write(toReadResp(stored));
    call.end();
  }
}

function properties(record: AppendRecord): Record<string, string> {
  const found: Record<string, string> = {};
  record.getPropertiesMap().forEach((value, key) => (found[key] = value.getStringValue()));
  return found;
}

function toReadResp(stored: StoredEvent): ReadResp {
  const recorded = new ReadResp.ReadEvent.RecordedEvent()
    .setId(new UUID().setString(stored.id))
    .setStreamIdentifier(new StreamIdentifier().setStreamName(Buffer.from(stored.stream)))
    .setStreamRevision(String(stored.revision))
    .setPreparePosition(String(stored.position))
    .setCommitPosition(String(stored.position))
    .setCustomMetadata(Buffer.from(stored.metadata))
    .setData(Buffer.from(stored.data));
  recorded.getMetadataMap().set('type', stored.type).set('content-type', 'application/json').set('created', String(Date.now() * 10_000));
  return new ReadResp().setEvent(new ReadResp.ReadEvent().setEvent(recorded).setCommitPosition(String(stored.position)));
}

/** The metadata property as the adapter writes it (see METADATA_PROPERTY). */
const stored = (meta: EventMetadata) => JSON.stringify({ 'gamification.metadata': JSON.stringify(meta), '$schema.name': 'Happened', '$schema.format': 'Json' });

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (thrown: unknown) => thrown,
  );
}

describe('KurrentDbEventStore against a stand-in server', () => {
  let fake: FakeKurrentDb;
  const stores: KurrentDbEventStore[] = [];
  const connect = async () => {
    const store = await KurrentDbEventStore.connect(fake.url);
    stores.push(store);
    return store;
  };

  beforeEach(async () => {
    fake = await FakeKurrentDb.start();
  });

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    fake.stop();
  });

  describe('connect', () => {
    it('accepts a 25.1 server', async () => {
      await connect();
    });

    it('refuses an older server by its version, in one line', async () => {
      fake.serverVersion = '24.10.0';
      const error = await rejection(KurrentDbEventStore.connect(fake.url));
      expect(error).toBeInstanceOf(UnsupportedServerError);
      expect((error as Error).message).toBe(
        'KurrentDB server 24.10.0 does not support multi-stream appends: this service needs KurrentDB 25.1 or later',
      );
    });

    it('refuses a server without a features endpoint (before 21.10)', async () => {
      fake.serverVersion = undefined;
      const error = await rejection(KurrentDbEventStore.connect(fake.url));
      expect(error).toMatchObject({ name: 'UnsupportedServerError', serverVersion: 'unknown' });
      expect((error as Error).message).toMatch(/^KurrentDB server of unknown version \(.*\) does not support multi-stream appends: .* 25\.1 or later$/);
    });
  });

  describe('appends', () => {
    it('sends one append session, the metadata as one JSON property, and maps the answer', async () => {
      const store = await connect();
      fake.store('b', [{ metadata: stored(metadata) }, { metadata: stored(metadata) }]);
      const [first, second, third] = [event('A'), event('B'), event('C')];
      const result = await store.appendToStreams([
        { stream: 'a', events: [first], expectedRevision: 'no_stream' },
        { stream: 'b', events: [second, third], expectedRevision: 1 },
      ]);

      expect(fake.appendSessions).toHaveLength(1);
      const [session] = fake.appendSessions;
      expect(session.map((r) => [r.getStream(), r.getExpectedRevision()])).toEqual([
        ['a', '-1'],
        ['b', '1'],
      ]);
      const records = session.flatMap((r) => r.getRecordsList());
      expect(records.map((r) => [r.getRecordId(), r.getSchema()!.getName()])).toEqual([first, second, third].map((e) => [e.id, e.type]));
      for (const record of records) {
        expect(Object.entries(properties(record)).map(([key, value]) => [key, JSON.parse(value)])).toEqual([['gamification.metadata', metadata]]);
        expect(JSON.parse(Buffer.from(record.getData_asU8()).toString())).toEqual({ n: 1 });
      }
      const written = fake.eventsOf('b');
      expect(result).toEqual({ revisions: { a: 0, b: 3 }, position: written[written.length - 1].position });
    });

    it('sends every kind of expected revision as the server spells it', async () => {
      const store = await connect();
      fake.store('exists', [{ metadata: stored(metadata) }]);
      await store.appendToStreams([
        { stream: 'any', events: [event()], expectedRevision: 'any' },
        { stream: 'exists', events: [event()], expectedRevision: 'stream_exists' },
      ]);
      expect(fake.appendSessions[0].map((r) => r.getExpectedRevision())).toEqual(['-2', '-4']);
    });

    it('names the stream the server names in a conflict, and its actual revision (-1: no stream)', async () => {
      const store = await connect();
      fake.store('c', [{ metadata: stored(metadata) }, { metadata: stored(metadata) }, { metadata: stored(metadata) }]);
      const error = await rejection(
        store.appendToStreams([
          { stream: 'a', events: [event()], expectedRevision: 'no_stream' },
          { stream: 'c', events: [event()], expectedRevision: 1 },
        ]),
      );
      expect(error).toBeInstanceOf(WrongExpectedVersionError);
      expect(error).toMatchObject({ streamName: 'c', expected: 1, actual: 2 });

      const missing = await rejection(store.appendToStreams([{ stream: 'none', events: [event()], expectedRevision: 4 }]));
      expect(missing).toMatchObject({ name: 'WrongExpectedVersionError', streamName: 'none', expected: 4, actual: -1 });
    });

    it('answers a retry refused as a conflict with the first result when every event is already where it pinned it', async () => {
      const store = await connect();
      fake.store('b', [{ metadata: stored(metadata) }]);
      const appends = [
        { stream: 'a', events: [event(), event()], expectedRevision: 'no_stream' as const },
        { stream: 'b', events: [event()], expectedRevision: 0 },
        { stream: 'c', events: [event()], expectedRevision: 'any' as const },
      ];
      const original = await store.appendToStreams(appends);
      // This stand-in knows no idempotency: it answers the retry with a conflict.
      expect(await store.appendToStreams(appends)).toEqual(original);
      expect(fake.events).toHaveLength(5);
    });

    it('keeps the conflict of a retry of which only some events are stored', async () => {
      const store = await connect();
      const [held, fresh] = [event(), event()];
      await store.appendToStreams([{ stream: 'a', events: [held], expectedRevision: 'no_stream' }]);
      const error = await rejection(store.appendToStreams([{ stream: 'a', events: [held, fresh], expectedRevision: 'no_stream' }]));
      expect(error).toMatchObject({ name: 'WrongExpectedVersionError', streamName: 'a', expected: 'no_stream', actual: 0 });
    });

    it("names a partial retry's stream when the server answers it with an internal error (25.1 to 26.0.2)", async () => {
      const store = await connect();
      const held = event();
      await store.appendToStreams([{ stream: 'a', events: [held], expectedRevision: 'no_stream' }]);
      fake.failNextAppend = serverMalfunction;
      const error = await rejection(
        store.appendToStreams([
          { stream: 'b', events: [event()], expectedRevision: 'no_stream' },
          { stream: 'a', events: [held], expectedRevision: 'no_stream' },
        ]),
      );
      expect(error).toBeInstanceOf(WrongExpectedVersionError);
      expect(error).toMatchObject({ streamName: 'a', expected: 'no_stream', actual: 0 });
    });

    it('answers a full retry met by an internal error with the first result', async () => {
      const store = await connect();
      const appends = [{ stream: 'a', events: [event()], expectedRevision: 'any' as const }];
      const original = await store.appendToStreams(appends);
      fake.failNextAppend = serverMalfunction;
      expect(await store.appendToStreams(appends)).toEqual(original);
    });

    it('answers 503 to an append a follower refuses, and sends the next one through a new client, to the leader', async () => {
      const store = await connect();
      fake.nextAppendOnFollower = true;
      const refused = await rejection(store.appendToStreams([{ stream: 'a', events: [event()], expectedRevision: 'no_stream' }]));
      expect(refused).toBeInstanceOf(StoreUnavailableError);
      expect((refused as Error).message).toMatch(/not the leader/);
      expect(fake.events).toEqual([]);
      const appended = event();
      await store.appendToStreams([{ stream: 'a', events: [appended], expectedRevision: 'no_stream' }]);
      expect(fake.eventsOf('a').map((e) => e.id)).toEqual([appended.id]);
      expect(fake.appendSessions).toHaveLength(2);
    });

    it.each<[string, Failure]>([
      ["the client's deadline", { code: grpc.status.DEADLINE_EXCEEDED, details: 'Deadline exceeded' }],
      ["the server's commit timeout", { code: grpc.status.ABORTED, details: 'Operation timed out' }],
      ['a dropped connection', { code: grpc.status.UNAVAILABLE, details: 'Connection dropped' }],
      ['a cancellation by the server', { code: grpc.status.CANCELLED, details: 'The operation was cancelled' }],
    ])('answers an append written before %s with its result, not 503', async (_name, failure) => {
      const store = await connect();
      fake.store('b', [{ metadata: stored(metadata) }]);
      const appends = [
        { stream: 'a', events: [event()], expectedRevision: 'no_stream' as const },
        { stream: 'b', events: [event(), event()], expectedRevision: 0 },
      ];
      fake.failNextAppendAfterWriting = failure;
      const result = await store.appendToStreams(appends);
      expect(result).toEqual({ revisions: { a: 0, b: 2 }, position: fake.eventsOf('b')[2].position });
      expect(fake.events).toHaveLength(4);
    });

    it('answers 503 to an append that met a deadline before anything was written', async () => {
      const store = await connect();
      fake.failNextAppend = { code: grpc.status.DEADLINE_EXCEEDED, details: 'Deadline exceeded' };
      await expect(store.appendToStreams([{ stream: 'a', events: [event()], expectedRevision: 'any' }])).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(fake.events).toEqual([]);
    });

    it('reports an internal error as unavailable when nothing of the append is stored and no revision differs', async () => {
      const store = await connect();
      fake.failNextAppend = serverMalfunction;
      expect(await rejection(store.appendToStreams([{ stream: 'a', events: [event()], expectedRevision: 'no_stream' }]))).toBeInstanceOf(StoreUnavailableError);
    });
  });

  describe('reads', () => {
    it('decode the metadata property, and hand out older metadata as stored', async () => {
      const store = await connect();
      const legacy = { ...metadata, causationId: 'written-before' };
      fake.store('a', [{ metadata: stored(metadata) }, { metadata: JSON.stringify(legacy) }]);
      expect((await store.readStream('a')).map((e) => e.metadata)).toStrictEqual([metadata, legacy]);
      expect((await store.readAll()).map((e) => e.metadata)).toStrictEqual([metadata, legacy]);
    });

    it('ask the server for domain streams only, by stream name, on $all, its head and subscriptions', async () => {
      const store = await connect();
      fake.store('a', [{ metadata: stored(metadata) }]);
      fake.store('$persistentSubscriptionConfig', [{ type: 'PersistentConfig1', metadata: '{}' }]);
      expect((await store.readAll()).map((e) => e.streamName)).toEqual(['a']);
      expect(await store.headPosition()).toBe(fake.eventsOf('a')[0].position);
      const subscription = store.subscribeToAll({ onEvent: () => undefined });
      const regexes = () => fake.reads.filter((r) => r.hasAll()).map((r) => r.getFilter()?.getStreamIdentifier()?.getRegex());
      try {
        while (regexes().length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
      } finally {
        await subscription.close();
      }
      expect(regexes()).toEqual(['^[^$]', '^[^$]', '^[^$]']);
    });

    it('read $all after a position inside a record from the last event before it', async () => {
      const store = await connect();
      const [first, second] = fake.store('a', [{ metadata: stored(metadata) }, { metadata: stored(metadata) }]);
      expect((await store.readAll({ fromPosition: second.position - 1 })).map((e) => e.id)).toEqual([second.id]);
      expect((await store.readAll({ fromPosition: first.position })).map((e) => e.id)).toEqual([second.id]);
    });

    it('answer StoreUnavailableError for a call the server cancels while going away (an UnknownError of the native reader)', async () => {
      const store = await connect();
      fake.failReads = { code: grpc.status.CANCELLED, details: 'The operation was cancelled' };
      await expect(store.readStream('a')).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.streamRevision('a')).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.readAll()).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.headPosition()).rejects.toBeInstanceOf(StoreUnavailableError);
    });

    it('answer StoreUnavailableError when the server drops the connection mid-read', async () => {
      const store = await connect();
      fake.stallReads = true;
      const reading = store.readStream('a');
      while (fake.reads.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      fake.stop();
      await expect(reading).rejects.toBeInstanceOf(StoreUnavailableError);
    });
  });
});
