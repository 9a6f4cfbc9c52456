/**
 * Production ReadStore adapter: MongoDB through the official driver. The port's filters,
 * sorts and update documents are MongoDB's own, so they pass through unchanged but for the
 * port's `$startsWith` (a range in MongoDB's string order, prefix.ts); this file maps results
 * and errors, and keeps the indexes the projectors declare.
 */
import type {
  AnyBulkWriteOperation,
  Collection as DriverCollection,
  Db,
  MongoClientOptions,
  UpdateFilter,
  Filter as DriverFilter,
} from 'mongodb';
import {
  MongoBulkWriteError,
  MongoClient,
  MongoClientClosedError,
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoStalePrimaryError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
} from 'mongodb';
import { randomUUID } from 'node:crypto';
import { StoreUnavailableError } from '../event-store/port';
import { upperBoundInCodePoints, withPrefixRanges } from './prefix';
import type {
  Collection,
  Document,
  Filter,
  FindOptions,
  IndexKeys,
  ReadStore,
  Update,
  UpdateOptions,
  UpdateResult,
  WriteOperation,
} from './port';
import { DuplicateKeyError } from './port';

const DUPLICATE_KEY = 11000;

/**
 * How long the driver may wait for a server (selection, connecting, a pooled connection, an
 * answer) before the request gets its 503; the driver's own defaults hold a request 30 s or
 * more. A URL option of the same name wins (docs/operations.md, "Operating it"). The socket timeout bounds
 * each operation a request makes, not index builds and drops (see `unbounded`).
 */
export const MONGO_TIMEOUT_DEFAULTS = {
  serverSelectionTimeoutMS: 3000,
  connectTimeoutMS: 3000,
  waitQueueTimeoutMS: 3000,
  socketTimeoutMS: 10_000,
} as const satisfies MongoClientOptions;

/**
 * Server error codes meaning "not now": the node cannot serve (stepping down, shutting down, not
 * primary, recovering), the network between failed, or an operation ran out of time. The driver
 * retries these once; when it gives up, a later retry by the client may succeed.
 */
const NOT_NOW_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  50, // MaxTimeMSExpired
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
  134, // ReadConcernMajorityNotAvailableYet
]);

/** Driver errors of the same meaning, by name where the driver does not export the class. */
const NOT_NOW_NAMES = new Set(['MongoWaitQueueTimeoutError', 'MongoPoolClosedError']);

/** The server can't be reached or can't serve now; a retry later may succeed (503, not 500). */
export function meansNotNow(error: unknown): boolean {
  // A bulk write wraps a failure that is not a write error (e.g. a dropped connection) in
  // MongoBulkWriteError, keeping the original as its errorResponse.
  if (error instanceof MongoBulkWriteError && error.errorResponse instanceof Error)
    return meansNotNow(error.errorResponse);
  if (!(error instanceof MongoError)) return false;
  const code =
    error instanceof MongoWriteConcernError ? Number(error.result?.writeConcernError?.code ?? error.code) : error.code;
  return (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoClientClosedError ||
    error instanceof MongoServerClosedError ||
    error instanceof MongoOperationTimeoutError ||
    error instanceof MongoStalePrimaryError ||
    NOT_NOW_NAMES.has(error.name) ||
    (typeof code === 'number' && NOT_NOW_CODES.has(code)) ||
    // The driver already retried once (e.g. through a primary election) and gave up.
    error.hasErrorLabel('RetryableWriteError') ||
    error.hasErrorLabel('TransientTransactionError')
  );
}

function unavailableOr(error: unknown): unknown {
  return meansNotNow(error)
    ? new StoreUnavailableError(`read store unavailable: ${(error as Error).message}`, error)
    : error;
}

/** The _id an operation of a bulk write would insert: the replacement's own, or the filter's. */
function insertedId(op: WriteOperation): unknown {
  if ('updateOne' in op) return op.updateOne.filter._id;
  if ('replaceOne' in op) return op.replaceOne.replacement._id ?? op.replaceOne.filter._id;
  return undefined;
}

/**
 * The same server through a client without a socket timeout: an index build on a large
 * collection, or a drop in a rebuild, may take minutes, and a socket timeout would fail the
 * start or the rebuild, again at each retry. The driver has no working per-operation timeout
 * to lift instead (`timeoutMS` has no effect since 7.x; an abort signal is for reads only).
 * Made on first use, closed with the store.
 */
