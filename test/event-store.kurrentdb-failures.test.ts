/**
 * The KurrentDB adapter against a stand-in server: the real client and its native reader talk
 * gRPC to a small fake that answers as KurrentDB does where these tests look (server features,
 * the multi-stream append session, stream and `$all` reads), and fails on demand. It checks what
 * only a server's answers reach: the version check, what an append sends, how refusals and
 * broken reads come out. The real server's own behaviour is the contract suite's, with
 * EVENTSTORE_URL.
 */
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { KurrentDbEventStore, UnsupportedServerError } from '../shared/adapters/event-store/kurrentdb';
import type { EventMetadata, NewEvent } from '../shared/adapters/event-store/port';
import {
  PositionNotInLogError,
  StoreOutcomeUnknownError,
  StoreUnavailableError,
  WrongExpectedVersionError,
} from '../shared/adapters/event-store/port';
import { ReadReq } from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/streams_pb';
import { feedRoutes } from '../read-api/feed/routes';
import type { AnyRoute } from '../shared/adapters/http/route';
import pino from 'pino';
import request from 'supertest';
import { PROJECTORS } from '../projections/projectors';
import { ProjectionRunner } from '../projections/runner';
import { createHttpApp } from '../shared/adapters/http/app';
import { ServiceMetrics } from '../shared/adapters/metrics';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import { failure } from '../domain/result';
import { FakeKurrentDb, properties, serverMalfunction, type Failure } from './support/kurrentdb-stand-in';
import { eventually } from './support/process';

const metadata: EventMetadata = {
  correlationId: 'corr-1',
  causationId: 'cause-1',
  keyName: 'fake-key',
  catalogVersion: 3,
  extra: { nested: [1, 'two', { three: 0.5 }] },
};

function event(type = 'Happened'): NewEvent {
  return { id: randomUUID(), type, data: { n: 1 }, metadata };
}

