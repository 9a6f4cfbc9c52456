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
import { compare, resolve } from 'mingo/util';
import { OrderedIndex, type IndexRange, type Slots } from './ordered-index';
import { upperBoundInCodeUnits, withPrefixRanges } from './prefix';
import type {
  Collection,
  Document,
  Filter,
  FindOptions,
  IndexKeys,
  ReadStore,
  Sort,
  Update,
  UpdateOptions,
  UpdateResult,
  WriteOperation,
} from './port';
import { DuplicateKeyError } from './port';

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

/** Told of every document a store sets or deletes and of every collection it drops (FileBackedReadStore keeps them in a file). */
export interface ReadStoreChanges {
  changed(collection: string, id: string): void;
  dropped(collection: string): void;
}

/**
 * Where a store's evicted documents are read back from (FileBackedReadStore: its file, through a
 * bounded cache). A document is evicted only once persisted, and never while changed and unwritten.
 */
export interface EvictedDocuments {
  read(collection: string, id: string): Document;
}

/**
 * One collection's documents by _id, keeping its indexes and telling `changes` what it sets and
 * deletes. Each document has a slot, a small integer by which the indexes know it (Slots): the
 * Map gives the _id's slot, in insertion order (the order scans follow); arrays by slot hold the
 * rest. A slot freed by a deletion is given to the next insert, with a new insertion number.
 */
class Documents implements Slots {
  readonly indexes: OrderedIndex[];
  private readonly slots = new Map<string, number>();
  /** By slot, kept only while the collection has indexes, which read them: one without costs its Map and documents. */
  readonly ids: (string | undefined)[] = [];
  readonly inserted: number[] = [];
  /** By slot: the document, undefined once evicted (kept by `evicted`) or deleted. */
  private readonly docs: (Document | undefined)[] = [];
  private readonly free: number[] = [];
  private insertions = 0;

  constructor(
    readonly collection: string,
    private readonly changes: ReadStoreChanges | undefined,
    indexKeys: readonly IndexKeys[],
    private readonly evicted: EvictedDocuments | undefined,
  ) {
    this.indexes = indexKeys.map((keys) => new OrderedIndex(keys, this));
  }

  get size(): number {
    return this.slots.size;
  }

  has(id: string): boolean {
    return this.slots.has(id);
  }

  keys(): MapIterator<string> {
    return this.slots.keys();
  }

  get(id: string): Document | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : this.atSlot(slot, id);
  }

  atSlot(slot: number, id = this.ids[slot]!): Document {
    return this.docs[slot] ?? this.evicted!.read(this.collection, id);
  }

  *values(): Generator<Document> {
    for (const [id, slot] of this.slots) yield this.atSlot(slot, id);
  }

  /** Drops the document from memory, keeping its place; `get` reads it back from `evicted`. */
  evict(id: string): void {
    const slot = this.slots.get(id);
    if (this.evicted && slot !== undefined) this.docs[slot] = undefined;
  }

  set(id: string, doc: Document): this {
    this.restore(doc);
    this.changes?.changed(this.collection, id);
    return this;
  }

  /** Stores a document without telling `changes` (read back from persistence). */
  restore(doc: Document): void {
    let slot = this.slots.get(doc._id);
    const replacing = slot !== undefined;
    if (slot === undefined) {
      slot = this.free.pop() ?? this.docs.length;
      this.slots.set(doc._id, slot);
      if (this.indexes.length) this.numbered(slot, doc._id);
    }
    this.docs[slot] = doc;
    for (const index of this.indexes) index.set(slot, doc, replacing);
  }

  delete(id: string): boolean {
    const slot = this.slots.get(id);
    if (slot === undefined) return false;
    this.slots.delete(id);
    for (const index of this.indexes) index.delete(slot);
    if (this.indexes.length) this.ids[slot] = undefined;
    this.docs[slot] = undefined;
    this.free.push(slot);
    this.changes?.changed(this.collection, id);
    return true;
  }

  clear(): void {
    if (this.changes) for (const id of this.slots.keys()) this.changes.changed(this.collection, id);
    this.slots.clear();
    this.ids.length = 0;
    this.inserted.length = 0;
    this.docs.length = 0;
    this.free.length = 0;
    for (const index of this.indexes) index.clear();
  }

  /**
   * An index declared once documents are stored: filled with them (the evicted ones from
   * `persisted`, every stored document of the collection, when given).
   */
  addIndex(keys: IndexKeys, persisted?: () => Iterable<Document>): void {
    const index = new OrderedIndex(keys, this);
    if (!this.indexes.length) {
      // Dense up to the last slot first, so that numbering in Map order writes no far index.
      this.ids.length = this.inserted.length = 0;
      for (let slot = 0; slot < this.docs.length; slot++) this.numbered(slot, undefined);
      for (const [id, slot] of this.slots) this.numbered(slot, id);
    }
    if (persisted && this.evicted) {
      // The evicted documents come from one pass over their file, not one read (and cache churn)
      // each: what a restart does for every index of a million documents.
      for (const doc of persisted()) {
        const slot = this.slots.get(doc._id);
        if (slot !== undefined && this.docs[slot] === undefined) index.set(slot, doc, false);
      }
      for (const slot of this.slots.values()) {
        const doc = this.docs[slot];
        if (doc) index.set(slot, doc, false);
      }
    } else for (const [id, slot] of this.slots) index.set(slot, this.atSlot(slot, id), false);
    this.indexes.push(index);
  }

  /** Gives the slot its _id and the next insertion number (ids and inserted: kept while there are indexes). */
  private numbered(slot: number, id: string | undefined): void {
    this.ids[slot] = id;
    this.inserted[slot] = this.insertions++;
  }
}

