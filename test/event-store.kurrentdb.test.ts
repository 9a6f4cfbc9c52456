import { randomUUID } from 'node:crypto';
import { KurrentDBClient, jsonEvent } from '@kurrent/kurrentdb-client';
import { KurrentDbEventStore, UnsupportedServerError } from '../shared/adapters/event-store/kurrentdb';
import type { EventMetadata, NewEvent, RecordedEvent } from '../shared/adapters/event-store/port';
import { StoreUnavailableError } from '../shared/adapters/event-store/port';
import { eventStoreContract } from './contracts/event-store.contract';
import { eventually, freePort } from './support/process';
import { withServer } from './support/server-suites';

const metadata: EventMetadata = {
  correlationId: 'corr-1',
  causationId: 'cause-1',
  keyName: 'kurrent-key',
  catalogVersion: 1,
};

function event(type = 'Happened', meta: EventMetadata = metadata): NewEvent {
  return { id: randomUUID(), type, data: { n: 1 }, metadata: meta };
}

// Every test writes only to fresh streams named per run, so they can share a real server.
withServer(
  'EVENTSTORE_URL',
  'KurrentDB server tests',
  [
    'runs the EventStore contract against KurrentDB',
    'connects to a server with multi-stream appends without refusing it',
    'round-trips metadata of a multi-stream append on every read path',
    "leaves a $ stream's events out of $all, its head and its subscription",
  ],
  (EVENTSTORE_URL) => {
    eventStoreContract('KurrentDbEventStore', () => KurrentDbEventStore.connect(EVENTSTORE_URL));

    describe('KurrentDbEventStore against a server', () => {
      const run = randomUUID().slice(0, 8);
      let store: KurrentDbEventStore;

      beforeAll(async () => {
        store = await KurrentDbEventStore.connect(EVENTSTORE_URL);
      });

      afterAll(() => store.close());

      it('connects to a server with multi-stream appends without refusing it', async () => {
        const connected = await KurrentDbEventStore.connect(EVENTSTORE_URL);
        await connected.close();
      });

      it('round-trips metadata of a multi-stream append on every read path', async () => {
        const [a, b] = [`kurrent_${run}-meta-a`, `kurrent_${run}-meta-b`];
        const rich = (n: number): EventMetadata => ({
          ...metadata,
          causationId: `cause-${n}`,
          catalogVersion: 7,
          extra: { nested: { list: [1, 2.5, 'three', null, { deep: true }], empty: {} }, count: n, ratio: 0.1 + 0.2 },
          text: 'héllo ✓ "quoted"',
        });
        const appended = [event('A', rich(1)), event('B', rich(2)), event('B', rich(3))];
        const start = await store.headPosition();
        await store.appendToStreams([
          { stream: a, events: appended.slice(0, 1), expectedRevision: 'no_stream' },
          { stream: b, events: appended.slice(1), expectedRevision: 'no_stream' },
        ]);
        const byId = (events: RecordedEvent[]) => new Map(events.map((e) => [e.id, e.metadata]));
        const expected = new Map(appended.map((e) => [e.id, e.metadata]));

        expect(byId([...(await store.readStream(a)), ...(await store.readStream(b))])).toStrictEqual(expected);
        const logged = (await store.readAll({ fromPosition: start })).filter(
          (e) => e.streamName === a || e.streamName === b,
        );
        expect(byId(logged)).toStrictEqual(expected);

        const delivered: RecordedEvent[] = [];
        const subscription = store.subscribeToAll({
          fromPosition: start,
          onEvent: (e) => {
            if (e.streamName === a || e.streamName === b) delivered.push(e);
          },
        });
        try {
          await eventually(() => delivered.length === appended.length, 10_000, 10);
          expect(byId(delivered)).toStrictEqual(expected);
        } finally {
          await subscription.close();
        }
      });

      it("leaves a $ stream's events out of $all, its head and its subscription", async () => {
        // Written past the adapter, as the server writes its own: needs a server in insecure mode or an admin's credentials.
        const raw = KurrentDBClient.connectionString(EVENTSTORE_URL);
        const system = `$gamification-test-${run}`;
        const domain = `kurrent_${run}-domain`;
        try {
          const start = await store.headPosition();
          const first = await store.appendToStreams([
            { stream: domain, events: [event()], expectedRevision: 'no_stream' },
          ]);
          // A domain-looking type: a filter on event types alone would let it through.
          const written = await raw.appendToStream(system, jsonEvent({ type: 'Happened', data: { n: 1 } }));
          const head = await store.headPosition();
          expect(head).toBeGreaterThanOrEqual(first.position);
          expect(head).not.toBe(Number(written.position!.commit));
          await store.appendToStreams([{ stream: domain, events: [event()], expectedRevision: 0 }]);

          const logged = await store.readAll({ fromPosition: start });
          expect(logged.filter((e) => e.streamName === system)).toEqual([]);
          expect(logged.filter((e) => e.streamName === domain).map((e) => e.revision)).toEqual([0, 1]);

          const streams: string[] = [];
          const subscription = store.subscribeToAll({
            fromPosition: start,
            onEvent: (e) => void streams.push(e.streamName),
          });
          try {
            await eventually(() => streams.filter((s) => s === domain).length === 2, 10_000, 10);
            expect(streams).not.toContain(system);
          } finally {
            await subscription.close();
          }
        } finally {
          await raw.dispose();
        }
      });
    });
  },
);

