/**
 * What every EventStore adapter must do, written once and run against each of them. The suite
 * may run against a shared real server: every test writes to its own fresh streams, and
 * global-log assertions are relative to positions captured in the test and filtered to them.
 */
import { randomUUID } from 'node:crypto';
import type {
  AppendResult,
  EventMetadata,
  EventStore,
  ExpectedRevision,
  NewEvent,
  RecordedEvent,
} from '../../shared/adapters/event-store/port';
import { WrongExpectedVersionError } from '../../shared/adapters/event-store/port';
import { appendOne } from '../support/append-one';
import { eventually } from '../support/process';

const metadata: EventMetadata = {
  correlationId: 'corr-1',
  causationId: 'cause-1',
  keyName: 'contract-key',
  catalogVersion: 1,
};

function event(type = 'Happened', data: unknown = { n: 1 }): NewEvent {
  return { id: randomUUID(), type, data, metadata };
}

function events(count: number): NewEvent[] {
  return Array.from({ length: count }, (_, n) => event('Happened', { n }));
}

/**
 * Resolves once a second subscription from `from` has been handed everything up to `position`:
 * the store delivers those events, so a subscription that has not had them held them back.
 */
async function deliveredTo(store: EventStore, from: number, position: number): Promise<void> {
  let reached = 0;
  const witness = store.subscribeToAll({
    fromPosition: from,
    onEvent: (e) => void (reached = e.position),
    onPositionReached: (p) => void (reached = p),
  });
  try {
    await eventually(() => reached >= position, 10_000, 5);
  } finally {
    await witness.close();
  }
}

