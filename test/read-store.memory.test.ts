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
