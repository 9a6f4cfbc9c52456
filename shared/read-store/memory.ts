/**
 * Embedded ReadStore adapter: one Map per collection, keyed by _id, with filters, sorts and
 * update operators evaluated by mingo so that projectors behave as they do on MongoDB.
 *
 * Stored documents are never handed out: reads return copies and writes store copies, so
 * callers can neither see nor cause changes outside the store's methods.
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { Query, update as mingoUpdate } from 'mingo';
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

type Criteria = ConstructorParameters<typeof Query>[0];
type Modifier = Parameters<typeof mingoUpdate>[1];
type Documents = Map<string, Document>;

const NOTHING: UpdateResult = { matchedCount: 0, modifiedCount: 0, upsertedCount: 0 };
const matchAll = new Query({});

export class MemoryReadStore implements ReadStore {
  /** A collection exists from its first insert (as on MongoDB) until it is dropped. */
  private readonly collections = new Map<string, Documents>();
  private readonly handles = new Map<string, MemoryCollection<Document>>();

  collection<T extends Document = Document>(name: string): Collection<T> {
    let handle = this.handles.get(name);
    if (!handle) {
      handle = new MemoryCollection(name, this.collections);
      this.handles.set(name, handle);
    }
    return handle as unknown as Collection<T>;
  }

  async dropCollection(name: string): Promise<void> {
    this.collections.delete(name);
  }

  async listCollections(): Promise<string[]> {
    return [...this.collections.keys()];
  }

  async close(): Promise<void> {
    this.collections.clear();
    this.handles.clear();
  }
}

class MemoryCollection<T extends Document> implements Collection<T> {
  constructor(
    private readonly name: string,
    private readonly collections: Map<string, Documents>,
  ) {}

  async findOne(filter: Filter): Promise<T | null> {
    const [doc] = this.matching(filter, 1);
    return doc ? (clone(doc) as T) : null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const { sort, skip = 0, limit = 0 } = options;
    const sorted = sort !== undefined && Object.keys(sort).length > 0;
    // limit 0 means no limit, as on MongoDB. Without a sort the scan can stop early.
    const end = limit > 0 ? skip + limit : undefined;
    let docs = this.matching(filter, sorted ? Infinity : (end ?? Infinity));
    // mingo's sort is stable, so ties keep the Map's insertion order.
    if (sorted) docs = matchAll.find(docs).sort(sort).all() as Document[];
    return docs.slice(skip, end).map((doc) => clone(doc) as T);
  }

  async countDocuments(filter: Filter): Promise<number> {
    if (isEmpty(filter)) return this.docs()?.size ?? 0;
    return this.matching(filter).length;
  }

  async insertOne(doc: T): Promise<void> {
    this.insert(clone(doc));
  }