/**
 * Each collection's ids in order, as MongoDB's _id index holds them: made when a query pages by
 * _id, dropped when a document is inserted or deleted (an update never changes an _id).
 */
const idOrder = new WeakMap<Documents, string[]>();

const NOTHING: UpdateResult = { matchedCount: 0, modifiedCount: 0, upsertedCount: 0 };
const matchAll = new Query({});

export class MemoryReadStore implements ReadStore {
  /** A collection exists from its first insert (as on MongoDB) until it is dropped. */
  private readonly collections = new Map<string, Documents>();
  private readonly handles = new Map<string, MemoryCollection<Document>>();
  /** The indexes declared per collection, kept across drops as on MongoDB. */
  private readonly indexKeys = new Map<string, IndexKeys[]>();

  constructor(
    private readonly changes?: ReadStoreChanges,
    private readonly evicted?: EvictedDocuments,
  ) {}

  collection<T extends Document = Document>(name: string): Collection<T> {
    let handle = this.handles.get(name);
    if (!handle) {
      handle = new MemoryCollection(name, this.collections, () => this.emptyCollection(name));
      this.handles.set(name, handle);
    }
    return handle as unknown as Collection<T>;
  }

  /** The stored document, not a copy, for a persistence layer that only serialises it (null: none). */
  storedDocument(collection: string, id: string): Document | null {
    return this.collections.get(collection)?.get(id) ?? null;
  }

  /**
   * Documents read back from persistence, stored as they are without telling `changes`; with
   * `evict`, only indexed and left where they were read from.
   */
  load(collection: string, docs: Iterable<Document>, evict = false): void {
    let stored = this.collections.get(collection);
    if (!stored) this.collections.set(collection, (stored = this.emptyCollection(collection)));
    for (const doc of docs) {
      stored.restore(doc);
      if (evict) stored.evict(doc._id);
    }
  }

  /** Drops a persisted document from memory (only with `evicted` given): read back from there when asked for. */
  evict(collection: string, id: string): void {
    this.collections.get(collection)?.evict(id);
  }

  /**
   * Keeps the collection's documents ordered by `keys` (ordered-index.ts), from which queries on
   * a prefix of them are answered without a scan: counted in O(log n), a page read in O(log n +
   * page).
   */
  async ensureIndex(collection: string, keys: IndexKeys, persisted?: () => Iterable<Document>): Promise<void> {
    const declared = this.indexKeys.get(collection) ?? [];
    if (declared.some((k) => isDeepStrictEqual(Object.entries(k), Object.entries(keys)))) return;
    this.indexKeys.set(collection, [...declared, { ...keys }]);
    this.collections.get(collection)?.addIndex(keys, persisted);
  }

  private emptyCollection(name: string): Documents {
    return new Documents(name, this.changes, this.indexKeys.get(name) ?? [], this.evicted);
  }

  async dropCollection(name: string): Promise<void> {
    this.collections.delete(name);
    this.changes?.dropped(name);
  }

  async listCollections(): Promise<string[]> {
    return [...this.collections.keys()];
  }

