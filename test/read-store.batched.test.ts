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
});
