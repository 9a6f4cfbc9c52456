import type { Sort } from '../shared/read-store/port';
import { MemoryReadStore } from '../shared/read-store/memory';
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
      const doc: Record<string, unknown> = { _id: `d${n}`, score: Math.floor(random() * 50), at: Math.floor(random() * 5), stats: { level: Math.floor(random() * 3) } };
      if (n % 97 === 0) delete doc.score;
      if (n % 89 === 0) doc.score = `s${n % 3}`;
      await c.insertOne(doc as never);
    }
    const sorts: Sort[] = [{ score: -1, at: 1 }, { score: 1 }, { 'stats.level': -1, score: -1, at: -1 }];
    for (const sort of sorts) {
      const all = (await c.find({}, { sort })).map((d) => d._id);
      for (const [skip, limit] of [[0, 10], [5, 20], [0, 1], [30, 40]]) {
        expect([sort, skip, limit, (await c.find({}, { sort, skip, limit })).map((d) => d._id)]).toEqual([sort, skip, limit, all.slice(skip, skip + limit)]);
      }
      const filtered = (await c.find({ at: { $lt: 3 } }, { sort })).map((d) => d._id);
      expect((await c.find({ at: { $lt: 3 } }, { sort, limit: 15 })).map((d) => d._id)).toEqual(filtered.slice(0, 15));
    }
    await store.close();
  });
});