  /** The read models live in memory anyway: a replay to compare with them does too. */
  async scratch(): Promise<ReadStore> {
    return new MemoryReadStore();
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
    private readonly create: () => Documents,
  ) {}

  async findOne(filter: Filter): Promise<T | null> {
    const [doc] = this.matching(inCodeUnits(filter), 1);
    return doc ? (clone(doc) as T) : null;
  }

  async find(given: Filter, options: FindOptions = {}): Promise<T[]> {
    const filter = inCodeUnits(given);
    const { sort, skip = 0, limit = 0 } = options;
    if (sort && isIdOrder(sort)) return this.inIdOrder(filter, skip, limit).map((doc) => clone(doc) as T);
    const sorted = sort !== undefined && Object.keys(sort).length > 0;
    const planned = sorted ? this.planned(filter, sort) : null;
    if (planned) {
      const { index, range } = planned;
      const from = range.start + skip;
      const docs = this.docs()!;
      return index
        .slotsAt(from, limit > 0 ? Math.min(range.end, from + limit) : range.end)
        .map((slot) => clone(docs.atSlot(slot)) as T);
    }
    // limit 0 means no limit, as on MongoDB. Without a sort the scan can stop early.
    const end = limit > 0 ? skip + limit : undefined;
    let docs = this.matching(filter, sorted ? Infinity : (end ?? Infinity));
    // mingo's sort is stable, so ties keep the Map's insertion order; a page far smaller than the
    // matches is selected instead of sorting them all, in the same order.
    if (sorted)
      docs =
        end !== undefined && end * 8 < docs.length
          ? firstInOrder(docs, sort, end)
          : (matchAll.find(docs).sort(sort).all() as Document[]);
    return docs.slice(skip, end).map((doc) => clone(doc) as T);
  }

  async countDocuments(given: Filter): Promise<number> {
    const filter = inCodeUnits(given);
    if (isEmpty(filter)) return this.docs()?.size ?? 0;
    const planned = this.planned(filter);
    if (planned) return planned.range.end - planned.range.start;
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
    idOrder.delete(docs);
    if (isEmpty(filter)) {
      const count = docs.size;
      docs.clear();
      return count;
    }
    // An index that answers the filter finds what to delete (an erasure's standings by playerId): not a scan.
    const planned = this.planned(filter);
    const ids = planned
      ? planned.index.slotsAt(planned.range.start, planned.range.end).map((slot) => docs.ids[slot]!)
      : this.matching(filter).map((doc) => doc._id);
    for (const id of ids) docs.delete(id);
    return ids.length;
  }