/** The metadata property as the adapter writes it (see METADATA_PROPERTY). */
const stored = (meta: EventMetadata) =>
  JSON.stringify({
    'gamification.metadata': JSON.stringify(meta),
    '$schema.name': 'Happened',
    '$schema.format': 'Json',
  });

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

    it.each([
      ['an older server', '24.10.0'],
      ['a server without a features endpoint (before 21.10)', undefined],
    ])('refuses %s in one line, having written nothing', async (_name, version) => {
      fake.serverVersion = version;
      const error = await rejection(KurrentDbEventStore.connect(fake.url));
      expect(error).toBeInstanceOf(UnsupportedServerError);
      expect((error as Error).message).toBe(
        'KurrentDB server before 25.1 does not support multi-stream appends: this service needs KurrentDB 25.1 or later',
      );
      expect(fake.appendSessions).toEqual([]);
    });
  });

  describe('close', () => {
    it("closes the client's gRPC connection, and that of a client replaced after a leader change", async () => {
      /** Connections the stand-in has open, its side of them: the gRPC channel's, and the native reader's. */
      const connections = () =>
        (process as unknown as { _getActiveHandles(): { localPort?: number }[] })
          ._getActiveHandles()
          .filter((h) => h.localPort === fake.port).length;
      const before = connections();
      const store = await KurrentDbEventStore.connect(fake.url);
      await store.appendToStreams([{ stream: 'a', events: [event()], expectedRevision: 'no_stream' }]);
      const open = connections();
      expect(open).toBeGreaterThan(before);
      fake.nextAppendOnFollower = true;
      await expect(
        store.appendToStreams([{ stream: 'a', events: [event()], expectedRevision: 0 }]),
      ).rejects.toBeInstanceOf(StoreUnavailableError);
      await store.appendToStreams([{ stream: 'a', events: [event()], expectedRevision: 0 }]);
      // The replaced client's channel is closed: the new one's takes its place.
      await eventually(() => expect(connections()).toBe(open), 20_000, 10);
      await store.close();
      await eventually(() => expect(connections()).toBe(open - 1), 20_000, 10);
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
      expect(records.map((r) => [r.getRecordId(), r.getSchema()!.getName()])).toEqual(
        [first, second, third].map((e) => [e.id, e.type]),
      );
      for (const record of records) {
        expect(Object.entries(properties(record)).map(([key, value]) => [key, JSON.parse(value)])).toEqual([
          ['gamification.metadata', metadata],
        ]);
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

      const missing = await rejection(
        store.appendToStreams([{ stream: 'none', events: [event()], expectedRevision: 4 }]),
      );
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
      const error = await rejection(
        store.appendToStreams([{ stream: 'a', events: [held, fresh], expectedRevision: 'no_stream' }]),
      );
      expect(error).toMatchObject({
        name: 'WrongExpectedVersionError',
        streamName: 'a',
        expected: 'no_stream',
        actual: 0,
      });
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
      const refused = await rejection(
        store.appendToStreams([{ stream: 'a', events: [event()], expectedRevision: 'no_stream' }]),
      );
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

    it.each<[string, Failure]>([
      ['a deadline', { code: grpc.status.DEADLINE_EXCEEDED, details: 'Deadline exceeded' }],
      ["the server's commit timeout", { code: grpc.status.ABORTED, details: 'Operation timed out' }],
      ['a dropped connection', { code: grpc.status.UNAVAILABLE, details: 'Connection dropped' }],
      ['a cancellation by the server', { code: grpc.status.CANCELLED, details: 'The operation was cancelled' }],
    ])(
      'answers an append that met %s and is not found written as of unknown outcome, not 503 "changed nothing": it may still commit',
      async (_name, failure) => {
        const store = await connect();
        fake.failNextAppend = failure;
        const error = await rejection(
          store.appendToStreams([{ stream: 'a', events: [event()], expectedRevision: 'any' }]),
        );
        expect(error).toBeInstanceOf(StoreOutcomeUnknownError);
        expect(error).not.toBeInstanceOf(StoreUnavailableError);
        expect((error as Error).message).toMatch(/^event store: the append's outcome is unknown/);
        expect(fake.events).toEqual([]);
      },
    );

    it('answers an append of unknown outcome as such when the lookup fails too', async () => {
      const store = await connect();
      fake.failNextAppend = { code: grpc.status.DEADLINE_EXCEEDED, details: 'Deadline exceeded' };
      fake.failReads = { code: grpc.status.UNAVAILABLE, details: 'Connection dropped' };
      await expect(
        store.appendToStreams([{ stream: 'a', events: [event()], expectedRevision: 0 }]),
      ).rejects.toBeInstanceOf(StoreOutcomeUnknownError);
    });

    it('answers 503 "changed nothing" to an append the client could not send: the server down, its connection refused', async () => {
      const store = await connect();
      fake.stop();
      const reads = fake.reads.length;
      const error = await rejection(
        store.appendToStreams([{ stream: 'a', events: [event()], expectedRevision: 'any' }]),
      );
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(error).not.toBeInstanceOf(StoreOutcomeUnknownError);
      expect((error as Error).message).toMatch(/No connection established/);
      // Certainly not written: nothing to look up.
      expect(fake.reads.length).toBe(reads);
    });

    it('answers 503 "changed nothing" to an append whose deadline passed while the client waited for a connection', async () => {
      const store = await connect();
      fake.stop();
      // Where the server was, one that takes connections and never answers: no call goes out on them.
      const accepted: net.Socket[] = [];
      const silent = net.createServer((socket) => void accepted.push(socket));
      await new Promise<void>((resolve) => silent.listen(fake.port, '127.0.0.1', resolve));
      try {
        const error = await rejection(
          store.appendToStreams([{ stream: 'a', events: [event()], expectedRevision: 'any' }]),
        );
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect((error as Error).message).toMatch(/DEADLINE_EXCEEDED.*Waiting for LB pick/);
      } finally {
        for (const socket of accepted) socket.destroy();
        silent.close();
      }
    });

    it("asks the server's features again after that call failed, rather than answering every append 503 from then on", async () => {
      const store = await connect();
      const append = () => store.appendToStreams([{ stream: 'a', events: [event()], expectedRevision: 'any' }]);
      // The server goes away during an append (its outcome unknown): the client reconnects, and
      // asks the features again on its next call...
      fake.failNextAppend = { code: grpc.status.UNAVAILABLE, details: 'server restarting' };
      await expect(append()).rejects.toBeInstanceOf(StoreOutcomeUnknownError);
      // ...which meets a server too slow to answer them: the client keeps that failure for every later call.
      fake.failFeatures = { code: grpc.status.DEADLINE_EXCEEDED, details: 'Deadline exceeded' };
      const asked = fake.featureCalls;
      await expect(append()).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(fake.featureCalls).toBeGreaterThan(asked);
      // The server answers again: the next append asks the features anew, and is written.
      fake.failFeatures = undefined;
      await expect(append()).resolves.toMatchObject({ revisions: { a: expect.any(Number) } });
      expect(fake.events.map((e) => e.stream)).toEqual(['a']);
    });

    it('reports an internal error as unavailable when nothing of the append is stored and no revision differs', async () => {
      const store = await connect();
      fake.failNextAppend = serverMalfunction;
      expect(
        await rejection(store.appendToStreams([{ stream: 'a', events: [event()], expectedRevision: 'no_stream' }])),
      ).toBeInstanceOf(StoreUnavailableError);
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
      const regexes = () =>
        fake.reads.filter((r) => r.hasAll()).map((r) => r.getFilter()?.getStreamIdentifier()?.getRegex());
      try {
        await eventually(() => regexes().length >= 3, 20_000, 10);
      } finally {
        await subscription.close();
      }
      expect(regexes()).toEqual(['^[^$]', '^[^$]', '^[^$]']);
    });

    it('ask the server for the streams starting with given prefixes, as a filter by stream name', async () => {
      const store = await connect();
      fake.store('player-1', [{ metadata: stored(metadata) }]);
      fake.store('reference-1', [{ metadata: stored(metadata) }]);
      fake.store('catalog', [{ metadata: stored(metadata) }]);
      const read = await store.readAll({ streamPrefixes: ['player-', 'catalog', 'a.b'] });
      expect(read.map((e) => e.streamName)).toEqual(['player-1', 'catalog']);
      const regex = fake.reads
        .find((r) => r.hasAll())
        ?.getFilter()
        ?.getStreamIdentifier()
        ?.getRegex();
      expect(regex).toBe('^(?:player-|catalog|a\\.b)');
    });

    it('refuses to read a share of the log (only the embedded store splits a replay), asking the server nothing', async () => {
      const store = await connect();
      const reads = fake.reads.length;
      await expect(store.readAll({ share: { prefix: 'player-', index: 0, count: 2 } })).rejects.toThrow(
        'reads no share of the log',
      );
      expect(fake.reads.length).toBe(reads);
    });

    it('read $all after a position inside a record from the last event before it', async () => {
      const store = await connect();
      const [first, second] = fake.store('a', [{ metadata: stored(metadata) }, { metadata: stored(metadata) }]);
      expect((await store.readAll({ fromPosition: second.position - 1 })).map((e) => e.id)).toEqual([second.id]);
      expect((await store.readAll({ fromPosition: first.position })).map((e) => e.id)).toEqual([second.id]);
    });

    it('refuse a position between records further back than the last 1000 events, having read no more than those', async () => {
      const store = await connect();
      const [first] = fake.store(
        'a',
        Array.from({ length: 1001 }, () => ({ metadata: stored(metadata) })),
      );
      fake.reads.length = 0;
      const error = await rejection(store.readAll({ fromPosition: first.position + 1, maxCount: 10 }));
      expect(error).toBeInstanceOf(PositionNotInLogError);
      const scans = fake.reads.filter((r) => r.getReadDirection() === ReadReq.Options.ReadDirection.BACKWARDS);
      expect(scans.map((r) => Number(r.getCount()))).toEqual([1000]);
      // A position it gave reads at once, however far back.
      expect((await store.readAll({ fromPosition: first.position, maxCount: 1 })).map((e) => e.revision)).toEqual([1]);
    });

    it('answer 503, not 1001, for a position while the server cannot read', async () => {
      const store = await connect();
      fake.store(
        'a',
        Array.from({ length: 1001 }, () => ({ metadata: stored(metadata) })),
      );
      fake.failReads = { code: grpc.status.UNAVAILABLE, details: 'Connection dropped' };
      await expect(store.readAll({ fromPosition: 5 })).rejects.toBeInstanceOf(StoreUnavailableError);
    });

    it('answer 1001 on the feed for a position the log does not know', async () => {
      const store = await connect();
      const [first] = fake.store(
        'a',
        Array.from({ length: 1001 }, () => ({ metadata: stored(metadata) })),
      );
      const [page] = feedRoutes({ events: store }) as [Extract<AnyRoute, { handle: unknown }>];
      const answer = await page.handle({ after: first.position + 1, limit: 10, filter: {} }, {} as never);
      expect(answer).toMatchObject({
        ok: false,
        failure: { code: 1001, message: expect.stringMatching(/^after: position \d+ is not a position of this log/) },
      });
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
      await eventually(() => fake.reads.length > 0, 20_000, 10);
      fake.stop();
      await expect(reading).rejects.toBeInstanceOf(StoreUnavailableError);
    });
  });
});

describe('a subscription to $all on a server that drops or refuses it', () => {
  let fake: FakeKurrentDb;
  beforeEach(async () => {
    fake = await FakeKurrentDb.start();
  });
  afterEach(() => fake.stop());

  it('tells each drop, and waits twice as long after each drop in a row', async () => {
    const store = await KurrentDbEventStore.connect(fake.url, { resubscribeDelayMs: 10 });
    const drops: [string, number][] = [];
    const errors: Error[] = [];
    fake.failReads = { code: grpc.status.UNAVAILABLE, details: 'Connection dropped' };
    const subscription = store.subscribeToAll({
      onEvent: () => undefined,
      onError: (error) => errors.push(error),
      onDrop: (error, retryInMs) => void drops.push([error.name, retryInMs]),
    });
    try {
      await eventually(() => drops.length >= 4, 20_000, 10);
    } finally {
      await subscription.close();
      await store.close();
    }
    expect(drops.slice(0, 4)).toEqual([
      ['StoreUnavailableError', 10],
      ['StoreUnavailableError', 20],
      ['StoreUnavailableError', 40],
      ['StoreUnavailableError', 80],
    ]);
    expect(errors).toEqual([]);
  });

  it('stops and reports an error that resubscribing cannot cure', async () => {
    const store = await KurrentDbEventStore.connect(fake.url, { resubscribeDelayMs: 10 });
    const errors: Error[] = [];
    const drops: Error[] = [];
    fake.failReads = { code: grpc.status.PERMISSION_DENIED, details: 'Access denied' };
    const subscription = store.subscribeToAll({
      onEvent: () => undefined,
      onError: (error) => errors.push(error),
      onDrop: (error) => void drops.push(error),
    });
    try {
      await eventually(() => errors.length > 0, 20_000, 10);
    } finally {
      await subscription.close();
      await store.close();
    }
    expect(errors.map((e) => e.message)).toEqual([expect.stringContaining('Access denied')]);
    expect(drops).toEqual([]);
  });

  it('fails the projections visibly after repeated faults, keeps retrying, and recovers with the next event', async () => {
    const store = await KurrentDbEventStore.connect(fake.url, { resubscribeDelayMs: 10 });
    const metrics = new ServiceMetrics();
    const log = pino({ level: 'silent' });
    const runner = new ProjectionRunner(store, new MemoryReadStore(), PROJECTORS, log, undefined, {
      retryAfterFaultMs: 10,
    });
    metrics.watchProjections(runner);
    const app = createHttpApp([], {
      metrics,
      log,
      clientDomains: new Set(),
      isStarted: () => true,
      workProblem: () => null,
      documentation: { document: {} },
      elsewhere: [],
      readiness: [{ name: 'projections', problem: () => runner.problem() }],
      trustProxy: false,
      authorize: () => ({ ok: false, failure: failure(401, 'no key') }),
      rateLimit: async () => null,
      afterWrite: async () => undefined,
      waitForPosition: async () => true,
    });
    await runner.start();
    try {
      expect((await request(app).get('/health/ready')).status).toBe(200);
      fake.failReads = { code: grpc.status.PERMISSION_DENIED, details: 'Access denied' };
      await eventually(() => runner.problem() !== null, 20_000, 10);
      expect(runner.problem()).toMatch(/^projections failed 5 times in a row, still retrying: .*Access denied/);
      const ready = await request(app).get('/health/ready');
      expect([ready.status, ready.body.data]).toEqual([
        503,
        expect.stringMatching(
          /^Not ready: projections: projections failed \d+ times in a row, still retrying: .*Access denied/,
        ),
      ]);
      expect(await metrics.text()).toMatch(/^projection_failed 1$/m);
      expect(Number(/^projection_drops_total (\d+)$/m.exec(await metrics.text())?.[1])).toBeGreaterThanOrEqual(5);

      fake.failReads = undefined;
      // A whole event, as the service writes it: every projector reads its fields.
      const registered = {
        playerId: 'player-1',
        username: 'p1',
        imageName: null,
        registeredAt: 1_767_225_600_000,
        levels: [],
        effects: { points: 0, balances: [], powerupsGranted: [], powerupsRemoved: [], powerupUses: [] },
      };
      fake.store('player-1', [
        { type: 'PlayerRegistered', data: JSON.stringify(registered), metadata: stored(metadata) },
      ]);
      await eventually(() => runner.problem() === null, 20_000, 10);
      expect((await request(app).get('/health/ready')).status).toBe(200);
      expect(await metrics.text()).toMatch(/^projection_failed 0$/m);
    } finally {
      await runner.stop();
      await store.close();
    }
  });
});
