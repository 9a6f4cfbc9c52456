/**
 * Embedded ReadStore adapter: one Map per collection, keyed by _id, with filters, sorts and
 * update operators evaluated by mingo so that projectors behave as they do on MongoDB.
 *
 * Stored documents are never handed out: reads return copies and writes store copies, so
 * callers can neither see nor cause changes outside the store's methods.
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { Context, Query } from 'mingo';
import { Query as BaseQuery } from 'mingo/query';
import * as queryOperators from 'mingo/operators/query';
import * as updateOperatorModule from 'mingo/operators/update';
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

/*
 * mingo's top-level Query and update() copy its whole operator registry (a few hundred
 * entries) on every call, which caps writes near 10k/s. The hot paths use mingo's building
 * blocks instead: the base Query with a registry of just the query operators, and the update
 * operator functions themselves.
 */
const QUERY_CONTEXT = Context.init({ query: queryOperators });
/** Given its argument, a function that mutates a document and returns the paths it changed. */
type UpdateOperator = (expr: Record<string, unknown>) => (doc: Record<string, unknown>) => string[];
// Looked up by the operator names of update documents; the operators validate their arguments.
const updateOperators = updateOperatorModule as unknown as Record<string, UpdateOperator | undefined>;

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
    return this.applyDelete(filter);
  }

  async bulkWrite(operations: WriteOperation[]): Promise<void> {
    // Ordered, like MongoDB's default: writes before a failure stay applied, later ones are skipped.
    for (const op of operations) {
      if ('updateOne' in op) {
        this.applyUpdate(op.updateOne.filter, op.updateOne.update, op.updateOne.upsert ?? false);
      } else if ('replaceOne' in op) {
        this.applyReplace(op.replaceOne.filter, op.replaceOne.replacement, op.replaceOne.upsert ?? false);
      } else {
        this.applyDelete(op.deleteMany.filter);
      }
    }
  }

  private applyDelete(filter: Filter): number {
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
      return idOnly || compile(filter).test(doc) ? [doc] : [];
    }
    const query = isEmpty(filter) ? undefined : compile(filter);
    const found: Document[] = [];
    for (const doc of docs.values()) {
      if ((!query || query.test(doc)) && found.push(doc) >= max) break;
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
      // mingo's operators refuse to touch _id, as MongoDB does.
      const changed = modify(next, withoutSetOnInsert(update));
      if (changed) this.docs()!.set(current._id, next);
      return { matchedCount: 1, modifiedCount: changed ? 1 : 0, upsertedCount: 0 };
    }
    if (!upsert) return { ...NOTHING };
    // As MongoDB: seed from the filter's equality fields, then apply the update with $setOnInsert.
    // When the filter's _id exists but the rest of the filter did not match, this insert is
    // what MongoDB would attempt too, and it fails the same way, with a duplicate key.
    const { _id, ...seed } = equalityFields(filter, {});
    const doc = { _id } as Document;
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
      if (doc._id !== current._id) {
        throw new Error(`replacing ${current._id} in ${this.name} would modify the immutable field _id`);
      }
      if (sameValue(doc, current)) return { matchedCount: 1, modifiedCount: 0, upsertedCount: 0 };
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

/** A compiled filter. $expr needs mingo's aggregation expressions too, hence its full registry. */
function compile(filter: Filter): { test(doc: object): boolean } {
  return usesExpr(filter) ? new Query(filter) : new BaseQuery(filter, { context: QUERY_CONTEXT });
}

function usesExpr(filter: Filter): boolean {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$expr') return true;
    if ((key === '$and' || key === '$or' || key === '$nor') && Array.isArray(value) && value.some(usesExpr)) return true;
  }
  return false;
}

/** Applies update operators in place; true when the document changed. */
function modify(doc: Document, update: Update): boolean {
  let changed = false;
  for (const [op, argument] of Object.entries(update)) {
    const operator = op.startsWith('$') ? updateOperators[op] : undefined;
    if (typeof operator !== 'function') throw new Error(`unknown update operator ${op}`);
    // mingo copies set values one level deep only; a deep copy keeps stored documents from
    // aliasing the caller's objects.
    if (operator(clone(argument) as Record<string, unknown>)(doc).length > 0) changed = true;
  }
  return changed;
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

function isEmpty(object: object): boolean {
  for (const _key in object) return false;
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Deep equality as isDeepStrictEqual's, fast for what documents hold (plain objects and arrays
 * of plain values); anything else is left to isDeepStrictEqual.
 */
function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameValue(item, b[i]));
  if (!isPlainObject(a) || !isPlainObject(b)) return isDeepStrictEqual(a, b);
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if (!Object.hasOwn(b, key) || !sameValue(a[key], b[key])) return false;
  return true;
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
