/**
 * Replaying the log into read models, and checking that the live read models equal a fresh
 * replay: a projector that is not deterministic, or a read model changed by hand, shows up as a
 * difference naming the document and the field.
 */
import { isDeepStrictEqual } from 'node:util';
import type { EventStore } from '../shared/adapters/event-store/port';
import { domainEventOf } from '../domain/events';
import type { Difference, Verification } from '../shared/read-models/verification';
import type { Collection, Document, Filter, IndexKeys, ReadStore } from '../shared/adapters/read-store/port';
import type { Projector } from './projector';

const PAGE_SIZE = 1000;

export interface ReplayOptions {
  /** Replay events after this position (exclusive). Default: from the start. */
  from?: number;
  /** Last position to replay (inclusive). */
  to: number;
  /** After each page: the events read so far and the position reached. */
  onProgress?(events: number, position: number): void;
}

/**
 * Applies the log between two positions to `store` through each projector that handles the
 * event, in the order the runner applies them, reading one page at a time. Returns the number of
 * events read. Checkpoints are the caller's business.
 */
export async function replay(
  events: EventStore,
  store: ReadStore,
  projectors: readonly Projector[],
  options: ReplayOptions,
): Promise<number> {
  let position = options.from ?? 0;
  let count = 0;
  const flush = async () => {
    for (const projector of projectors) await projector.flush?.(store);
  };
  while (position < options.to) {
    const page = await events.readAll({ fromPosition: position, maxCount: PAGE_SIZE });
    for (const event of page) {
      if (event.position > options.to) {
        await flush();
        return count;
      }
      const typed = domainEventOf(event);
      if (typed)
        for (const projector of projectors)
          if (projector.handles.has(typed.type)) await projector.apply(typed, store, events);
      position = event.position;
      count += 1;
    }
    await flush();
    options.onProgress?.(count, position);
    if (page.length < PAGE_SIZE) break;
  }
  return count;
}

export interface VerifyOptions {
  /** Resolves true once the live read models have projected `position`, false if they did not in time. */
  waitForLive?(position: number): Promise<boolean>;
  /** The replay's progress, as replay reports it, counted across rounds. */
  onProgress?(events: number, position: number): void;
}

/** Differences listed at most: past them the check stops (a projector gone wrong differs everywhere). */
export const MAX_DIFFERENCES = 1000;

/**
 * Replays every event into fresh read models and compares them, collection by collection and
 * document by document, with `live`. Memory stays bounded: the log is read a page at a time,
 * the replay goes to a scratch store of the live store's kind (MongoDB: a database on the
 * server), and collections are compared a page of documents at a time. Checkpoints are not
 * compared: they record progress, not state.
 *
 * Writes go on while it runs, so the live read models are past the position replayed to when
 * they are read. A document that differs is a suspect until settled: the replay is carried on
 * to the log's head, noting the documents it changes. One it did not change was the same in the
 * live read models at the position compared and when read (the same events make the same
 * changes): the difference stands. One it changed is read again on both sides, at the new
 * position, and so on a few rounds; one still changing then is counted `unsettled`, never listed
 * as a difference.
 */
export async function verifyReadModels(
  events: EventStore,
  live: ReadStore,
  projectors: readonly Projector[],
  options: VerifyOptions = {},
): Promise<Verification> {
  const startedAt = performance.now();
  const collections = [...new Set(projectors.flatMap((p) => p.collections))].sort();
  const scratch = await live.scratch();
  try {
    const check = new Check(events, live, new ChangesNoted(scratch), projectors, options);
    await check.moveOn();
    scan: for (const name of collections) {
      for await (const page of pagesOf(check.rebuilt.collection(name))) {
        const other = await byId(live.collection(name), page);
        for (const doc of page) check.compare(name, other.get(doc._id), doc);
        if (!(await check.room())) break scan;
      }
      for await (const page of pagesOf(live.collection(name))) {
        const other = await byId(check.rebuilt.collection(name), page);
        for (const doc of page) if (!other.has(doc._id)) check.compare(name, doc, undefined);
        if (!(await check.room())) break scan;
      }
    }
    await check.settle();
    return {
      differences: check.differences.slice(0, MAX_DIFFERENCES),
      truncated: check.differences.length > MAX_DIFFERENCES,
      unsettled: check.unsettled,
      position: check.position,
      eventsReplayed: check.eventsReplayed,
      collections,
      ms: Math.round(performance.now() - startedAt),
    };
  } finally {
    await scratch.close();
  }
}

/** A suspect's documents are read again at most this many times before it counts as unsettled. */
const MAX_ROUNDS = 3;

/** The documents of `page`'s ids in `collection`, by _id. */
async function byId(collection: Collection, page: Document[]): Promise<Map<string, Document>> {
  return new Map((await collection.find({ _id: { $in: page.map((d) => d._id) } })).map((d) => [d._id, d]));
}

