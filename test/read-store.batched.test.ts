import { BatchedReadStore } from '../shared/adapters/read-store/batched';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import type { Collection, ReadStore, UpdateResult, WriteOperation } from '../shared/adapters/read-store/port';

/** A memory store that counts the writes of its bulkWrites, and can fail the next ones. */
function countingStore() {
  const store = new MemoryReadStore();
  const counted = { writes: 0, failNext: 0 };
  const collection = store.collection.bind(store);
  store.collection = ((name: string) => {
    const inner = collection(name);
    const wrapped: Collection = Object.create(inner);
    wrapped.bulkWrite = async (operations: WriteOperation[]) => {
      if (counted.failNext > 0) {
        counted.failNext--;
        throw new Error('store out of reach');
      }
      counted.writes += operations.length;
      return inner.bulkWrite(operations);
    };
    return wrapped;
  }) as ReadStore['collection'];
  return { store, counted };
}

/** A promise and the function that resolves it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/**
 * A memory store whose next bulkWrite or findOne is held until the test opens its gate: the test
 * decides what happens while a flush writes or a read is under way.
 */
function drivenStore() {
  const store = new MemoryReadStore();
  const held: { bulkWrite?: ReturnType<typeof gate>; findOne?: ReturnType<typeof gate> } = {};
  const reached = { bulkWrite: gate(), findOne: gate() };
  const collection = store.collection.bind(store);
  store.collection = ((name: string) => {
    const inner = collection(name);
    const wrapped: Collection = Object.create(inner);
    // A held write lands once its gate is opened; a held read reads at once and answers then.
    wrapped.bulkWrite = async (operations) => {
      const waiting = held.bulkWrite;
      held.bulkWrite = undefined;
      reached.bulkWrite.open();
      await waiting?.opened;
      return inner.bulkWrite(operations);
    };
    wrapped.findOne = async (filter) => {
      const waiting = held.findOne;
      held.findOne = undefined;
      const found = await inner.findOne(filter);
      reached.findOne.open();
      await waiting?.opened;
      return found;
    };
    return wrapped;
  }) as ReadStore['collection'];
  /** Holds the next call of `method` until the gate returned is opened; `reached` resolves once it is called. */
  const hold = (method: 'bulkWrite' | 'findOne') => {
    reached[method] = gate();
    return { gate: (held[method] = gate()), reached: reached[method].opened };
  };
  return { store, hold };
}