  /**
   * Stored documents matching the filter in ascending _id order, from the first _id above the
   * filter's `_id: {$gt}` if it has one (a page after the last _id of the previous one): a binary
   * search and the page, not a sort of the collection.
   */
  private inIdOrder(filter: Filter, skip: number, limit: number): Document[] {
    const docs = this.docs();
    if (!docs) return [];
    let ids = idOrder.get(docs);
    if (!ids) {
      ids = [...docs.keys()].sort();
      idOrder.set(docs, ids);
    }
    const after = isPlainObject(filter._id) && typeof filter._id.$gt === 'string' ? filter._id.$gt : undefined;
    let low = 0;
    if (after !== undefined) {
      let high = ids.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (ids[middle] <= after) low = middle + 1;
        else high = middle;
      }
    }
    const query = isEmpty(filter) ? undefined : compile(filter);
    const end = limit > 0 ? skip + limit : Infinity;
    const found: Document[] = [];
    for (let i = low; i < ids.length && found.length < end; i++) {
      const doc = docs.get(ids[i])!;
      if (!query || query.test(doc)) found.push(doc);
    }
    return found.slice(skip);
  }

  private docs(): Documents | undefined {
    return this.collections.get(this.name);
  }

  /** An index that answers the query by itself, with where its documents lie in the index's order. */
  private planned(filter: Filter, sort?: Sort): { index: OrderedIndex; range: IndexRange } | null {
    for (const index of this.docs()?.indexes ?? []) {
      const range = index.plan(filter, sort);
      if (range) return { index, range };
    }
    return null;
  }

  /**
   * Stored (not copied) documents matching the filter, at most `max`: in insertion order, or in the
   * order of the ids the filter names by `_id` equality or `$in` (looked up, not scanned).
   */
  private matching(filter: Filter, max = Infinity): Document[] {
    const docs = this.docs();
    if (!docs || max <= 0) return [];
    const ids = namedIds(filter);
    if (ids !== undefined) {
      // Nothing but the ids named: every document looked up matches, no test needed (a test of
      // a long $in would cost the list's length for each document: a page's names, quadratic).
      const query = namesIdsOnly(filter) ? undefined : compile(filter);
      const found: Document[] = [];
      for (const id of new Set(ids)) {
        const doc = docs.get(id);
        if (doc && (!query || query.test(doc)) && found.push(doc) >= max) break;
      }
      return found;
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
      docs = this.create();
      this.collections.set(this.name, docs);
    }
    if (docs.has(doc._id)) throw new DuplicateKeyError(this.name, doc._id);
    docs.set(doc._id, doc);
    idOrder.delete(docs);
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

/**
 * The first `count` of `docs` in `sort` order, ties in the order given, as mingo's stable sort
 * would put them (its own comparison and path resolution): a heap of `count`, not a sort of all.
 */
function firstInOrder(docs: Document[], sort: Sort, count: number): Document[] {
  const keys = Object.entries(sort);
  const values = (doc: Document) => keys.map(([key]) => resolve(doc, key));
  type Entry = { doc: Document; index: number; values: unknown[] };
  /** Negative when `a` comes first. */
  const order = (a: Entry, b: Entry): number => {
    for (let k = 0; k < keys.length; k++) {
      const c = compare(a.values[k], b.values[k]);
      if (c !== 0) return keys[k][1] === -1 ? -c : c;
    }
    return a.index - b.index;
  };
  // A max-heap on `order`: its root is the last of the first `count` seen so far.
  const heap: Entry[] = [];
  const swap = (i: number, j: number) => ([heap[i], heap[j]] = [heap[j], heap[i]]);
  const down = (i: number) => {
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let last = i;
      if (left < heap.length && order(heap[left], heap[last]) > 0) last = left;
      if (right < heap.length && order(heap[right], heap[last]) > 0) last = right;
      if (last === i) return;
      swap(i, last);
      i = last;
    }
  };
  docs.forEach((doc, index) => {
    const entry = { doc, index, values: values(doc) };
    if (heap.length < count) {
      heap.push(entry);
      for (let i = heap.length - 1; i > 0 && order(heap[i], heap[(i - 1) >> 1]) > 0; i = (i - 1) >> 1)
        swap(i, (i - 1) >> 1);
    } else if (order(entry, heap[0]) < 0) {
      heap[0] = entry;
      down(0);
    }
  });
  return heap.sort(order).map((entry) => entry.doc);
}

/** A compiled filter. $expr needs mingo's aggregation expressions too, hence its full registry. */
function compile(filter: Filter): { test(doc: object): boolean } {
  return usesExpr(filter) ? new Query(filter) : new BaseQuery(filter, { context: QUERY_CONTEXT });
}

function usesExpr(filter: Filter): boolean {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$expr') return true;
    if ((key === '$and' || key === '$or' || key === '$nor') && Array.isArray(value) && value.some(usesExpr))
      return true;
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

/** The ids a filter names by `_id` equality or `$in`: each a Map get. */
function namedIds(filter: Filter): readonly string[] | undefined {
  const single = idEquality(filter);
  if (single !== undefined) return [single];
  const id = filter._id;
  if (isPlainObject(id) && Array.isArray(id.$in) && id.$in.every((value) => typeof value === 'string')) return id.$in;
  return undefined;
}

/** Whether a filter is only `_id` equality or `_id: {$in}`: what namedIds looks up is exactly what it matches. */
/** The port's `$startsWith` as a range of JS's string order, which compares UTF-16 code units (prefix.ts). */
const inCodeUnits = (filter: Filter): Filter => withPrefixRanges(filter, upperBoundInCodeUnits);

function namesIdsOnly(filter: Filter): boolean {
  if (Object.keys(filter).length !== 1) return false;
  const id = filter._id;
  if (typeof id === 'string') return true;
  if (!isPlainObject(id)) return false;
  const operators = Object.keys(id);
  return operators.length === 1 && (operators[0] === '$eq' || operators[0] === '$in');
}

const isIdOrder = (sort: Record<string, 1 | -1>): boolean => {
  const keys = Object.keys(sort);
  return keys.length === 1 && keys[0] === '_id' && sort._id === 1;
};

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
export function sameValue(a: unknown, b: unknown): boolean {
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
export function clone<V>(value: V): V {
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