class UnboundedClient {
  private client: MongoClient | undefined;

  constructor(private readonly url: string) {}

  db(name: string): Db {
    this.client ??= new MongoClient(this.url, { ...withTimeoutDefaults(this.url), socketTimeoutMS: 0 });
    return this.client.db(name);
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}

export class MongoReadStore implements ReadStore {
  private readonly handles = new Map<string, MongoCollection<Document>>();
  /** Indexes declared per collection, created again after a drop. */
  private readonly indexes = new Map<string, IndexKeys[]>();

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    /** For index builds and drops, which take as long as they take (see UnboundedClient). */
    private readonly unbounded: UnboundedClient,
    /** A scratch store: closing drops its database and leaves the clients to the store it came from. */
    private readonly isScratch = false,
  ) {}

  /**
   * Connects. Rejects with StoreUnavailableError when no server answers within
   * serverSelectionTimeoutMS (3 s unless the URL says otherwise).
   */
  static async connect(url: string, dbName: string): Promise<MongoReadStore> {
    const client = new MongoClient(url, withTimeoutDefaults(url));
    try {
      await client.connect();
      return new MongoReadStore(client, client.db(dbName), new UnboundedClient(url));
    } catch (error) {
      await client.close();
      throw unavailableOr(error);
    }
  }

  collection<T extends Document = Document>(name: string): Collection<T> {
    let handle = this.handles.get(name);
    if (!handle) {
      handle = new MongoCollection(name, this.db.collection<Document>(name));
      this.handles.set(name, handle);
    }
    return handle as unknown as Collection<T>;
  }

  async ensureIndex(collection: string, keys: IndexKeys): Promise<void> {
    const declared = this.indexes.get(collection) ?? [];
    if (!declared.some((k) => JSON.stringify(k) === JSON.stringify(keys)))
      this.indexes.set(collection, [...declared, keys]);
    try {
      await this.longRunning().collection(collection).createIndex(keys);
    } catch (error) {
      throw unavailableOr(error);
    }
  }

  /** Drops the documents and the collection's indexes, then recreates its declared indexes: a rebuild refills it. */
  async dropCollection(name: string): Promise<void> {
    try {
      await this.longRunning().dropCollection(name);
      await this.createIndexes(name);
    } catch (error) {
      throw unavailableOr(error);
    }
  }

  async listCollections(): Promise<string[]> {
    try {
      const collections = await this.db.listCollections({}, { nameOnly: true }).toArray();
      return collections.map((c) => c.name).filter((name) => !name.startsWith('system.'));
    } catch (error) {
      throw unavailableOr(error);
    }
  }

  async scratch(): Promise<ReadStore> {
    return new MongoReadStore(
      this.client,
      this.client.db(`${this.db.databaseName}_scratch_${randomUUID().slice(0, 8)}`),
      this.unbounded,
      true,
    );
  }

  /**
   * Drops the scratch databases of this store that are left (`<database>_scratch_*`): those of
   * verifications whose process stopped before their end. Only while no verification runs.
   */
  async dropScratches(): Promise<string[]> {
    const prefix = `${this.db.databaseName}_scratch_`;
    try {
      const { databases } = await this.client.db().admin().listDatabases({ nameOnly: true, authorizedDatabases: true });
      const left = databases.map((d) => d.name).filter((name) => name.startsWith(prefix));
      for (const name of left) await this.client.db(name).dropDatabase();
      return left;
    } catch (error) {
      throw unavailableOr(error);
    }
  }

  async close(): Promise<void> {
    this.handles.clear();
    if (!this.isScratch) {
      await this.unbounded.close();
      return this.client.close();
    }
    try {
      await this.longRunning().dropDatabase();
    } catch (error) {
      throw unavailableOr(error);
    }
  }

  /** This store's database, for an index build or a drop: no socket timeout (see UnboundedClient). */
  private longRunning(): Db {
    return this.unbounded.db(this.db.databaseName);
  }

  private async createIndexes(name: string): Promise<void> {
    for (const keys of this.indexes.get(name) ?? []) await this.longRunning().collection(name).createIndex(keys);
  }
}

