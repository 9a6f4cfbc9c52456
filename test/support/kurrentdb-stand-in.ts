/**
 * A stand-in KurrentDB for tests: the real client and its native reader talk gRPC to a small
 * fake that answers as KurrentDB does where the tests look (server features, the multi-stream
 * append session, stream and `$all` reads, subscriptions as catch-up reads), and fails on demand.
 */
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { Any } from 'google-protobuf/google/protobuf/any_pb';
import { ServerFeaturesService } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/serverfeatures_grpc_pb';
import {
  SupportedMethod,
  SupportedMethods,
} from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/serverfeatures_pb';
import { Code } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/code_pb';
import type { Empty } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/shared_pb';
import { StreamIdentifier, UUID } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/shared_pb';
import { Status } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/status_pb';
import { StreamsService } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/streams_grpc_pb';
import { ReadReq, ReadResp } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/streams_pb';
import { NotLeaderNodeErrorDetails } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v2/errors_pb';
import { StreamRevisionConflictErrorDetails } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v2/streams/errors_pb';
import { StreamsServiceService } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v2/streams/streams_grpc_pb';
import type {
  AppendRecord,
  AppendRequest,
} from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v2/streams/streams_pb';
import {
  AppendResponse,
  AppendSessionResponse,
} from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v2/streams/streams_pb';

export interface StoredEvent {
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
export type Failure = { code: grpc.status; details: string; metadata?: grpc.Metadata };

/** gRPC code and message of the server's revision conflict, with its details as the v2 API sends them. */
export function revisionConflict(stream: string, expected: string, actual: string): Failure {
  const details = new StreamRevisionConflictErrorDetails()
    .setStream(stream)
    .setExpectedRevision(expected)
    .setActualRevision(actual);
  const any = new Any();
  any.setTypeUrl('type.googleapis.com/kurrentdb.protocol.v2.streams.errors.StreamRevisionConflictErrorDetails');
  any.setValue(details.serializeBinary());
  const status = new Status()
    .setCode(Code.FAILED_PRECONDITION)
    .setMessage('Append failed due to a revision conflict')
    .setDetails(any);
  const trailers = new grpc.Metadata();
  trailers.set('grpc-status-details-bin', Buffer.from(status.serializeBinary()));
  return {
    code: grpc.status.FAILED_PRECONDITION,
    details: `Append failed due to a revision conflict on stream '${stream}'.`,
    metadata: trailers,
  };
}

/** A follower's answer to an append (the v2 API): FAILED_PRECONDITION naming the leader. */
export function notLeader(): Failure {
  const leader = new NotLeaderNodeErrorDetails.NodeInfo().setHost('node-2').setPort(2113).setNodeId(randomUUID());
  const any = new Any();
  any.setTypeUrl('type.googleapis.com/kurrent.rpc.NotLeaderNodeErrorDetails');
  any.setValue(new NotLeaderNodeErrorDetails().setCurrentLeader(leader).serializeBinary());
  const message =
    'The server is not the leader node and cannot handle the request. Please retry your request against the leader node directly at node-2:2113';
  const trailers = new grpc.Metadata();
  trailers.set(
    'grpc-status-details-bin',
    Buffer.from(new Status().setCode(Code.FAILED_PRECONDITION).setMessage(message).setDetails(any).serializeBinary()),
  );
  return { code: grpc.status.FAILED_PRECONDITION, details: message, metadata: trailers };
}

/** What a server that cannot map its own answer sends (25.1 to 26.0.2, on a partial retry to several streams). */
export const serverMalfunction: Failure = {
  code: grpc.status.INTERNAL,
  details: 'An internal server error occurred. Please contact support if the problem persists.',
};

export class FakeKurrentDb {
  /** What the features endpoint reports; undefined: it has none, like a server before 21.10. */
  serverVersion: string | undefined = '25.1.0';
  readonly events: StoredEvent[] = [];
  readonly appendSessions: AppendRequest[][] = [];
  readonly reads: ReadReq.Options[] = [];
  /** Answers the features endpoint with this while set (a server slow to answer after a restart). */
  failFeatures: Failure | undefined;
  /** Calls the features endpoint answered. */
  featureCalls = 0;
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
    readonly port: number,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeKurrentDb> {
    const server = new grpc.Server();
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    const fake = new FakeKurrentDb(server, port, `kurrentdb://127.0.0.1:${port}?tls=false&defaultDeadline=2000`);
    server.addService(ServerFeaturesService, {
      getSupportedMethods: (
        _call: grpc.ServerUnaryCall<Empty, SupportedMethods>,
        callback: grpc.sendUnaryData<SupportedMethods>,
      ) => fake.features(callback),
    });
    server.addService(StreamsServiceService, {
      appendSession: (
        call: grpc.ServerReadableStream<AppendRequest, AppendSessionResponse>,
        callback: grpc.sendUnaryData<AppendSessionResponse>,
      ) => {
        const requests: AppendRequest[] = [];
        const client = String(call.metadata.get('connection-name')[0]);
        call.on('data', (request: AppendRequest) => requests.push(request));
        call.on('end', () => fake.appendSession(client, requests, callback));
      },
    });
    server.addService(StreamsService, {
      read: (call: grpc.ServerWritableStream<ReadReq, ReadResp>) => fake.read(call),
    });
    return fake;
  }

