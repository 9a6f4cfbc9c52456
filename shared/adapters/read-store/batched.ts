/**
 * A ReadStore that gathers the document replacements of a batch of events and writes them to the
 * store underneath together (`flush`): one bulk write per collection, each document once however
 * many events of the batch changed it. Projectors read a document and write it whole for most
 * events, and consecutive events often touch the same documents (a player's, a day's), so a
 * batch saves most reads, copies and index updates of the store, and on MongoDB most round trips.
 *
 * Only reads and replacements of one document by `_id` are gathered. Everything else (queries,
 * counts, update operators, deletes, drops) first writes what is gathered, so it sees and applies
 * in the order given; the documents it may have changed are read again afterwards.
 *
 * Documents are handed out and taken in without copies (copies were most of a projection's
 * cost): a read returns the batch's own document and a replacement is kept as given, the caller
 * handing it over. So a caller never changes a document it read or replaced: it builds a changed
 * one anew, spreading the parts it keeps. With `frozen` (the tests' runners) the documents are
 * deeply frozen, so that changing one throws; freezing costs about as much as the copies did.
 */
import { sameValue } from './memory';
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

interface Entry {
  /** The document as the batch has it; null: none. Never changed in place. */
  doc: Document | null;
  /** Replaced in this batch: written by the next flush. */
  dirty: boolean;
}

const NOTHING: UpdateResult = { matchedCount: 0, modifiedCount: 0, upsertedCount: 0 };

/** Freezes a document and everything in it; parts already frozen (shared with a document read) are not walked again. */
function freeze<V>(value: V): V {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) freeze((value as Record<string, unknown>)[key]);
  return value;
}

/** The _id a filter names when it names nothing else: the reads and writes a batch gathers. */
function onlyId(filter: Filter): string | undefined {
  const id = filter._id;
  if (typeof id !== 'string') return undefined;
  for (const key in filter) if (key !== '_id') return undefined;
  return id;
}

export class BatchedReadStore implements ReadStore {
  /** What the batch read or replaced, by collection in the order first replaced, then by _id. */
  private entries = new Map<string, Map<string, Entry>>();
  private dirty = 0;
  /**
   * Counts the times entries were forgotten (a flush's end, a pass-through): a read of the store
   * underneath that was under way meanwhile may be older than what was written, and is done again.
   */
  private forgettings = 0;
  private flushing: Promise<void> = Promise.resolve();
  private readonly handles = new Map<string, Collection>();

  constructor(
    readonly underlying: ReadStore,
    private readonly options: { frozen?: boolean } = {},
  ) {}

  /** Documents replaced since the last flush. */
  get pending(): number {
    return this.dirty;
  }

  /**
   * Writes the replaced documents, by collection in the order each was first replaced. On a
   * failure, what was not written stays to be written by the next flush. Documents replaced while
   * it writes are the next flush's.
   */
  flush(): Promise<void> {
    // One flush at a time, so a document's writes reach the store in order.
    const flushing = this.flushing.then(() => this.write());
    this.flushing = flushing.catch(() => undefined);
    return flushing;
  }