class MongoCollection<T extends Document> implements Collection<T> {
  constructor(
    private readonly name: string,
    private readonly driver: DriverCollection<Document>,
  ) {}

  findOne(filter: Filter): Promise<T | null> {
    return this.run(() => this.driver.findOne(asFilter(filter)) as Promise<T | null>);
  }

  find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const { sort, skip, limit } = options;
    return this.run(() => this.driver.find(asFilter(filter), { sort, skip, limit }).toArray() as Promise<T[]>);
  }

  countDocuments(filter: Filter): Promise<number> {
    return this.run(() => this.driver.countDocuments(asFilter(filter)));
  }

  async insertOne(doc: T): Promise<void> {
    await this.run(
      () => this.driver.insertOne(doc),
      () => doc._id,
    );
  }

  updateOne(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<UpdateResult> {
    const upsert = options.upsert ?? false;
    return this.run(
      () => this.driver.updateOne(asFilter(filter), update as UpdateFilter<Document>, { upsert }),
      () => filter._id,
    ).then(counts);
  }

  replaceOne(filter: Filter, replacement: T, options: UpdateOptions = {}): Promise<UpdateResult> {
    const upsert = options.upsert ?? false;
    return this.run(
      () => this.driver.replaceOne(asFilter(filter), replacement, { upsert }),
      () => replacement._id ?? filter._id,
    ).then(counts);
  }

  async deleteMany(filter: Filter): Promise<number> {
    return (await this.run(() => this.driver.deleteMany(asFilter(filter)))).deletedCount;
  }

  async bulkWrite(operations: WriteOperation[]): Promise<void> {
    // An empty batch is a no-op here, an error for the driver.
    if (operations.length === 0) return;
    // Ordered, the driver's default: writes before a failure stay applied, later ones are skipped.
    await this.run(
      () => this.driver.bulkWrite(operations.map(toDriverOperation)),
      // A failed bulk write always comes as MongoBulkWriteError, naming the failed operation.
      (error) => insertedId(operations[[(error as MongoBulkWriteError).writeErrors].flat()[0].index]),
    );
  }

  /**
   * Runs one driver call, turning a duplicate _id and an unreachable server into the port's
   * errors. The duplicate _id is the one the server reports (single writes carry it), else
   * the one the failed write would have inserted (bulk write errors drop it).
   */
  private async run<R>(
    operation: () => Promise<R>,
    insertedBy: (error: MongoServerError) => unknown = () => undefined,
  ): Promise<R> {
    try {
      return await operation();
    } catch (error) {
      if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) {
        const reported = (error as { keyValue?: { _id?: unknown } }).keyValue?._id;
        throw new DuplicateKeyError(this.name, String(reported ?? insertedBy(error)));
      }
      throw unavailableOr(error);
    }
  }
}

/** The timeouts the URL does not set itself, from MONGO_TIMEOUT_DEFAULTS (the driver lets passed options win over the URL's). */
export function withTimeoutDefaults(url: string): MongoClientOptions {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  const given = new Set([...new URLSearchParams(query).keys()].map((key) => key.toLowerCase()));
  return Object.fromEntries(
    Object.entries(MONGO_TIMEOUT_DEFAULTS).filter(([option]) => !given.has(option.toLowerCase())),
  );
}

function asFilter(filter: Filter): DriverFilter<Document> {
  // MongoDB compares strings by their UTF-8 bytes: in code point order.
  return withPrefixRanges(filter, upperBoundInCodePoints);
}

function counts(result: { matchedCount: number; modifiedCount: number; upsertedCount: number }): UpdateResult {
  return {
    matchedCount: result.matchedCount,
    modifiedCount: result.modifiedCount,
    upsertedCount: result.upsertedCount,
  };
}

function toDriverOperation(op: WriteOperation): AnyBulkWriteOperation<Document> {
  if ('updateOne' in op) {
    const { filter, update, upsert = false } = op.updateOne;
    return { updateOne: { filter: asFilter(filter), update: update, upsert } };
  }
  if ('replaceOne' in op) {
    const { filter, replacement, upsert = false } = op.replaceOne;
    return { replaceOne: { filter: asFilter(filter), replacement, upsert } };
  }
  return { deleteMany: { filter: asFilter(op.deleteMany.filter) } };
}
