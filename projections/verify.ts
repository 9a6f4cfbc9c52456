/**
 * Replaying the log into read models, and checking that the live read models equal a fresh
 * replay: a projector that is not deterministic, or a read model changed by hand, shows up as a
 * difference naming the document and the field.
 */
import { isDeepStrictEqual } from 'node:util';
import type { EventStore } from '../shared/event-store/port';
import { MemoryReadStore } from '../shared/read-store/memory';
import type { Document, ReadStore } from '../shared/read-store/port';
import type { Projector } from './runner';

const PAGE_SIZE = 1000;
/** Writes during a verification move the live read models past the replay: compare again, this many times at most. */
const MAX_ROUNDS = 3;

export interface ReplayOptions {
  /** Replay events after this position (exclusive). Default: from the start. */
  from?: number;
  /** Last position to replay (inclusive). */
  to: number;
  onProgress?(position: number): void;
}

/**
 * Applies the log between two positions to `store` through each projector that handles the
 * event, in the order the runner applies them, reading one page at a time. Returns the number of
 * events read. Checkpoints are the caller's business.
 */
export async function replay(events: EventStore, store: ReadStore, projectors: readonly Projector[], options: ReplayOptions): Promise<number> {
  let position = options.from ?? 0;
  let count = 0;
  while (position < options.to) {
    const page = await events.readAll({ fromPosition: position, maxCount: PAGE_SIZE });
    for (const event of page) {
      if (event.position > options.to) return count;
      for (const projector of projectors) if (projector.handles.has(event.type)) await projector.apply(event, store);
      position = event.position;
      count += 1;
    }
    options.onProgress?.(position);
    if (page.length < PAGE_SIZE) break;
  }
  return count;
}

export interface Difference {
  collection: string;
  _id: string;
  /** Dotted path of the field that differs; empty when the document is missing on one side. */
  path: string;
  /** undefined (absent from JSON) when the field or document is missing on that side. */
  live: unknown;
  rebuilt: unknown;
}

export interface Verification {
  differences: Difference[];
  eventsReplayed: number;
  collections: string[];
}

export interface VerifyOptions {
  /** Resolves once the live read models have projected `position` (or gave up waiting). */
  waitForLive?(position: number): Promise<unknown>;
}

/**
 * Replays every event into fresh in-memory read models and compares them, collection by
 * collection and document by document, with `live`. Checkpoints are not compared: they record
 * progress, not state.
 */
export async function verifyReadModels(events: EventStore, live: ReadStore, projectors: readonly Projector[], options: VerifyOptions = {}): Promise<Verification> {
  const collections = [...new Set(projectors.flatMap((p) => p.collections))].sort();
  const rebuilt = new MemoryReadStore();
  let eventsReplayed = 0;
  let position = 0;
  try {
    for (let round = 1; ; round++) {
      const head = await events.headPosition();
      eventsReplayed += await replay(events, rebuilt, projectors, { from: position, to: head });
      position = head;
      await options.waitForLive?.(head);
      const differences: Difference[] = [];
      for (const name of collections) differences.push(...compareCollection(name, await live.collection(name).find({}), await rebuilt.collection(name).find({})));
      if (differences.length === 0 || round === MAX_ROUNDS || (await events.headPosition()) === head) return { differences, eventsReplayed, collections };
    }
  } finally {
    await rebuilt.close();
  }
}

/** Differences between two versions of a collection, by _id then field path. */
export function compareCollection(collection: string, live: Document[], rebuilt: Document[]): Difference[] {
  const liveById = new Map(live.map((d) => [d._id, d]));
  const rebuiltById = new Map(rebuilt.map((d) => [d._id, d]));
  const ids = [...new Set([...liveById.keys(), ...rebuiltById.keys()])].sort();
  const out: Difference[] = [];
  for (const _id of ids) {
    const a = liveById.get(_id);
    const b = rebuiltById.get(_id);
    if (!a || !b) out.push({ collection, _id, path: '', live: a, rebuilt: b });
    else for (const [path, x, y] of differingFields(a, b)) out.push({ collection, _id, path, live: x, rebuilt: y });
  }
  return out;
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
  const keys = bothArrays ? [...Array(Math.max((a as unknown[]).length, (b as unknown[]).length)).keys()].map(String) : [...new Set([...Object.keys(left), ...Object.keys(right)])];
  return keys.flatMap((k) => differingFields(left[k], right[k], path ? `${path}.${k}` : k));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