  async updateOne(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<UpdateResult> {
    return this.applyUpdate(filter, update, options.upsert ?? false);
  }

  async replaceOne(filter: Filter, replacement: T, options: UpdateOptions = {}): Promise<UpdateResult> {
    return this.applyReplace(filter, replacement, options.upsert ?? false);
  }

  async deleteMany(filter: Filter): Promise<number> {
    const docs = this.docs();
    if (!docs) return 0;
    if (isEmpty(filter)) {
      const count = docs.size;
      docs.clear();
      return count;
    }
    const matched = this.matching(filter);
    for (const doc of matched) docs.delete(doc._id);
    return matched.length;
  }

  async bulkWrite(operations: WriteOperation[]): Promise<void> {
    // Ordered, like MongoDB's default: writes before a failure stay applied, later ones are skipped.
    for (const op of operations) {
      if ('updateOne' in op) {
        this.applyUpdate(op.updateOne.filter, op.updateOne.update, op.updateOne.upsert ?? false);
      } else if ('replaceOne' in op) {
        this.applyReplace(op.replaceOne.filter, op.replaceOne.replacement, op.replaceOne.upsert ?? false);
      } else {
        await this.deleteMany(op.deleteMany.filter);
      }
    }
  }

  private docs(): Documents | undefined {
    return this.collections.get(this.name);
  }

  /** Stored (not copied) documents matching the filter, in insertion order, at most `max`. */
  private matching(filter: Filter, max = Infinity): Document[] {
    const docs = this.docs();
    if (!docs || max <= 0) return [];
    const id = idEquality(filter);
    if (id !== undefined) {
      const doc = docs.get(id);
      if (!doc) return [];
      const idOnly = typeof filter._id === 'string' && Object.keys(filter).length === 1;
      return idOnly || new Query(filter as Criteria).test(doc) ? [doc] : [];
    }
    const query = isEmpty(filter) ? matchAll : new Query(filter as Criteria);
    const found: Document[] = [];
    for (const doc of docs.values()) {
      if (query.test(doc) && found.push(doc) >= max) break;
    }
    return found;
  }

  /** Stores an already copied document. */
  private insert(doc: Document): void {
    if (typeof doc._id !== 'string') throw new TypeError(`_id must be a string in ${this.name}`);
    let docs = this.docs();
    if (!docs) {
      docs = new Map();
      this.collections.set(this.name, docs);
    }
    if (docs.has(doc._id)) throw new DuplicateKeyError(this.name, doc._id);
    docs.set(doc._id, doc);
  }

  private applyUpdate(filter: Filter, update: Update, upsert: boolean): UpdateResult {
    const [current] = this.matching(filter, 1);
    if (current) {
      // Update a copy and swap it in, so an operator failing half-way leaves the document as it was.
      const next = clone(current);
      const changed = modify(next, withoutSetOnInsert(update));
      if (next._id !== current._id) throw immutableId(this.name, current._id);
      if (changed) this.docs()!.set(current._id, next);
      return { matchedCount: 1, modifiedCount: changed ? 1 : 0, upsertedCount: 0 };
    }
    if (!upsert) return { ...NOTHING };
    // As MongoDB: seed from the filter's equality fields, then apply the update with $setOnInsert.
    // When the filter's _id exists but the rest of the filter did not match, this insert is
    // what MongoDB would attempt too, and it fails the same way, with a duplicate key.
    const doc = {} as Document;
    const seed = equalityFields(filter, {});
    if (!isEmpty(seed)) modify(doc, { $set: seed });
    modify(doc, forInsert(update));
    if (doc._id === undefined) doc._id = randomUUID();
    this.insert(doc);
    return { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 };
  }

  private applyReplace(filter: Filter, replacement: Document, upsert: boolean): UpdateResult {
    const [current] = this.matching(filter, 1);
    const doc = clone(replacement);
    if (current) {
      if (doc._id === undefined) doc._id = current._id;
      if (doc._id !== current._id) throw immutableId(this.name, current._id);
      if (isDeepStrictEqual(doc, current)) return { matchedCount: 1, modifiedCount: 0, upsertedCount: 0 };
      // Map.set on an existing key keeps the document's insertion position.
      this.docs()!.set(doc._id, doc);
      return { matchedCount: 1, modifiedCount: 1, upsertedCount: 0 };
    }
    if (!upsert) return { ...NOTHING };
    if (doc._id === undefined) doc._id = idEquality(filter) ?? randomUUID();
    this.insert(doc);
    return { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 };
  }
}

/** Applies update operators in place; true when the document changed. */
function modify(doc: Document, update: Update): boolean {
  // Deep clone mode: values taken from the update must not alias the caller's objects.
  return mingoUpdate(doc, update as Modifier, undefined, undefined, { cloneMode: 'deep' }).length > 0;
}

function withoutSetOnInsert(update: Update): Update {
  if (!('$setOnInsert' in update)) return update;
  const { $setOnInsert: _ignored, ...rest } = update;
  return rest;
}

function forInsert(update: Update): Update {
  if (!('$setOnInsert' in update)) return update;
  const { $setOnInsert, ...rest } = update;
  return { ...rest, $set: { ...(rest.$set as object), ...($setOnInsert as object) } };
}

/** The _id a filter pins by equality, which makes the lookup a Map get. */
function idEquality(filter: Filter): string | undefined {
  const id = filter._id;
  if (typeof id === 'string') return id;
  if (isPlainObject(id) && typeof id.$eq === 'string') return id.$eq;
  return undefined;
}

/** The fields MongoDB copies from a filter into an upserted document: `f: v`, `f: {$eq: v}`, and those inside $and. */
function equalityFields(filter: Filter, into: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const clause of value) equalityFields(clause as Filter, into);
    } else if (key.startsWith('$') || value instanceof RegExp) {
      continue;
    } else if (isPlainObject(value) && Object.keys(value).some((k) => k.startsWith('$'))) {
      if ('$eq' in value) into[key] = value.$eq;
    } else {
      into[key] = value;
    }
  }
  return into;
}

function immutableId(collection: string, id: string): Error {
  return new Error(`the immutable field _id of ${id} in ${collection} would be modified`);
}

function isEmpty(object: object): boolean {
  for (const _key in object) return false;
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Deep copy, fast for what documents hold (plain objects, arrays, dates); anything else via structuredClone. */
function clone<V>(value: V): V {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item: unknown) => clone(item)) as V;
  if (isPlainObject(value)) {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) copy[key] = clone(value[key]);
    return copy as V;
  }
  if (value instanceof Date) return new Date(value.getTime()) as V;
  return structuredClone(value);
}