  stop(): void {
    this.server.forceShutdown();
  }

  eventsOf(stream: string): StoredEvent[] {
    return this.events.filter((e) => e.stream === stream);
  }

  /** Stores events as another writer would have. */
  store(stream: string, events: { id?: string; type?: string; data?: string; metadata: string }[]): StoredEvent[] {
    return events.map(({ id = randomUUID(), type = 'Happened', data = '{"n":1}', metadata: stored }) => {
      const written = {
        id,
        stream,
        revision: this.eventsOf(stream).length,
        position: (this.nextPosition += 100),
        type,
        data,
        metadata: stored,
      };
      this.events.push(written);
      return written;
    });
  }

  private features(callback: grpc.sendUnaryData<SupportedMethods>): void {
    this.featureCalls += 1;
    if (this.failFeatures) return callback(this.failFeatures);
    if (this.serverVersion === undefined)
      return callback({ code: grpc.status.UNIMPLEMENTED, details: 'unknown service' });
    const [major, minor] = this.serverVersion.split('.').map(Number);
    // Multi-stream appends came with 25.1.
    const methods =
      major > 25 || (major === 25 && minor >= 1)
        ? [
            new SupportedMethod()
              .setServiceName('kurrentdb.protocol.v2.streams.streamsservice')
              .setMethodName('appendsession'),
          ]
        : [];
    callback(null, new SupportedMethods().setEventStoreServerVersion(this.serverVersion).setMethodsList(methods));
  }

  /** Checks every stream's expected revision, then writes all or nothing, as the server does (minus idempotency). */
  private appendSession(
    client: string,
    requests: AppendRequest[],
    callback: grpc.sendUnaryData<AppendSessionResponse>,
  ): void {
    // An empty session (the adapter's check at connect) writes nothing; the refusal is this stand-in's guess at the server's answer.
    if (requests.length === 0) return callback({ code: grpc.status.INVALID_ARGUMENT, details: 'no append requests' });
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
      const matches =
        expected === -2 || (expected === -1 ? actual === -1 : expected === -4 ? actual >= 0 : actual === expected);
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
          return {
            id: record.getRecordId(),
            type,
            metadata: JSON.stringify({ ...properties(record), '$schema.name': type, '$schema.format': 'Json' }),
          };
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
      selected = backwards
        ? events.filter((e) => e.revision <= from).reverse()
        : events.filter((e) => e.revision >= from);
    } else {
      const all = options.getAll()!;
      const regex = options.getFilter()?.getStreamIdentifier()?.getRegex();
      const log = this.events.filter((e) => regex === undefined || new RegExp(regex).test(e.stream));
      const from = all.hasPosition() ? Number(all.getPosition()!.getCommitPosition()) : all.hasEnd() ? Infinity : 0;
      // As the server answers a position inside a record.
      if (all.hasPosition() && !this.events.some((e) => e.position === from)) {
        return void call.emit('error', {
          code: grpc.status.UNKNOWN,
          details: 'Unexpected ReadAllResult: InvalidPosition',
        });
      }
      selected = backwards ? log.filter((e) => e.position <= from).reverse() : log.filter((e) => e.position >= from);
    }
    for (const stored of selected.slice(0, count)) call.write(toReadResp(stored));
    call.end();
  }
}

export function properties(record: AppendRecord): Record<string, string> {
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
  recorded
    .getMetadataMap()
    .set('type', stored.type)
    .set('content-type', 'application/json')
    .set('created', String(Date.now() * 10_000));
  return new ReadResp().setEvent(
    new ReadResp.ReadEvent().setEvent(recorded).setCommitPosition(String(stored.position)),
  );
}
