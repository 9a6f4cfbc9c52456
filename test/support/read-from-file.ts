/**
 * A FileBackedReadStore that writes after every call and caches nothing: each document leaves
 * memory as soon as it is stored, and every read of one comes back from the file. Run through the
 * contract and the standings property, it shows the answers do not depend on what memory holds.
 */
import { FileBackedReadStore } from '../../shared/adapters/read-store/file-backed';
import type { Collection, Document, ReadStore } from '../../shared/adapters/read-store/port';

export function readingFromFile(file: string): FileBackedReadStore {
  const store = new FileBackedReadStore(
    file,
    (error) => {
      throw error;
    },
    { cachedDocuments: 0 },
  );
  const collection = store.collection.bind(store);
  const flushed =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const result = await call(...args);
      store.flush();
      return result;
    };
  store.collection = <T extends Document = Document>(name: string): Collection<T> => {
    const c = collection<T>(name);
    return {
      findOne: c.findOne.bind(c),
      find: c.find.bind(c),
      countDocuments: c.countDocuments.bind(c),
      insertOne: flushed(c.insertOne.bind(c)),
      updateOne: flushed(c.updateOne.bind(c)),
      replaceOne: flushed(c.replaceOne.bind(c)),
      deleteMany: flushed(c.deleteMany.bind(c)),
      bulkWrite: flushed(c.bulkWrite.bind(c)),
    };
  };
  const dropCollection = store.dropCollection.bind(store);
  store.dropCollection = flushed(dropCollection);
  return store satisfies ReadStore;
}
