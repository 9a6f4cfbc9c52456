/**
 * The ReadStore port: collections of documents queried and updated with MongoDB's filter and
 * update operators. The embedded adapter evaluates them with mingo, the production one is
 * MongoDB itself, so projectors and queries are written once. One operator is the port's own,
 * for reads (find, findOne, countDocuments): `{field: {$startsWith: text}}` (prefix.ts), the
 * prefix range of each store's string order.
 */

export type Document = { _id: string } & Record<string, unknown>;
export type Filter = Record<string, unknown>;
/** A MongoDB update document: operators such as $set, $inc, $unset, $push, $pull, $max, $setOnInsert. */
export type Update = Record<string, unknown>;
export type Sort = Record<string, 1 | -1>;

export interface FindOptions {
  sort?: Sort;
  skip?: number;
  limit?: number;
}

export interface UpdateOptions {
  upsert?: boolean;
}

export interface UpdateResult {
  matchedCount: number;
  modifiedCount: number;
  upsertedCount: number;
}

/** One write of a batch; batches apply in order. */
export type WriteOperation =
  | { updateOne: { filter: Filter; update: Update; upsert?: boolean } }
  | { replaceOne: { filter: Filter; replacement: Document; upsert?: boolean } }
  | { deleteMany: { filter: Filter } };

export interface Collection<T extends Document = Document> {
  findOne(filter: Filter): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  countDocuments(filter: Filter): Promise<number>;
  /** Inserts a new document; DuplicateKeyError when its _id exists. */
  insertOne(doc: T): Promise<void>;
  updateOne(filter: Filter, update: Update, options?: UpdateOptions): Promise<UpdateResult>;
  replaceOne(filter: Filter, replacement: T, options?: UpdateOptions): Promise<UpdateResult>;
  deleteMany(filter: Filter): Promise<number>;
  bulkWrite(operations: WriteOperation[]): Promise<void>;
}

/** The fields of an index, in order: 1 ascending, -1 descending. */
export type IndexKeys = Record<string, 1 | -1>;

export interface ReadStore {
  collection<T extends Document = Document>(name: string): Collection<T>;
  /**
   * Makes sure a collection has an index (idempotent), and keeps it across dropCollection. The
   * projector writing the collection declares what its readers' queries need.
   */
  ensureIndex(collection: string, keys: IndexKeys): Promise<void>;
  dropCollection(name: string): Promise<void>;
  listCollections(): Promise<string[]>;
  /**
   * An empty store of the same kind, where a verification replays the log to compare with this
   * one (MongoDB: a database of its own on the same server, so the replay is not held in memory).
   * Closing it deletes it.
   */
  scratch(): Promise<ReadStore>;
  close(): Promise<void>;
}

/** An insert or upsert would create a second document with the same _id. */
export class DuplicateKeyError extends Error {
  constructor(
    readonly collection: string,
    readonly id: string,
  ) {
    super(`duplicate key ${id} in ${collection}`);
    this.name = 'DuplicateKeyError';
  }
}