describe('KurrentDbEventStore without a server', () => {
  const closedPort = async () => `kurrentdb://127.0.0.1:${await freePort()}?tls=false&defaultDeadline=500`;

  it('rejects appends, reads and subscriptions with StoreUnavailableError, promptly', async () => {
    const store = new KurrentDbEventStore(await closedPort());
    const [a, b] = [`unreachable-${randomUUID()}`, `unreachable-${randomUUID()}`];
    try {
      const startedAt = Date.now();
      await expect(
        store.appendToStreams([
          { stream: a, events: [event()], expectedRevision: 'no_stream' },
          { stream: b, events: [event(), event()], expectedRevision: 3 },
        ]),
      ).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.readStream(a)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.streamRevision(a)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.readAll({ fromPosition: 42 })).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.headPosition()).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - startedAt).toBeLessThan(5000);

      // A subscription keeps trying to reconnect instead of failing: it reports nothing and delivers nothing.
      const errors: Error[] = [];
      let drops = 0;
      const subscription = store.subscribeToAll({
        onEvent: () => undefined,
        onError: (error) => errors.push(error),
        onDrop: () => void drops++,
      });
      // Lost, tried again and lost again: it reports each drop as such, never as an error.
      await eventually(() => drops >= 2, 10_000, 10);
      await subscription.close();
      expect(errors).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('refuses a malformed append as such, before reaching for the server', async () => {
    const store = new KurrentDbEventStore(await closedPort());
    try {
      await expect(
        store.appendToStreams([
          { stream: 'twice', events: [event()], expectedRevision: 'any' },
          { stream: 'twice', events: [event()], expectedRevision: 'any' },
        ]),
      ).rejects.toThrow(/appears twice/);
      await expect(store.appendToStreams([{ stream: 'empty', events: [], expectedRevision: 'any' }])).rejects.toThrow(
        /no events/,
      );
    } finally {
      await store.close();
    }
  });

  it('connect rejects with StoreUnavailableError, not UnsupportedServerError, when nothing listens', async () => {
    const startedAt = Date.now();
    const error = await KurrentDbEventStore.connect(await closedPort()).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).not.toBeInstanceOf(UnsupportedServerError);
    expect(Date.now() - startedAt).toBeLessThan(5000);
  });

  it('throws StoreUnavailableError once closed', async () => {
    const store = new KurrentDbEventStore(await closedPort());
    await store.close();
    await store.close();
    await expect(store.readStream('s')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(
      store.appendToStreams([{ stream: 's', events: [event()], expectedRevision: 'any' }]),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(() => store.subscribeToAll({ onEvent: () => undefined })).toThrow(StoreUnavailableError);
  });
});