/** One verification's replay, its suspects, and what it found of them. */
class Check {
  /** The log position the rebuilt read models are at. */
  position = 0;
  eventsReplayed = 0;
  /** The live read models had projected `position` when last waited for: a suspect read since may be settled. */
  private liveThere = false;
  /** Whether the whole log has been replayed once: later replays note what they change. */
  private replayedOnce = false;
  /** Documents that differed at `position`, by collection and _id, with their differences. */
  private suspects = new Map<string, { collection: string; _id: string; differences: Difference[] }>();
  readonly differences: Difference[] = [];
  unsettled = 0;

  constructor(
    private readonly events: EventStore,
    private readonly live: ReadStore,
    readonly rebuilt: ChangesNoted,
    private readonly projectors: readonly Projector[],
    private readonly options: VerifyOptions,
  ) {}

  /**
   * Replays up to the log's head, noting the documents changed, then waits for the live read
   * models to get there. The first replay, of the whole log, notes nothing: its notes would be
   * cleared unread by the next (settle's), and they would hold every document's _id.
   */
  async moveOn(): Promise<void> {
    const head = await this.events.headPosition();
    this.rebuilt.changed.clear();
    this.rebuilt.noting = this.replayedOnce;
    this.replayedOnce = true;
    const before = this.eventsReplayed;
    this.eventsReplayed += await replay(this.events, this.rebuilt, this.projectors, {
      from: this.position,
      to: head,
      onProgress: (count, reached) => this.options.onProgress?.(before + count, reached),
    });
    this.position = Math.max(this.position, head);
    this.liveThere = (await this.options.waitForLive?.(this.position)) ?? true;
  }

  compare(collection: string, live: Document | undefined, rebuilt: Document | undefined): void {
    const differences = documentDifferences(collection, live, rebuilt);
    const _id = (live ?? rebuilt)!._id;
    if (differences.length) this.suspects.set(`${collection}\0${_id}`, { collection, _id, differences });
  }

  /** Settles the suspects once there are as many as could be listed; false once the differences fill the list. */
  async room(): Promise<boolean> {
    if (this.suspects.size > MAX_DIFFERENCES) await this.settle();
    return this.differences.length <= MAX_DIFFERENCES;
  }

  /** Sorts the suspects into differences (the replay did not change them since they were read), equal, or unsettled. */
  async settle(): Promise<void> {
    for (let round = 1; this.suspects.size > 0; round++) {
      const readThere = this.liveThere;
      await this.moveOn();
      for (const [key, suspect] of this.suspects) {
        if (!readThere || this.rebuilt.changedSince(suspect.collection, suspect._id)) continue;
        this.differences.push(...suspect.differences);
        this.suspects.delete(key);
      }
      if (round > MAX_ROUNDS) break;
      await this.readAgain();
    }
    this.unsettled += this.suspects.size;
    this.suspects.clear();
  }

  /** Compares the suspects again, at the position the replay reached. */
  private async readAgain(): Promise<void> {
    const ids = new Map<string, string[]>();
    for (const { collection, _id } of this.suspects.values())
      ids.set(collection, [...(ids.get(collection) ?? []), _id]);
    this.suspects.clear();
    for (const [collection, list] of ids) {
      const filter = { _id: { $in: list } };
      const live = new Map((await this.live.collection(collection).find(filter)).map((d) => [d._id, d]));
      const rebuilt = new Map((await this.rebuilt.collection(collection).find(filter)).map((d) => [d._id, d]));
      for (const id of list)
        if (live.has(id) || rebuilt.has(id)) this.compare(collection, live.get(id), rebuilt.get(id));
    }
  }
}

/** Filters naming one document by _id and nothing else: the writes whose document is known. */
function onlyId(filter: Filter): string | undefined {
  const id = filter._id;
  if (typeof id !== 'string') return undefined;
  for (const key in filter) if (key !== '_id') return undefined;
  return id;
}

/**
 * _ids noted changed in a collection at most: past them the whole collection counts as changed
 * (its suspects are read again rather than settled), so that writes as many as the documents
 * during a check do not cost an _id each in memory.
 */
export const MAX_NOTED_IDS = 10_000;

/**
 * The rebuilt read models, noting the documents each write may change since `changed` was
 * cleared (while `noting`): by _id, or a whole collection when a write names its documents
 * otherwise or past MAX_NOTED_IDS of them.
 */
export class ChangesNoted implements ReadStore {
  /** By collection: the _ids written, or true for any. */
  readonly changed = new Map<string, Set<string> | true>();
  noting = true;

  constructor(private readonly store: ReadStore) {}

  changedSince(collection: string, id: string): boolean {
    const changed = this.changed.get(collection);
    return changed === true || (changed?.has(id) ?? false);
  }

