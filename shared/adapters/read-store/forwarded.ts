/**
 * A ReadStore held by another thread: each call of the port is sent to it as a message over a
 * MessagePort and answered with the result (a structured clone, so a document read is a copy, as
 * from MongoDB). `serveReadStore` answers them on the thread that holds the store. The all-in-one
 * process keeps its read models in the projections' worker this way (app/projection-thread.ts).
 */
import type { MessagePort } from 'node:worker_threads';
import { StoreUnavailableError } from '../event-store/port';
import { MemoryReadStore } from './memory';
import { DuplicateKeyError, type Collection, type Document, type IndexKeys, type ReadStore } from './port';

const COLLECTION_METHODS = new Set([
  'findOne',
  'find',
  'countDocuments',
  'insertOne',
  'updateOne',
  'replaceOne',
  'deleteMany',
  'bulkWrite',
]);
/** `flush` asks a store that writes behind (FileBackedReadStore) to write now; others have nothing to do. */
const STORE_METHODS = new Set(['ensureIndex', 'dropCollection', 'listCollections', 'flush', 'close']);

interface Request {
  id: number;
  /** null: a method of the store itself. */
  collection: string | null;
  method: string;
  args: unknown[];
}

interface SentError {
  name: string;
  message: string;
  collection?: string;
  id?: string;
}

type Answer = { id: number; value: unknown } | { id: number; error: SentError };

function sent(error: unknown): SentError {
  if (error instanceof DuplicateKeyError)
    return { name: error.name, message: error.message, collection: error.collection, id: error.id };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

/** The error the store threw, of the same class for those callers tell apart. */
function received(error: SentError): Error {
  if (error.name === 'DuplicateKeyError') return new DuplicateKeyError(error.collection!, error.id!);
  if (error.name === 'StoreUnavailableError') return new StoreUnavailableError(error.message);
  const made = new Error(error.message);
  made.name = error.name;
  return made;
}

export class ForwardedReadStore implements ReadStore {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  /** Why no call is answered any more (closed, or the thread holding the store ended). */
  private ended: Error | null = null;

  constructor(private readonly port: MessagePort) {
    port.on('message', (answer: Answer) => {
      const call = this.pending.get(answer.id);
      if (!call) return;
      this.pending.delete(answer.id);
      if ('error' in answer) call.reject(received(answer.error));
      else call.resolve(answer.value);
    });
    // Calls under way keep the process alive, an idle store does not.
    port.unref();
  }

  private call<T>(collection: string | null, method: string, args: unknown[]): Promise<T> {
    if (this.ended) return Promise.reject(this.ended);
    const id = ++this.nextId;
    return new Promise<T>((resolve, reject) => {
      if (this.pending.size === 0) this.port.ref();
      this.pending.set(id, {
        resolve: (value) => {
          this.settled();
          resolve(value as T);
        },
        reject: (error) => {
          this.settled();
          reject(error);
        },
      });
      this.port.postMessage({ id, collection, method, args } satisfies Request);
    });
  }

  private settled(): void {
    if (this.pending.size === 0) this.port.unref();
  }

  /** The thread holding the store is gone: every call under way, and every later one, fails with `error`. */
  fail(error: Error): void {
    this.ended ??= error;
    const calls = [...this.pending.values()];
    this.pending.clear();
    this.port.unref();
    for (const call of calls) call.reject(error);
  }

  collection<T extends Document = Document>(name: string): Collection<T> {
    const forward =
      (method: string) =>
      (...args: unknown[]) =>
        this.call(name, method, args);
    return Object.fromEntries([...COLLECTION_METHODS].map((m) => [m, forward(m)])) as unknown as Collection<T>;
  }

  ensureIndex(collection: string, keys: IndexKeys): Promise<void> {
    return this.call(null, 'ensureIndex', [collection, keys]);
  }

  dropCollection(name: string): Promise<void> {
    return this.call(null, 'dropCollection', [name]);
  }

  listCollections(): Promise<string[]> {
    return this.call(null, 'listCollections', []);
  }

  /** Has a store that writes behind write what it holds now (the webhooks' new cursors, before anything is served). */
  flush(): Promise<void> {
    return this.call(null, 'flush', []);
  }

  /** A verification's replay runs on this thread, in memory, as the embedded stores' scratch does. */
  async scratch(): Promise<ReadStore> {
    return new MemoryReadStore();
  }

  async close(): Promise<void> {
    if (this.ended) return;
    await this.call(null, 'close', []);
    this.fail(new StoreUnavailableError('read store is closed'));
    this.port.close();
  }
}

/** Answers a ForwardedReadStore's calls from `store`, one message each, in the order they come. */
export function serveReadStore(store: ReadStore & { flush?(): void }, port: MessagePort): void {
  port.on('message', (request: Request) => {
    const { id, collection, method, args } = request;
    const known = collection === null ? STORE_METHODS.has(method) : COLLECTION_METHODS.has(method);
    const run = async (): Promise<unknown> => {
      if (!known) throw new Error(`not a ReadStore method: ${method}`);
      if (collection !== null)
        return (store.collection(collection) as unknown as Record<string, (...a: unknown[]) => unknown>)[method](
          ...args,
        );
      if (method === 'flush') return store.flush?.();
      return (store as unknown as Record<string, (...a: unknown[]) => unknown>)[method](...args);
    };
    run().then(
      (value) => port.postMessage({ id, value } satisfies Answer),
      (error: unknown) => port.postMessage({ id, error: sent(error) } satisfies Answer),
    );
  });
}