  private async write(): Promise<void> {
    for (const [collection, entries] of this.entries) {
      if (this.dirty === 0) break;
      const written: [Entry, Document][] = [];
      for (const [, entry] of entries) if (entry.dirty && entry.doc) written.push([entry, entry.doc]);
      if (written.length === 0) continue;
      await this.underlying
        .collection(collection)
        .bulkWrite(
          written.map(([, doc]) => ({ replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } })),
        );
      // A document replaced again while this was written stays to be written.
      for (const [entry, doc] of written) {
        if (entry.doc !== doc) continue;
        entry.dirty = false;
        this.dirty--;
      }
    }
    // Kept no longer than a batch: between batches the store's own documents are the truth.
    this.forgettings++;
    for (const [collection, entries] of this.entries) {
      for (const [id, entry] of entries) if (!entry.dirty) entries.delete(id);
      if (entries.size === 0) this.entries.delete(collection);
    }
  }

  collection<T extends Document = Document>(name: string): Collection<T> {
    let handle = this.handles.get(name);
    if (!handle) {
      handle = new BatchedCollection(this, name);
      this.handles.set(name, handle);
    }
    return handle as unknown as Collection<T>;
  }

  /** The collection's entries as the batch has them now (a flush may have forgotten an earlier map). */
  private entriesOf(collection: string): Map<string, Entry> {
    let entries = this.entries.get(collection);
    if (!entries) this.entries.set(collection, (entries = new Map()));
    return entries;
  }

  /** A document as the batch has it, read from the store underneath when the batch has none. */
  async read(collection: string, id: string): Promise<Document | null> {
    for (;;) {
      const found = this.entries.get(collection)?.get(id);
      if (found) return found.doc;
      const forgettings = this.forgettings;
      // The store's findOne is a copy of its own: the batch keeps it.
      const doc = this.handedOver(await this.underlying.collection(collection).findOne({ _id: id }));
      // Entries forgotten meanwhile were written first: this read may predate them.
      if (this.forgettings !== forgettings) continue;
      // A concurrent read or replacement of the same document may have made an entry meanwhile: the first stays.
      const entries = this.entriesOf(collection);
      const raced = entries.get(id);
      if (raced) return raced.doc;
      entries.set(id, { doc, dirty: false });
      return doc;
    }
  }

  private handedOver<D extends Document | null>(doc: D): D {
    return this.options.frozen ? freeze(doc) : doc;
  }

  /**
   * Replaces a document in the batch's entries as they are now: an entry handed out before a
   * flush forgot it is not the one the next flush writes.
   */
  replace(collection: string, id: string, doc: Document): void {
    const entries = this.entriesOf(collection);
    const entry = entries.get(id);
    if (!entry) {
      entries.set(id, { doc: this.handedOver(doc), dirty: true });
      this.dirty++;
      return;
    }
    entry.doc = this.handedOver(doc);
    if (!entry.dirty) this.dirty++;
    entry.dirty = true;
  }

  /** Whether the collection has replacements no flush has written yet. */
  private hasPending(collection: string): boolean {
    for (const [, entry] of this.entries.get(collection) ?? []) if (entry.dirty) return true;
    return false;
  }

  /** Writes what is gathered and forgets the collection's entries: the store underneath is to change them. */
  async passThrough(collection: string): Promise<Collection> {
    // Replacements made while a flush writes are the next one's: none is forgotten unwritten.
    do await this.flush();
    while (this.hasPending(collection));
    this.forgettings++;
    this.entries.delete(collection);
    return this.underlying.collection(collection);
  }

  async ensureIndex(collection: string, keys: IndexKeys): Promise<void> {
    await this.flush();
    return this.underlying.ensureIndex(collection, keys);
  }

  async dropCollection(name: string): Promise<void> {
    await this.passThrough(name);
    return this.underlying.dropCollection(name);
  }

  async listCollections(): Promise<string[]> {
    await this.flush();
    return this.underlying.listCollections();
  }

  scratch(): Promise<ReadStore> {
    return this.underlying.scratch();
  }

  async close(): Promise<void> {
    do await this.flush();
    while (this.dirty > 0);
    return this.underlying.close();
  }
}

/** The result of replacing a document the batch had: compared only when asked, projectors seldom look. */
class Replaced implements UpdateResult {
  readonly matchedCount = 1;
  readonly upsertedCount = 0;

  constructor(
    private readonly previous: Document,
    private readonly replacement: Document,
  ) {}

  get modifiedCount(): number {
    return sameValue(this.previous, this.replacement) ? 0 : 1;
  }
}

class BatchedCollection<T extends Document> implements Collection<T> {
  constructor(
    private readonly batch: BatchedReadStore,
    private readonly name: string,
  ) {}

  async findOne(filter: Filter): Promise<T | null> {
    const id = onlyId(filter);
    if (id === undefined) return (await this.batch.passThrough(this.name)).findOne(filter) as Promise<T | null>;
    return (await this.batch.read(this.name, id)) as T | null;
  }

  async replaceOne(filter: Filter, replacement: T, options: UpdateOptions = {}): Promise<UpdateResult> {
    const id = onlyId(filter);
    if (id === undefined || (replacement._id !== undefined && replacement._id !== id)) {
      return (await this.batch.passThrough(this.name)).replaceOne(filter, replacement, options);
    }
    const previous = await this.batch.read(this.name, id);
    if (!previous && !options.upsert) return { ...NOTHING };
    this.batch.replace(this.name, id, replacement._id === undefined ? { ...replacement, _id: id } : replacement);
    if (!previous) return { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 };
    return new Replaced(previous, replacement);
  }

  async find(filter: Filter, options?: FindOptions): Promise<T[]> {
    return (await this.batch.passThrough(this.name)).find(filter, options) as Promise<T[]>;
  }

  async countDocuments(filter: Filter): Promise<number> {
    return (await this.batch.passThrough(this.name)).countDocuments(filter);
  }

  async insertOne(doc: T): Promise<void> {
    return (await this.batch.passThrough(this.name)).insertOne(doc);
  }

  async updateOne(filter: Filter, update: Update, options?: UpdateOptions): Promise<UpdateResult> {
    return (await this.batch.passThrough(this.name)).updateOne(filter, update, options);
  }

  async deleteMany(filter: Filter): Promise<number> {
    return (await this.batch.passThrough(this.name)).deleteMany(filter);
  }

  async bulkWrite(operations: WriteOperation[]): Promise<void> {
    return (await this.batch.passThrough(this.name)).bulkWrite(operations);
  }
}