  private note(collection: string, id: string | undefined): void {
    if (!this.noting) return;
    const changed = this.changed.get(collection);
    if (changed === true) return;
    if (id === undefined || (changed && changed.size >= MAX_NOTED_IDS)) this.changed.set(collection, true);
    else if (changed) changed.add(id);
    else this.changed.set(collection, new Set([id]));
  }

  collection<T extends Document = Document>(name: string): Collection<T> {
    const inner = this.store.collection<T>(name);
    const note = (filter: Filter) => this.note(name, onlyId(filter));
    return {
      findOne: (filter) => inner.findOne(filter),
      find: (filter, options) => inner.find(filter, options),
      countDocuments: (filter) => inner.countDocuments(filter),
      insertOne: (doc) => (this.note(name, doc._id), inner.insertOne(doc)),
      updateOne: (filter, update, options) => (note(filter), inner.updateOne(filter, update, options)),
      replaceOne: (filter, replacement, options) => (note(filter), inner.replaceOne(filter, replacement, options)),
      deleteMany: (filter) => (note(filter), inner.deleteMany(filter)),
      bulkWrite: (operations) => {
        for (const op of operations)
          note(
            'updateOne' in op ? op.updateOne.filter : 'replaceOne' in op ? op.replaceOne.filter : op.deleteMany.filter,
          );
        return inner.bulkWrite(operations);
      },
    };
  }

  ensureIndex(collection: string, keys: IndexKeys): Promise<void> {
    return this.store.ensureIndex(collection, keys);
  }

  dropCollection(name: string): Promise<void> {
    this.note(name, undefined);
    return this.store.dropCollection(name);
  }

  listCollections(): Promise<string[]> {
    return this.store.listCollections();
  }

  scratch(): Promise<ReadStore> {
    return this.store.scratch();
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/**
 * The differences between the live and rebuilt versions of a collection, by _id then field path,
 * at most `limit`: each rebuilt page against the live documents of its ids, then each live page
 * for ids the rebuilt version lacks. A page of each side in memory at a time. Both sides as they
 * are: no writes are expected meanwhile (verifyReadModels allows for them).
 */
export async function collectionDifferences(
  collection: string,
  live: ReadStore,
  rebuilt: ReadStore,
  limit = MAX_DIFFERENCES,
): Promise<Difference[]> {
  const found: Difference[] = [];
  for await (const page of pagesOf(rebuilt.collection(collection))) {
    const other = await byId(live.collection(collection), page);
    for (const doc of page) found.push(...documentDifferences(collection, other.get(doc._id), doc));
    if (found.length >= limit) return found.slice(0, limit);
  }
  for await (const page of pagesOf(live.collection(collection))) {
    const other = await byId(rebuilt.collection(collection), page);
    for (const doc of page) if (!other.has(doc._id)) found.push(...documentDifferences(collection, doc, undefined));
    if (found.length >= limit) return found.slice(0, limit);
  }
  return found;
}

/** A collection's documents in pages of PAGE_SIZE, in _id order: each page starts after the last _id of the one before. */
async function* pagesOf(collection: Collection): AsyncGenerator<Document[]> {
  let after: string | null = null;
  for (;;) {
    const page: Document[] = await collection.find(after === null ? {} : { _id: { $gt: after } }, {
      sort: { _id: 1 },
      limit: PAGE_SIZE,
    });
    if (page.length > 0) yield page;
    if (page.length < PAGE_SIZE) return;
    after = page[page.length - 1]._id;
  }
}

/** The differences of one document: missing on a side, or each field that differs. */
function documentDifferences(
  collection: string,
  live: Document | undefined,
  rebuilt: Document | undefined,
): Difference[] {
  if (!live || !rebuilt) return [{ collection, _id: (live ?? rebuilt)!._id, path: '', live, rebuilt }];
  return differingFields(live, rebuilt).map(([path, x, y]) => ({
    collection,
    _id: live._id,
    path,
    live: x,
    rebuilt: y,
  }));
}

/**
 * The leaf-most fields where two values differ, as [dotted path, a's value, b's value]; key
 * order does not matter (MongoDB and the memory store may order keys differently).
 */
export function differingFields(a: unknown, b: unknown, path = ''): [string, unknown, unknown][] {
  if (isDeepStrictEqual(a, b)) return [];
  const bothArrays = Array.isArray(a) && Array.isArray(b);
  if (!bothArrays && !(isPlainObject(a) && isPlainObject(b))) return [[path, a, b]];
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = bothArrays
    ? [...Array(Math.max((a as unknown[]).length, (b as unknown[]).length)).keys()].map(String)
    : [...new Set([...Object.keys(left), ...Object.keys(right)])];
  return keys.flatMap((k) => differingFields(left[k], right[k], path ? `${path}.${k}` : k));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
