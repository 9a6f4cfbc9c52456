import type { Sort } from '../shared/adapters/read-store/port';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import { OrderedIndex } from '../shared/adapters/read-store/ordered-index';
import { readStoreContract } from './contracts/read-store.contract';

readStoreContract('memory', async () => new MemoryReadStore());

// MongoDB leaves the order of sort ties unspecified; the embedded store promises insertion
// order, so a rebuilt read model lists tied documents exactly as the live one did.
describe('MemoryReadStore sort ties', () => {
  it('breaks ties by insertion order, in both directions, and keeps a replaced document in place', async () => {
    const store = new MemoryReadStore();
    const c = store.collection('ties');
    for (const _id of ['m', 'z', 'a', 'k']) await c.insertOne({ _id, score: 1 });
    await c.insertOne({ _id: 'top', score: 2 });
    await c.replaceOne({ _id: 'z' }, { _id: 'z', score: 1, note: 'replaced' });
    await c.updateOne({ _id: 'a' }, { $set: { note: 'updated' } });

    const order = async (direction: 1 | -1) => (await c.find({}, { sort: { score: direction } })).map((doc) => doc._id);
    expect(await order(1)).toEqual(['m', 'z', 'a', 'k', 'top']);
    expect(await order(-1)).toEqual(['top', 'm', 'z', 'a', 'k']);
    await store.close();
  });
});

// A small page of many matches is selected without sorting them all: the same documents, in the same order.
describe('MemoryReadStore pages of a sorted result', () => {
  it('gives the page a full sort gives, ties in insertion order, in every direction', async () => {
    const store = new MemoryReadStore();
    const c = store.collection('page');
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let n = 0; n < 2000; n++) {
      const doc: Record<string, unknown> = {
        _id: `d${n}`,
        score: Math.floor(random() * 50),
        at: Math.floor(random() * 5),
        stats: { level: Math.floor(random() * 3) },
      };
      if (n % 97 === 0) delete doc.score;
      if (n % 89 === 0) doc.score = `s${n % 3}`;
      await c.insertOne(doc as never);
    }
    const sorts: Sort[] = [{ score: -1, at: 1 }, { score: 1 }, { 'stats.level': -1, score: -1, at: -1 }];
    for (const sort of sorts) {
      const all = (await c.find({}, { sort })).map((d) => d._id);
      for (const [skip, limit] of [
        [0, 10],
        [5, 20],
        [0, 1],
        [30, 40],
      ]) {
        expect([sort, skip, limit, (await c.find({}, { sort, skip, limit })).map((d) => d._id)]).toEqual([
          sort,
          skip,
          limit,
          all.slice(skip, skip + limit),
        ]);
      }
      const filtered = (await c.find({ at: { $lt: 3 } }, { sort })).map((d) => d._id);
      expect((await c.find({ at: { $lt: 3 } }, { sort, limit: 15 })).map((d) => d._id)).toEqual(filtered.slice(0, 15));
    }
    await store.close();
  });
});

// A page's names are one lookup of their ids: each found document is taken, not tested against
// the whole list again, and unsorted they come in the order named.
describe('MemoryReadStore lookups by _id $in', () => {
  it('finds the named documents in the order named, once each, and skips missing ones', async () => {
    const store = new MemoryReadStore();
    const c = store.collection('names');
    for (const _id of ['a', 'b', 'c', 'd']) await c.insertOne({ _id });
    expect((await c.find({ _id: { $in: ['c', 'zz', 'a', 'c'] } })).map((d) => d._id)).toEqual(['c', 'a']);
    expect((await c.find({ _id: { $in: ['d', 'b'] } }, { limit: 1 })).map((d) => d._id)).toEqual(['d']);
    await store.close();
  });
});