export function eventStoreContract(
  name: string,
  makeStore: () => Promise<EventStore>,
  /** Runs after the suite; default: close the store. */
  cleanup?: (store: EventStore) => Promise<void>,
): void {
  describe(`EventStore contract: ${name}`, () => {
    let store: EventStore;
    const run = randomUUID().slice(0, 8);
    let streamCount = 0;
    /** A stream no other test (or earlier run against the same server) has touched. */
    const newStream = () => `contract_${run}-${++streamCount}`;

    beforeAll(async () => {
      store = await makeStore();
    });

    afterAll(async () => {
      await (cleanup ? cleanup(store) : store.close());
    });

    async function expectWrongVersion(
      stream: string,
      append: NewEvent[],
      expected: ExpectedRevision,
      actual: number,
    ): Promise<void> {
      const before = await store.readStream(stream);
      const error = await appendOne(store, stream, append, expected).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(WrongExpectedVersionError);
      expect(error).toMatchObject({ streamName: stream, expected, actual });
      expect(await store.readStream(stream)).toEqual(before);
    }

    describe('revisions', () => {
      it('numbers events of a stream from 0', async () => {
        const stream = newStream();
        const first = await appendOne(store, stream, events(1), 'no_stream');
        expect(first.nextExpectedRevision).toBe(0);
        const second = await appendOne(store, stream, events(2), 0);
        expect(second.nextExpectedRevision).toBe(2);
        expect(second.position).toBeGreaterThan(first.position);
        expect((await store.readStream(stream)).map((e) => e.revision)).toEqual([0, 1, 2]);
        expect(await store.streamRevision(stream)).toBe(2);
      });

      it('decides concurrent appends one by one: of rivals at one revision exactly one wins, other streams are untouched', async () => {
        const contested = newStream();
        const others = [newStream(), newStream(), newStream()];
        await appendOne(store, contested, events(1), 'no_stream');
        const rivals = Array.from({ length: 5 }, () => appendOne(store, contested, events(1), 0));
        const calm = others.map((s) => appendOne(store, s, events(2), 'no_stream'));
        const settled = await Promise.allSettled([...rivals, ...calm]);
        const rivalOutcomes = settled.slice(0, 5);
        expect(rivalOutcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        for (const o of rivalOutcomes)
          if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(WrongExpectedVersionError);
        expect(settled.slice(5).every((o) => o.status === 'fulfilled')).toBe(true);
        expect(await store.streamRevision(contested)).toBe(1);
        for (const s of others) expect(await store.streamRevision(s)).toBe(1);
      });

      it('reports -1 and no events for a stream that does not exist', async () => {
        const stream = newStream();
        expect(await store.streamRevision(stream)).toBe(-1);
        expect(await store.readStream(stream)).toEqual([]);
      });
    });

    describe('expected revision', () => {
      it("'any' appends whether or not the stream exists", async () => {
        const stream = newStream();
        expect((await appendOne(store, stream, events(1), 'any')).nextExpectedRevision).toBe(0);
        expect((await appendOne(store, stream, events(1), 'any')).nextExpectedRevision).toBe(1);
      });

      it("'no_stream' appends to a new stream only", async () => {
        const stream = newStream();
        await appendOne(store, stream, events(2), 'no_stream');
        await expectWrongVersion(stream, events(1), 'no_stream', 1);
      });

      it("'stream_exists' appends to an existing stream only", async () => {
        const stream = newStream();
        await expectWrongVersion(stream, events(1), 'stream_exists', -1);
        await appendOne(store, stream, events(1), 'no_stream');
        expect((await appendOne(store, stream, events(1), 'stream_exists')).nextExpectedRevision).toBe(1);
      });

      it('an exact revision appends only when it is the current one', async () => {
        const stream = newStream();
        await expectWrongVersion(stream, events(1), 0, -1);
        await appendOne(store, stream, events(2), 'no_stream');
        await expectWrongVersion(stream, events(1), 0, 1);
        await expectWrongVersion(stream, events(1), 5, 1);
        expect((await appendOne(store, stream, events(1), 1)).nextExpectedRevision).toBe(2);
      });
    });

    describe('atomicity and idempotency', () => {
      it('appends several events in one go, contiguous in the stream and ordered in the log', async () => {
        const stream = newStream();
        const batch = events(3);
        const result = await appendOne(store, stream, batch, 'no_stream');
        const stored = await store.readStream(stream);
        expect(stored.map((e) => e.id)).toEqual(batch.map((e) => e.id));
        expect(stored.map((e) => e.revision)).toEqual([0, 1, 2]);
        expect(stored[1].position).toBeGreaterThan(stored[0].position);
        expect(stored[2].position).toBeGreaterThan(stored[1].position);
        expect(result).toEqual({ nextExpectedRevision: 2, position: stored[2].position });
      });

      it('writes nothing of a multi-event append that fails its revision check', async () => {
        const stream = newStream();
        await appendOne(store, stream, events(1), 'no_stream');
        await expectWrongVersion(stream, events(3), 'no_stream', 0);
        expect(await store.streamRevision(stream)).toBe(0);
      });

      it('writes a retried append once and returns the original result', async () => {
        const stream = newStream();
        const head = event();
        await appendOne(store, stream, [head], 'no_stream');
        const batch = events(2);
        const original = await appendOne(store, stream, batch, 0);
        expect(await appendOne(store, stream, batch, 0)).toEqual(original);
        expect(await appendOne(store, stream, batch, 'any')).toEqual(original);
        expect((await store.readStream(stream)).map((e) => e.id)).toEqual([head, ...batch].map((e) => e.id));
      });

      it('returns the original result for a retried first append with no_stream', async () => {
        const stream = newStream();
        const batch = events(2);
        const original = await appendOne(store, stream, batch, 'no_stream');
        expect(await appendOne(store, stream, batch, 'no_stream')).toEqual(original);
        expect(await store.streamRevision(stream)).toBe(1);
      });

      it('rejects an append of which only some events are already stored', async () => {
        const stream = newStream();
        const [a, b] = events(2);
        await appendOne(store, stream, [a, b], 'no_stream');
        await expectWrongVersion(stream, [b, event()], 0, 1);
        expect(await store.streamRevision(stream)).toBe(1);
      });
    });

    describe('atomic appends to several streams', () => {
      const expectConflict = async (
        appends: Parameters<EventStore['appendToStreams']>[0],
        stream: string,
        actual: number,
      ) => {
        const touched = await Promise.all(appends.map((a) => store.readStream(a.stream)));
        const error = await store.appendToStreams(appends).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error).toBeInstanceOf(WrongExpectedVersionError);
        expect(error).toMatchObject({ streamName: stream, actual });
        expect(await Promise.all(appends.map((a) => store.readStream(a.stream)))).toEqual(touched);
      };

      it('writes every stream at its expected revision, in request order in the log', async () => {
        const [a, b, c] = [newStream(), newStream(), newStream()];
        await appendOne(store, b, events(2), 'no_stream');
        const start = await store.headPosition();
        const first = event('A');
        const [second, third] = [event('B'), event('B')];
        const last = event('C');
        const result: AppendResult = await store.appendToStreams([
          { stream: a, events: [first], expectedRevision: 'no_stream' },
          { stream: b, events: [second, third], expectedRevision: 1 },
          { stream: c, events: [last], expectedRevision: 'any' },
        ]);
        expect(result.revisions).toEqual({ [a]: 0, [b]: 3, [c]: 0 });
        const logged = (await store.readAll({ fromPosition: start })).filter((e) => [a, b, c].includes(e.streamName));
        expect(logged.map((e) => e.id)).toEqual([first, second, third, last].map((e) => e.id));
        expect(result.position).toBe(logged[logged.length - 1].position);
        expect((await store.readStream(b)).map((e) => e.revision)).toEqual([0, 1, 2, 3]);
      });

      it('writes nothing when any one stream is not at its expected revision, and names that stream', async () => {
        const [a, b, c] = [newStream(), newStream(), newStream()];
        await appendOne(store, b, events(1), 'no_stream');
        await appendOne(store, c, events(3), 'no_stream');
        await expectConflict(
          [
            { stream: a, events: events(1), expectedRevision: 'no_stream' },
            { stream: b, events: events(1), expectedRevision: 0 },
            { stream: c, events: events(1), expectedRevision: 1 },
          ],
          c,
          2,
        );
        await expectConflict(
          [
            { stream: a, events: events(2), expectedRevision: 'no_stream' },
            { stream: b, events: events(1), expectedRevision: 'no_stream' },
          ],
          b,
          0,
        );
        expect(await store.streamRevision(a)).toBe(-1);
      });

      it('of concurrent appends that share a stream at one revision, exactly one writes, all of it', async () => {
        const shared = newStream();
        await appendOne(store, shared, events(1), 'no_stream');
        const own = Array.from({ length: 6 }, () => newStream());
        const outcomes = await Promise.allSettled(
          own.map((stream) =>
            store.appendToStreams([
              { stream, events: events(2), expectedRevision: 'no_stream' },
              { stream: shared, events: events(1), expectedRevision: 0 },
            ]),
          ),
        );
        const won = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [i] : []));
        expect(won).toHaveLength(1);
        for (const o of outcomes)
          if (o.status === 'rejected')
            expect(o.reason).toMatchObject({ name: 'WrongExpectedVersionError', streamName: shared, actual: 1 });
        for (const [i, stream] of own.entries())
          expect(await store.streamRevision(stream)).toBe(won.includes(i) ? 1 : -1);
        expect(await store.streamRevision(shared)).toBe(1);
      });

      it('answers a full retry with the same event ids with the first result, writing nothing twice', async () => {
        const [a, b] = [newStream(), newStream()];
        await appendOne(store, b, events(1), 'no_stream');
        const appends = [
          { stream: a, events: events(2), expectedRevision: 'no_stream' as const },
          { stream: b, events: events(1), expectedRevision: 0 },
        ];
        const original = await store.appendToStreams(appends);
        expect(await store.appendToStreams(appends)).toEqual(original);
        expect(await store.streamRevision(a)).toBe(1);
        expect(await store.streamRevision(b)).toBe(1);
      });

      it('refuses a retry of which only some events were written', async () => {
        const [a, b] = [newStream(), newStream()];
        const written = events(1);
        await appendOne(store, a, written, 'no_stream');
        await expectConflict(
          [
            { stream: a, events: written, expectedRevision: 'no_stream' },
            { stream: b, events: events(1), expectedRevision: 'no_stream' },
          ],
          a,
          0,
        );
      });

      it('refuses a stream named twice or a stream without events, writing nothing', async () => {
        const a = newStream();
        await expect(
          store.appendToStreams([
            { stream: a, events: events(1), expectedRevision: 'any' },
            { stream: a, events: events(1), expectedRevision: 'any' },
          ]),
        ).rejects.toThrow(/appears twice/);
        await expect(store.appendToStreams([{ stream: a, events: [], expectedRevision: 'any' }])).rejects.toThrow(
          /no events/,
        );
        expect(await store.streamRevision(a)).toBe(-1);
      });

      it('refuses an event holding a non-finite number (NaN, Infinity) anywhere in its data or metadata, writing nothing of the append', async () => {
        const [a, b] = [newStream(), newStream()];
        const refusals: [unknown, EventMetadata, RegExp][] = [
          [{ effects: { points: Infinity } }, metadata, /non-finite number at data\.effects\.points/],
          [{ prizes: [{ amount: 1 }, { amount: NaN }] }, metadata, /non-finite number at data\.prizes\[1\]\.amount/],
          [-Infinity, metadata, /non-finite number at data$/],
          [{ n: 1 }, { ...metadata, catalogVersion: Infinity }, /non-finite number at metadata\.catalogVersion/],
        ];
        for (const [data, meta, message] of refusals) {
          await expect(
            store.appendToStreams([
              { stream: a, events: events(1), expectedRevision: 'any' },
              { stream: b, events: [{ ...event('Happened', data), metadata: meta }], expectedRevision: 'any' },
            ]),
          ).rejects.toThrow(message);
        }
        expect([await store.streamRevision(a), await store.streamRevision(b)]).toEqual([-1, -1]);
      });

      it('hands each event of a multi-stream append to a subscription once, in log order', async () => {
        const [a, b] = [newStream(), newStream()];
        const start = await store.headPosition();
        const seen: string[] = [];
        let reached = 0;
        const subscription = store.subscribeToAll({
          fromPosition: start,
          onEvent: (e) => {
            reached = e.position;
            if (e.streamName === a || e.streamName === b) seen.push(e.id);
          },
        });
        try {
          const appended: string[] = [];
          for (let i = 0; i < 3; i++) {
            const batch = [
              { stream: a, events: events(1), expectedRevision: i === 0 ? ('no_stream' as const) : i - 1 },
              { stream: b, events: events(2), expectedRevision: i === 0 ? ('no_stream' as const) : 2 * i - 1 },
            ];
            await store.appendToStreams(batch);
            appended.push(...batch.flatMap((x) => x.events.map((e) => e.id)));
          }
          // Delivered in log order: once an event appended after them is, nothing more of them comes.
          const after = await appendOne(store, newStream(), events(1), 'no_stream');
          await eventually(() => reached >= after.position, 10_000, 5);
          expect(seen).toEqual(appended);
        } finally {
          await subscription.close();
        }
      });
    });

    describe('reading', () => {
      it('reads a stream from a revision, at most maxCount events', async () => {
        const stream = newStream();
        await appendOne(store, stream, events(5), 'no_stream');
        const revisions = async (options: { fromRevision?: number; maxCount?: number }) =>
          (await store.readStream(stream, options)).map((e) => e.revision);
        expect(await revisions({ fromRevision: 2 })).toEqual([2, 3, 4]);
        expect(await revisions({ maxCount: 2 })).toEqual([0, 1]);
        expect(await revisions({ fromRevision: 1, maxCount: 3 })).toEqual([1, 2, 3]);
        expect(await revisions({ fromRevision: 5 })).toEqual([]);
      });

      it('reads the global log in position order, after an exclusive position', async () => {
        const streams = [newStream(), newStream()];
        const start = await store.headPosition();
        await appendOne(store, streams[0], events(2), 'no_stream');
        const middle = await appendOne(store, streams[1], events(1), 'no_stream');
        await appendOne(store, streams[0], events(1), 1);
        expect(await store.headPosition()).toBeGreaterThanOrEqual(middle.position);

        const mine = (all: RecordedEvent[]) => all.filter((e) => streams.includes(e.streamName));
        const all = mine(await store.readAll({ fromPosition: start }));
        expect(all.map((e) => [e.streamName, e.revision])).toEqual([
          [streams[0], 0],
          [streams[0], 1],
          [streams[1], 0],
          [streams[0], 2],
        ]);
        for (let i = 1; i < all.length; i += 1) expect(all[i].position).toBeGreaterThan(all[i - 1].position);

        const after = mine(await store.readAll({ fromPosition: middle.position }));
        expect(after.map((e) => [e.streamName, e.revision])).toEqual([[streams[0], 2]]);
        expect(await store.readAll({ fromPosition: start, maxCount: 2 })).toHaveLength(2);
      });

      it('reads the global log restricted to stream prefixes, maxCount counting only those', async () => {
        // Prefixes of this run's own streams: another test's events cannot match them.
        const kept = [`${newStream()}-kept`, `${newStream()}-also`];
        const other = newStream();
        const start = await store.headPosition();
        await appendOne(store, kept[0], events(1), 'no_stream');
        await appendOne(store, other, events(2), 'no_stream');
        await appendOne(store, kept[1], events(1), 'no_stream');
        await appendOne(store, kept[0], events(1), 0);
        const read = async (options: { fromPosition?: number; maxCount?: number }) =>
          (await store.readAll({ fromPosition: start, ...options, streamPrefixes: kept })).map((e) => [
            e.streamName,
            e.revision,
          ]);
        expect(await read({})).toEqual([
          [kept[0], 0],
          [kept[1], 0],
          [kept[0], 1],
        ]);
        expect(await read({ maxCount: 2 })).toEqual([
          [kept[0], 0],
          [kept[1], 0],
        ]);
        expect(await store.readAll({ fromPosition: start, streamPrefixes: [] })).toEqual([]);
        // A prefix matches the start of a name only, case and all.
        expect(await store.readAll({ fromPosition: start, streamPrefixes: [kept[0].toUpperCase(), 'kept'] })).toEqual(
          [],
        );
      });

      it('round-trips data and metadata exactly', async () => {
        const stream = newStream();
        const data = {
          amount: 0.1,
          sum: 0.1 + 0.2,
          negative: -42.5,
          big: Number.MAX_SAFE_INTEGER,
          text: 'héllo wörld ✓ 日本語 🎉 "quoted" \\ back\nline',
          nested: { list: [1, 'two', { three: [null, true, false] }], empty: {}, none: null },
        };
        const meta: EventMetadata = { ...metadata, extra: { trace: ['a', 'ü'], ratio: 0.3 } };
        const appended: NewEvent = { id: randomUUID(), type: 'Ünïcode_Type', data, metadata: meta };
        await appendOne(store, stream, [appended], 'no_stream');
        const [stored] = await store.readStream(stream);
        expect(stored).toMatchObject({ id: appended.id, type: appended.type, streamName: stream, revision: 0 });
        expect(stored.data).toStrictEqual(data);
        expect(stored.metadata).toStrictEqual(meta);
        expect(typeof stored.createdAt).toBe('number');
        const [fromLog] = (await store.readAll({ fromPosition: stored.position - 1, maxCount: 1 })).filter(
          (e) => e.id === appended.id,
        );
        expect(fromLog).toStrictEqual(stored);
      });
    });

    describe('subscription to the log', () => {
      it('catches up after an exclusive position, then delivers live events in order', async () => {
        const stream = newStream();
        const first = await appendOne(store, stream, events(1), 'no_stream');
        await appendOne(store, stream, events(2), 0);
        const seen: number[] = [];
        const subscription = store.subscribeToAll({
          fromPosition: first.position,
          onEvent: (e) => {
            if (e.streamName === stream) seen.push(e.revision);
          },
        });
        try {
          await eventually(() => seen.length === 2, 10_000, 5);
          await appendOne(store, stream, events(2), 2);
          await eventually(() => seen.length === 4, 10_000, 5);
          expect(seen).toEqual([1, 2, 3, 4]);
        } finally {
          await subscription.close();
        }
      });

      it('waits for each handler to finish before delivering the next event', async () => {
        const stream = newStream();
        const start = await store.headPosition();
        const seen: number[] = [];
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        const subscription = store.subscribeToAll({
          fromPosition: start,
          onEvent: async (e) => {
            if (e.streamName !== stream) return;
            seen.push(e.revision);
            if (e.revision === 0) await released;
          },
        });
        try {
          const written = await appendOne(store, stream, events(2), 'no_stream');
          await eventually(() => seen.length === 1, 10_000, 5);
          await deliveredTo(store, start, written.position);
          expect(seen).toEqual([0]);
          release();
          await eventually(() => seen.length === 2, 10_000, 5);
          expect(seen).toEqual([0, 1]);
        } finally {
          await subscription.close();
        }
      });

      it('delivers nothing after close, which waits for the handler in flight', async () => {
        const stream = newStream();
        const start = await store.headPosition();
        const seen: number[] = [];
        let handlerDone = false;
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        const subscription = store.subscribeToAll({
          fromPosition: start,
          onEvent: async (e) => {
            if (e.streamName !== stream) return;
            seen.push(e.revision);
            await released;
            handlerDone = true;
          },
        });
        await appendOne(store, stream, events(1), 'no_stream');
        await eventually(() => seen.length === 1, 10_000, 5);

        const closed = subscription.close().then(() => handlerDone);
        await appendOne(store, stream, events(1), 0);
        // The append lands while close waits for the handler.
        await new Promise((resolve) => setTimeout(resolve, 50));
        release();
        expect(await closed).toBe(true);
        const last = await appendOne(store, stream, events(1), 1);
        await deliveredTo(store, start, last.position);
        expect(seen).toEqual([0]);
      });

      it('delivers every event of the types asked for, in order, and reads on past the others', async () => {
        const stream = newStream();
        const start = await store.headPosition();
        const seen: string[] = [];
        let reached = 0;
        const subscription = store.subscribeToAll({
          fromPosition: start,
          eventTypes: new Set(['Kept']),
          onEvent: (e) => {
            reached = e.position;
            // A store may deliver the others too (the filter is a hint): the subscriber skips them.
            if (e.streamName === stream && e.type === 'Kept') seen.push(`${e.revision}:${(e.data as { n: number }).n}`);
          },
          onPositionReached: (position) => {
            expect(position).toBeGreaterThan(reached);
            reached = position;
          },
        });
        try {
          // Caught up from the log, then handed over live, ending on events of another type.
          await appendOne(
            store,
            stream,
            [event('Kept', { n: 0 }), event('Other'), event('Kept', { n: 2 })],
            'no_stream',
          );
          await eventually(() => seen.length === 2, 10_000, 5);
          const last = await appendOne(store, stream, [event('Other'), event('Kept', { n: 4 }), event('Other')], 2);
          await eventually(() => reached >= last.position, 10_000, 5);
          expect(seen).toEqual(['0:0', '2:2', '4:4']);
        } finally {
          await subscription.close();
        }
        // From a position, over what is already written: caught up by reading.
        const again: string[] = [];
        let caughtUp = 0;
        const end = await store.headPosition();
        const reader = store.subscribeToAll({
          fromPosition: start,
          eventTypes: new Set(['Kept']),
          onEvent: (e) => {
            caughtUp = e.position;
            if (e.streamName === stream && e.type === 'Kept') again.push(`${e.revision}`);
          },
          onPositionReached: (position) => void (caughtUp = position),
        });
        try {
          await eventually(() => caughtUp >= end, 10_000, 5);
          expect(again).toEqual(['0', '2', '4']);
        } finally {
          await reader.close();
        }
      });

      it('stops and reports the error when a handler throws', async () => {
        const stream = newStream();
        const start = await store.headPosition();
        const seen: number[] = [];
        const errors: Error[] = [];
        const subscription = store.subscribeToAll({
          fromPosition: start,
          onEvent: (e) => {
            if (e.streamName !== stream) return;
            seen.push(e.revision);
            throw new Error('handler failed');
          },
          onError: (error) => errors.push(error),
        });
        try {
          const written = await appendOne(store, stream, events(2), 'no_stream');
          await eventually(() => errors.length === 1, 10_000, 5);
          expect(errors[0].message).toBe('handler failed');
          await deliveredTo(store, start, written.position);
          expect(seen).toEqual([0]);
        } finally {
          await subscription.close();
        }
      });
    });
  });
}
