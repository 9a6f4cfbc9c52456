import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { StoreUnavailableError } from '../shared/adapters/event-store/port';
import { ForwardedReadStore, serveReadStore } from '../shared/adapters/read-store/forwarded';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import { startWorker } from '../shared/adapters/worker-thread';
import { readStoreContract } from './contracts/read-store.contract';

/**
 * A forwarded store over a channel to a memory store in a worker thread: every call crosses a
 * MessagePort as a structured clone, as in the all-in-one process.
 */
function forwarded(): ForwardedReadStore {
  const { port1, port2 } = new MessageChannel();
  const worker = startWorker(path.join(__dirname, 'support', 'read-store-worker.ts'), { port: port2 }, [port2]);
  worker.unref();
  return new ForwardedReadStore(port1);
}

readStoreContract('forwarded to a memory store in a worker thread', async () => forwarded());

describe('ForwardedReadStore', () => {
  it('answers with copies: changing a document read does not change the one held', async () => {
    const store = forwarded();
    await store.collection('c').insertOne({ _id: 'a', list: [1] });
    const read = await store.collection('c').findOne({ _id: 'a' });
    (read!.list as number[]).push(2);
    expect(await store.collection('c').findOne({ _id: 'a' })).toEqual({ _id: 'a', list: [1] });
    await store.close();
  });

  it('fails the calls under way and every later one once the thread holding the store is gone', async () => {
    const { port1 } = new MessageChannel();
    // Nothing serves this port: the call stays under way until the store is failed.
    const store = new ForwardedReadStore(port1);
    const underWay = store.collection('c').findOne({ _id: 'a' });
    store.fail(new StoreUnavailableError('the projections worker ended'));
    await expect(underWay).rejects.toThrow('the projections worker ended');
    await expect(store.listCollections()).rejects.toBeInstanceOf(StoreUnavailableError);
    port1.close();
  });

  it('refuses a method the port does not have', async () => {
    const { port1, port2 } = new MessageChannel();
    serveReadStore(new MemoryReadStore(), port2);
    port2.unref();
    port1.unref();
    const answer = new Promise((resolve) => port1.once('message', resolve));
    port1.postMessage({ id: 1, collection: null, method: 'constructor', args: [] });
    expect(await answer).toEqual({ id: 1, error: { name: 'Error', message: 'not a ReadStore method: constructor' } });
    port1.close();
  });
});