// The ordered index (ordered-index.ts) answers exactly as the scan it replaces: ties of every
// field in insertion order, a replaced document in its place, a scan again where values of
// other types or arrays would make the two differ.
describe('MemoryReadStore queries answered by an index', () => {
  const keys = { board: 1, period: 1, score: -1, at: 1 } as const;
  const sort = { score: -1, at: 1 } as const;

  it('gives what the same writes and queries give on a collection without one, and answers from the index', async () => {
    const store = new MemoryReadStore();
    await store.ensureIndex('indexed', keys);
    const indexed = store.collection('indexed');
    const plain = store.collection('plain');
    const answered = jest.spyOn(OrderedIndex.prototype, 'slotsAt');
    let seed = 11;
    const random = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
    // 6,000 documents: a tree three levels deep (leaves split at 64 entries), its nodes split and merged by the churn.
    const ids = Array.from({ length: 6_000 }, (_, i) => `d${i}`);
    const rowOf = (id: string) => ({
      _id: id,
      board: `b${random(2)}`,
      period: 'all',
      score: random(40),
      at: random(3),
    });
    const both = async (write: (c: typeof plain) => Promise<unknown>) => {
      await write(indexed);
      await write(plain);
    };
    const compareQueries = async () => {
      for (const board of ['b0', 'b1']) {
        const filter = { board, period: 'all' };
        for (const [skip, limit] of [
          [0, 10],
          [0, 0],
          [137, 25],
          [5000, 3],
        ]) {
          expect((await indexed.find(filter, { sort, skip, limit })).map((d) => d._id)).toEqual(
            (await plain.find(filter, { sort, skip, limit })).map((d) => d._id),
          );
        }
        for (const range of [{ $gt: 20 }, { $gte: 0, $lt: 3 }, { $lte: 39 }, { $lt: 0 }]) {
          expect(await indexed.countDocuments({ ...filter, score: range })).toBe(
            await plain.countDocuments({ ...filter, score: range }),
          );
          expect((await indexed.find({ ...filter, score: range }, { sort, limit: 7 })).map((d) => d._id)).toEqual(
            (await plain.find({ ...filter, score: range }, { sort, limit: 7 })).map((d) => d._id),
          );
        }
        expect(await indexed.countDocuments({ ...filter, score: 7, at: { $lt: 2 } })).toBe(
          await plain.countDocuments({ ...filter, score: 7, at: { $lt: 2 } }),
        );
      }
    };
    for (let i = 0; i < ids.length; i++) {
      const row = rowOf(ids[i]);
      await both((c) => c.insertOne(row));
    }
    answered.mockClear();
    await compareQueries();
    expect(answered).toHaveBeenCalled();
    for (let i = 0; i < 6_000; i++) {
      const id = ids[random(ids.length)];
      const roll = random(3);
      if (roll === 0) {
        const row = rowOf(id);
        await both((c) => c.replaceOne({ _id: id }, row, { upsert: true }));
      } else if (roll === 1) {
        const score = random(40);
        await both((c) => c.updateOne({ _id: id }, { $set: { score } }));
      } else await both((c) => c.deleteMany({ _id: id }));
    }
    await compareQueries();
    // Another type in a ranged field, then an array in an indexed one: answered by a scan, still the same.
    await both((c) =>
      c.replaceOne({ _id: 'odd' }, { _id: 'odd', board: 'b0', period: 'all', score: 'high', at: 0 }, { upsert: true }),
    );
    await compareQueries();
    await both((c) =>
      c.replaceOne(
        { _id: 'odd' },
        { _id: 'odd', board: ['b0', 'b1'], period: 'all', score: 3, at: 0 },
        { upsert: true },
      ),
    );
    answered.mockClear();
    await compareQueries();
    expect(answered).not.toHaveBeenCalled();
    await both((c) => c.deleteMany({ _id: 'odd' }));
    await compareQueries();
    expect(answered).toHaveBeenCalled();
    answered.mockRestore();
    await store.close();
  });

  it('is filled with the documents already stored when declared late, and kept across a drop', async () => {
    const store = new MemoryReadStore();
    const c = store.collection('late');
    for (const [id, score] of [
      ['a', 1],
      ['b', 3],
      ['c', 3],
      ['d', 2],
    ] as const)
      await c.insertOne({ _id: id, board: 'x', period: 'all', score, at: 0 });
    store.load('late', [{ _id: 'e', board: 'x', period: 'all', score: 3, at: 0 }]);
    // A document inserted after a deletion comes last among ties, as in the Map, before and
    // after the index is declared (the place freed is given to it, its order is not).
    await c.deleteMany({ _id: 'b' });
    await c.insertOne({ _id: 'f', board: 'x', period: 'all', score: 3, at: 0 });
    await store.ensureIndex('late', keys);
    await store.ensureIndex('late', keys);
    const page = async () => (await c.find({ board: 'x', period: 'all' }, { sort })).map((d) => d._id);
    expect(await page()).toEqual(['c', 'e', 'f', 'd', 'a']);
    await c.deleteMany({ _id: 'c' });
    await c.insertOne({ _id: 'g', board: 'x', period: 'all', score: 3, at: 0 });
    await c.insertOne({ _id: 'h', board: 'x', period: 'all', score: 3, at: 0 });
    expect(await page()).toEqual(['e', 'f', 'g', 'h', 'd', 'a']);
    await store.dropCollection('late');
    await c.insertOne({ _id: 'z', board: 'x', period: 'all', score: 1, at: 0 });
    await c.insertOne({ _id: 'y', board: 'x', period: 'all', score: 1, at: 0 });
    const answered = jest.spyOn(OrderedIndex.prototype, 'slotsAt');
    expect(await page()).toEqual(['z', 'y']);
    expect(answered).toHaveBeenCalled();
    answered.mockRestore();
    await store.close();
  });
});
