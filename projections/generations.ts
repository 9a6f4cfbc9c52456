/**
 * Generations of the read models shared in MongoDB. A projector of another version (or over
 * another log) does not rebuild the read models the read role is serving: it builds a new
 * generation, the same collections under a prefix of their own (`g<n>_`), beside the live one,
 * and makes it live once it has caught up with the log's head of its start. Readers follow the
 * live generation named in one document of the `read_models` collection (LiveReadModels); the one
 * replaced is dropped a grace period later, when no reader still reads it. Read models built
 * before generations existed are the generation of no prefix ('').
 */
import type { Collection, Document, IndexKeys, ReadStore } from '../shared/adapters/read-store/port';
import { CHECKPOINTS, ORIGIN, type Projector } from './projector';

/** Where the live generation is named: a collection of no generation. */
export const READ_MODELS = 'read_models';
const GENERATIONS = 'generations';
/** How often readers look for a newly live generation. */
export const FOLLOW_EVERY_MS = 1000;
/** A replaced generation is dropped this long after the switch: readers have moved on long before. */
export const RETIRED_DROPPED_AFTER_MS = 30_000;
const PREFIX = /^g\d+_/;

export type GenerationsDocument = {
  _id: typeof GENERATIONS;
  /** The prefix of the generation readers read; null: none caught up yet. */
  live: string | null;
  /** The prefix of the generation a projector is building, or null. */
  building: string | null;
  /** Replaced generations, to be dropped. */
  retired: string[];
  /** The number of the next generation's prefix. */
  next: number;
};

/** The collections of a generation: the projectors' (those they retired included) and their checkpoints. */
export function generationCollections(projectors: readonly Projector[]): ReadonlySet<string> {
  return new Set([CHECKPOINTS, ...projectors.flatMap((p) => [...p.collections, ...(p.retiredCollections ?? [])])]);
}

export function generationsOf(store: ReadStore): Collection<GenerationsDocument & Document> {
  return store.collection<GenerationsDocument & Document>(READ_MODELS);
}

export async function readGenerations(store: ReadStore): Promise<GenerationsDocument | null> {
  return generationsOf(store).findOne({ _id: GENERATIONS });
}

/** Read models built before generations existed (no prefix), by an earlier version. */
export async function hasReadModelsOfBefore(store: ReadStore): Promise<boolean> {
  return (await store.collection(CHECKPOINTS).findOne({ _id: ORIGIN })) !== null;
}

/** Drops a generation's collections. */
export async function dropGeneration(store: ReadStore, prefix: string, names: ReadonlySet<string>): Promise<void> {
  for (const name of names) await store.dropCollection(prefix + name);
}

/** A read store whose generation's collections are those of the prefix `prefix()` answers; others pass. */
export class GenerationReadStore implements ReadStore {
  constructor(
    readonly underlying: ReadStore,
    private readonly names: ReadonlySet<string>,
    private readonly prefix: () => string,
  ) {}

  private named(name: string): string {
    return this.names.has(name) ? this.prefix() + name : name;
  }

  collection<T extends Document = Document>(name: string): Collection<T> {
    return this.underlying.collection<T>(this.named(name));
  }

  ensureIndex(collection: string, keys: IndexKeys): Promise<void> {
    return this.underlying.ensureIndex(this.named(collection), keys);
  }

  dropCollection(name: string): Promise<void> {
    return this.underlying.dropCollection(this.named(name));
  }

  /** The generation's collections by their own names, and the collections of no generation. */
  async listCollections(): Promise<string[]> {
    const prefix = this.prefix();
    const listed: string[] = [];
    for (const name of await this.underlying.listCollections()) {
      const own = name.startsWith(prefix) ? name.slice(prefix.length) : null;
      if (own !== null && this.names.has(own) && (prefix !== '' || !PREFIX.test(name))) listed.push(own);
      else if (!this.names.has(name) && !PREFIX.test(name)) listed.push(name);
    }
    return listed;
  }

  scratch(): Promise<ReadStore> {
    return this.underlying.scratch();
  }

  close(): Promise<void> {
    return this.underlying.close();
  }
}

/**
 * The live generation, as readers see it: `store` reads it, and follows the switch to a new one
 * within FOLLOW_EVERY_MS (`follow`). Nothing to serve until a projector has made one live (or
 * read models of before generations are there).
 */
export class LiveReadModels {
  readonly store: ReadStore;
  private live: string | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly underlying: ReadStore,
    projectors: readonly Projector[],
  ) {
    this.store = new GenerationReadStore(underlying, generationCollections(projectors), () => this.live ?? '');
  }

  /** Reads which generation is live; rejects when the store does not answer (the last one found stays). */
  async refresh(): Promise<void> {
    const generations = await readGenerations(this.underlying);
    if (generations) this.live = generations.live;
    // Read models of before generations: built and served by earlier versions.
    else this.live = (await hasReadModelsOfBefore(this.underlying)) ? '' : null;
  }

  /** Refreshes now, then every FOLLOW_EVERY_MS until `stop`. */
  async follow(onError: (error: Error) => void): Promise<void> {
    await this.refresh().catch(onError);
    this.timer = setInterval(() => void this.refresh().catch(onError), FOLLOW_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Why there is nothing to serve, or null: readiness. */
  problem(): string | null {
    return this.live === null ? 'no read models to serve yet: the projector is building them' : null;
  }
}
