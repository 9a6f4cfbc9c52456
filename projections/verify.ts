/**
 * Replaying the log into read models, and checking that the live read models equal a fresh
 * replay: a projector that is not deterministic, or a read model changed by hand, shows up as a
 * difference naming the document and the field.
 */
import { isDeepStrictEqual } from 'node:util';
import type { EventStore } from '../shared/adapters/event-store/port';
import { domainEventOf } from '../shared/domain/events';
import type { Difference, Verification } from '../shared/read-models/verification';
import type { Collection, Document, ReadStore } from '../shared/adapters/read-store/port';
import type { Projector } from './runner';

const PAGE_SIZE = 1000;
/** Writes during a verification move the live read models past the replay: compare again, this many times at most. */
const MAX_ROUNDS = 3;

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
  /** Resolves once the live read models have projected `position` (or gave up waiting). */
  waitForLive?(position: number): Promise<unknown>;
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
 */
export async function verifyReadModels(
  events: EventStore,
  live: ReadStore,
  projectors: readonly Projector[],
  options: VerifyOptions = {},
): Promise<Verification> {
  const startedAt = performance.now();
  const collections = [...new Set(projectors.flatMap((p) => p.collections))].sort();
  const rebuilt = await live.scratch();
  let eventsReplayed = 0;
  let position = 0;
  try {
    for (let round = 1; ; round++) {
      const head = await events.headPosition();
      const before = eventsReplayed;
      eventsReplayed += await replay(events, rebuilt, projectors, {
        from: position,
        to: head,
        onProgress: (count, reached) => options.onProgress?.(before + count, reached),
      });
      position = head;
      await options.waitForLive?.(head);
      const differences: Difference[] = [];
      for (const name of collections) {
        differences.push(
          ...(await collectionDifferences(name, live, rebuilt, MAX_DIFFERENCES + 1 - differences.length)),
        );
        if (differences.length > MAX_DIFFERENCES) break;
      }
      const truncated = differences.length > MAX_DIFFERENCES;
      if (differences.length === 0 || round === MAX_ROUNDS || (await events.headPosition()) === head) {
        return {
          differences: differences.slice(0, MAX_DIFFERENCES),
          truncated,
          eventsReplayed,
          collections,
          ms: Math.round(performance.now() - startedAt),
        };
      }
    }
  } finally {
    await rebuilt.close();
  }
}

/**
 * The differences between the live and rebuilt versions of a collection, by _id then field path,
 * at most `limit`: each rebuilt page against the live documents of its ids, then each live page
 * for ids the rebuilt version lacks. A page of each side in memory at a time.
 */
export async function collectionDifferences(
  collection: string,
  live: ReadStore,
  rebuilt: ReadStore,
  limit = MAX_DIFFERENCES,
): Promise<Difference[]> {
  const found: Difference[] = [];
  for await (const page of pagesOf(rebuilt.collection(collection))) {
    const other = new Map(
      (await live.collection(collection).find({ _id: { $in: page.map((d) => d._id) } })).map((d) => [d._id, d]),
    );
    for (const doc of page) found.push(...documentDifferences(collection, other.get(doc._id), doc));
    if (found.length >= limit) return found.slice(0, limit);
  }
  for await (const page of pagesOf(live.collection(collection))) {
    const other = new Set(
      (await rebuilt.collection(collection).find({ _id: { $in: page.map((d) => d._id) } })).map((d) => d._id),
    );
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
