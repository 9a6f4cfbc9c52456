/**
 * Production ReadStore adapter: MongoDB through the official driver. The port's filters,
 * sorts and update documents are MongoDB's own, so they pass through unchanged; this file
 * maps results and errors, and keeps the indexes the read side's queries need.
 */
import {
  AnyBulkWriteOperation,
  Collection as DriverCollection,
  Db,
  IndexSpecification,
  MongoBulkWriteError,
  MongoClient,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  UpdateFilter,
  Filter as DriverFilter,
} from 'mongodb';
import { LEADERBOARD_COLLECTIONS } from '../../projections/leaderboards';
import { StoreUnavailableError } from '../event-store/port';
import {
  Collection,
  Document,
  DuplicateKeyError,
  Filter,
  FindOptions,
  ReadStore,
  Update,
  UpdateOptions,
  UpdateResult,
  WriteOperation,
} from './port';

/**
 * Secondary indexes by collection; lookups by _id use the index MongoDB always has
 * (checkpoints, players, boards, score documents by id).
 */
export const READ_MODEL_INDEXES: Readonly<Record<string, readonly IndexSpecification[]>> = {
  // Standings of a board and period, best first and earlier reacher first in a tie, and the
  // rank count of the same board and period (score greater than the player's): read-api/admin.
  [LEADERBOARD_COLLECTIONS.scores]: [{ board: 1, period: 1, score: -1, reachedAt: 1 }],
};

const DUPLICATE_KEY = 11000;

/** The server can't be reached or can't take the write now; a retry later may succeed. */
function isUnavailable(error: unknown): boolean {
  // A bulk write wraps a failure that is not a write error (e.g. a dropped connection) in
  // MongoBulkWriteError, keeping the original as its errorResponse.
  if (error instanceof MongoBulkWriteError && error.errorResponse instanceof Error) return isUnavailable(error.errorResponse);
  return (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoNotConnectedError ||
    // The driver already retried once (e.g. through a primary election) and gave up.
    (error instanceof MongoServerError && error.hasErrorLabel('RetryableWriteError'))
  );
}

function unavailableOr(error: unknown): unknown {
  return isUnavailable(error) ? new StoreUnavailableError(`read store unavailable: ${(error as Error).message}`, error) : error;
}

/** The _id an operation of a bulk write would insert: the replacement's own, or the filter's. */
function insertedId(op: WriteOperation): unknown {
  if ('updateOne' in op) return op.updateOne.filter._id;
  if ('replaceOne' in op) return op.replaceOne.replacement._id ?? op.replaceOne.filter._id;
  return undefined;
}

export class MongoReadStore implements ReadStore {
  private readonly handles = new Map<string, MongoCollection<Document>>();

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {}

  /**
   * Connects and creates the read models' indexes. Rejects with StoreUnavailableError when no
   * server answers within the URL's serverSelectionTimeoutMS (default 30 s).
   */
  static async connect(url: string, dbName: string): Promise<MongoReadStore> {
    const client = new MongoClient(url);
    try {
      await client.connect();
      const store = new MongoReadStore(client, client.db(dbName));
      for (const name of Object.keys(READ_MODEL_INDEXES)) await store.createIndexes(name);
      return store;
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

  /** Drops the documents and the collection's indexes, then recreates its indexes: a rebuild refills it. */
  async dropCollection(name: string): Promise<void> {
    try {
      await this.db.dropCollection(name);
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

  async close(): Promise<void> {
    this.handles.clear();
    await this.client.close();
  }

  private async createIndexes(name: string): Promise<void> {
    for (const key of READ_MODEL_INDEXES[name] ?? []) await this.db.collection(name).createIndex(key);
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
    await this.run(() => this.driver.insertOne(doc), () => doc._id);
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
  private async run<R>(operation: () => Promise<R>, insertedBy: (error: MongoServerError) => unknown = () => undefined): Promise<R> {
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

function asFilter(filter: Filter): DriverFilter<Document> {
  return filter as DriverFilter<Document>;
}

function counts(result: { matchedCount: number; modifiedCount: number; upsertedCount: number }): UpdateResult {
  return { matchedCount: result.matchedCount, modifiedCount: result.modifiedCount, upsertedCount: result.upsertedCount };
}

function toDriverOperation(op: WriteOperation): AnyBulkWriteOperation<Document> {
  if ('updateOne' in op) {
    const { filter, update, upsert = false } = op.updateOne;
    return { updateOne: { filter: asFilter(filter), update: update as UpdateFilter<Document>, upsert } };
  }
  if ('replaceOne' in op) {
    const { filter, replacement, upsert = false } = op.replaceOne;
    return { replaceOne: { filter: asFilter(filter), replacement, upsert } };
  }
  return { deleteMany: { filter: asFilter(op.deleteMany.filter) } };
}
