/**
 * What a verification keeps in memory of the documents its replay changes (ChangesNoted): at most
 * MAX_NOTED_IDS _ids a collection, then the whole collection, whose suspects are read again
 * rather than settled; and nothing while the first, whole-log replay runs.
 */
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import { ChangesNoted, MAX_NOTED_IDS } from './verify';

describe('ChangesNoted', () => {
  it('notes _ids up to MAX_NOTED_IDS a collection, then the whole collection', async () => {
    const noted = new ChangesNoted(new MemoryReadStore());
    const docs = noted.collection('docs');
    for (let i = 0; i < MAX_NOTED_IDS; i++) await docs.insertOne({ _id: `d${i}` });
    await noted.collection('other').insertOne({ _id: 'o1' });
    expect(noted.changedSince('docs', 'd0')).toBe(true);
    expect(noted.changedSince('docs', 'never')).toBe(false);
    expect((noted.changed.get('docs') as Set<string>).size).toBe(MAX_NOTED_IDS);

    await docs.replaceOne({ _id: 'one-more' }, { _id: 'one-more' }, { upsert: true });
    // Any _id of it may have changed now; the other collection is still told apart by _id.
    expect(noted.changed.get('docs')).toBe(true);
    expect(noted.changedSince('docs', 'never')).toBe(true);
    expect(noted.changedSince('other', 'o1')).toBe(true);
    expect(noted.changedSince('other', 'o2')).toBe(false);
  });

  it('notes nothing while not noting, and writes all the same', async () => {
    const store = new MemoryReadStore();
    const noted = new ChangesNoted(store);
    noted.noting = false;
    await noted.collection('docs').insertOne({ _id: 'd1' });
    await noted.dropCollection('gone');
    expect(noted.changed.size).toBe(0);
    expect(await store.collection('docs').findOne({ _id: 'd1' })).toEqual({ _id: 'd1' });
  });
});