describe('BatchedReadStore', () => {
  it('gathers replacements: reads see them at once, the store underneath once flushed, each document written once', async () => {
    const { store, counted } = countingStore();
    await store.collection('days').insertOne({ _id: 'd1', n: 0 });
    const batch = new BatchedReadStore(store);
    const days = batch.collection<{ _id: string; n: number }>('days');
    for (let i = 0; i < 5; i++) {
      const doc = (await days.findOne({ _id: 'd1' }))!;
      await days.replaceOne({ _id: 'd1' }, { ...doc, n: doc.n + 1 }, { upsert: true });
      await days.replaceOne({ _id: `new-${i % 2}` }, { _id: `new-${i % 2}`, n: i }, { upsert: true });
    }
    expect(await days.findOne({ _id: 'd1' })).toEqual({ _id: 'd1', n: 5 });
    expect(await store.collection('days').findOne({ _id: 'd1' })).toEqual({ _id: 'd1', n: 0 });
    expect(batch.pending).toBe(3);
    await batch.flush();
    expect(counted.writes).toBe(3);
    expect(await store.collection('days').find({}, { sort: { _id: 1 } })).toEqual([
      { _id: 'd1', n: 5 },
      { _id: 'new-0', n: 4 },
      { _id: 'new-1', n: 3 },
    ]);
  });

  it('reports what a replacement matched, and does not insert without upsert', async () => {
    const batch = new BatchedReadStore(new MemoryReadStore());
    const c = batch.collection('c');
    const counts = ({ matchedCount, modifiedCount, upsertedCount }: UpdateResult) => ({
      matchedCount,
      modifiedCount,
      upsertedCount,
    });
    expect(await c.replaceOne({ _id: 'a' }, { _id: 'a', v: 1 })).toEqual({
      matchedCount: 0,
      modifiedCount: 0,
      upsertedCount: 0,
    });
    expect(await c.replaceOne({ _id: 'a' }, { _id: 'a', v: 1 }, { upsert: true })).toEqual({
      matchedCount: 0,
      modifiedCount: 0,
      upsertedCount: 1,
    });
    expect(counts(await c.replaceOne({ _id: 'a' }, { _id: 'a', v: 1 }))).toEqual({
      matchedCount: 1,
      modifiedCount: 0,
      upsertedCount: 0,
    });
    expect(counts(await c.replaceOne({ _id: 'a' }, { _id: 'a', v: 2 }))).toEqual({
      matchedCount: 1,
      modifiedCount: 1,
      upsertedCount: 0,
    });
  });

  it('writes what it gathered before any other query or write, which then see it', async () => {
    const store = new MemoryReadStore();
    const batch = new BatchedReadStore(store);
    const c = batch.collection<{ _id: string; n: number }>('c');
    await c.replaceOne({ _id: 'a' }, { _id: 'a', n: 1 }, { upsert: true });
    expect(await c.countDocuments({ n: 1 })).toBe(1);
    await c.replaceOne({ _id: 'a' }, { _id: 'a', n: 2 }, { upsert: true });
    await c.updateOne({ _id: 'a' }, { $inc: { n: 10 } });
    // Read again after the update operator changed it underneath.
    expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 12 });
    expect(await store.collection('c').findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 12 });
  });

  it('keeps what a failed flush did not write for the next one', async () => {
    const { store, counted } = countingStore();
    const batch = new BatchedReadStore(store);
    await batch.collection('c').replaceOne({ _id: 'a' }, { _id: 'a', v: 1 }, { upsert: true });
    counted.failNext = 1;
    await expect(batch.flush()).rejects.toThrow('store out of reach');
    expect(batch.pending).toBe(1);
    await batch.flush();
    expect(batch.pending).toBe(0);
    expect(await store.collection('c').findOne({ _id: 'a' })).toEqual({ _id: 'a', v: 1 });
  });

  it('frozen: changing a document read or handed over throws', async () => {
    const store = new MemoryReadStore();
    await store.collection('c').insertOne({ _id: 'a', days: { d1: 1 }, latest: [['r', 1, 5]] });
    const batch = new BatchedReadStore(store, { frozen: true });
    const c = batch.collection<{ _id: string; days: Record<string, number>; latest: unknown[][] }>('c');
    const read = (await c.findOne({ _id: 'a' }))!;
    expect(() => (read.days.d2 = 2)).toThrow(TypeError);
    expect(() => read.latest[0].push(1)).toThrow(TypeError);
    const replacement = { ...read, days: { ...read.days, d2: 2 } as Record<string, number> };
    await c.replaceOne({ _id: 'a' }, replacement, { upsert: true });
    expect(() => (replacement.days.d3 = 3)).toThrow(TypeError);
    await batch.flush();
    expect(await store.collection('c').findOne({ _id: 'a' })).toEqual({
      _id: 'a',
      days: { d1: 1, d2: 2 },
      latest: [['r', 1, 5]],
    });
  });

  it('writes a document first read while a flush writes, though the flush forgets the entries it wrote', async () => {
    const { store, hold } = drivenStore();
    const batch = new BatchedReadStore(store);
    const players = batch.collection<{ _id: string; n: number }>('players');
    await players.replaceOne({ _id: 'a' }, { _id: 'a', n: 1 }, { upsert: true });
    const write = hold('bulkWrite');
    const flushed = batch.flush();
    await write.reached;
    // A projector registers a new player while the flush writes 'a': its read of 'b' ends after the flush.
    const read = hold('findOne');
    const registered = players.replaceOne({ _id: 'b' }, { _id: 'b', n: 1 }, { upsert: true });
    await read.reached;
    write.gate.open();
    await flushed;
    read.gate.open();
    await registered;
    expect(batch.pending).toBe(1);
    await batch.flush();
    expect(batch.pending).toBe(0);
    expect(await store.collection('players').find({}, { sort: { _id: 1 } })).toEqual([
      { _id: 'a', n: 1 },
      { _id: 'b', n: 1 },
    ]);
  });

  it('reads a document again when a flush wrote it while the first read was under way', async () => {
    const { store, hold } = drivenStore();
    await store.collection('players').insertOne({ _id: 'a', n: 0 });
    const batch = new BatchedReadStore(store);
    const players = batch.collection<{ _id: string; n: number }>('players');
    // One reader's read of 'a' is under way, older than what another writes and flushes meanwhile.
    const read = hold('findOne');
    const stale = players.findOne({ _id: 'a' });
    await read.reached;
    await players.replaceOne({ _id: 'a' }, { _id: 'a', n: 1 }, { upsert: true });
    await batch.flush();
    read.gate.open();
    expect(await stale).toEqual({ _id: 'a', n: 1 });
  });

  it('writes a replacement made while a query writes the batch, before the query reads the store underneath', async () => {
    const { store, hold } = drivenStore();
    const batch = new BatchedReadStore(store);
    const players = batch.collection<{ _id: string; n: number }>('players');
    await players.replaceOne({ _id: 'a' }, { _id: 'a', n: 1 }, { upsert: true });
    const write = hold('bulkWrite');
    const counted = players.countDocuments({});
    await write.reached;
    await players.replaceOne({ _id: 'b' }, { _id: 'b', n: 1 }, { upsert: true });
    write.gate.open();
    expect(await counted).toBe(2);
    expect(batch.pending).toBe(0);
    expect(await store.collection('players').countDocuments({})).toBe(2);
  });
});
