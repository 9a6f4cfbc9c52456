/**
 * The standings of MongoDB's score documents kept in Redis, where a rank costs O(log n): MongoDB
 * counts a range and skips into it by walking it, so a rank there costs O(rank).
 *
 * One sorted set per board and period key (scope included), every member at score 0 so that
 * Redis orders them by their bytes: the score descending (8 bytes, the double's bits made to
 * sort), reachedAt ascending (8 bytes, the same), then the owner (each UTF-16 code unit as UTF-8
 * writes a code point below U+10000, which sorts as JavaScript compares strings). The order is
 * exactly STANDINGS_ORDER's, with no double's rounding: the bytes are the numbers' own. A hash
 * beside each set names each owner's member, so that a new document replaces its old member and
 * a read finds a player's. Beside them, a set of the board period keys, for a drop.
 *
 * RankedReadStore keeps them: each write of a score document goes to Redis before MongoDB (one
 * script per batch, each document's old member out and the new one in). A redelivery after a
 * crash between the two writes the same documents again, which leaves Redis as it is; a drop of
 * the collection (a rebuild) deletes them. The keys carry the collection's name as the store
 * underneath has it, so a generation of the read models built under a prefix of its own has
 * standings of its own.
 */
import { Redis } from 'ioredis';
import { StoreUnavailableError } from '../adapters/event-store/port';
import type {
  Collection,
  Document,
  Filter,
  FindOptions,
  IndexKeys,
  ReadStore,
  UpdateOptions,
  UpdateResult,
  WriteOperation,
} from '../adapters/read-store/port';
import { LEADERBOARD_COLLECTIONS, type ScoreDoc } from './leaderboards';
import type { RankedCollection, RankIndex, Standing, StandingsKey } from './standings';

/** 8 bytes that sort as the number does among numbers (ascending): the IEEE 754 bits, the sign's order turned. */
function sortableNumber(value: number, descending: boolean): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeDoubleBE(value === 0 ? 0 : value);
  const negative = (bytes[0] & 0x80) !== 0;
  for (let i = 0; i < 8; i++) {
    let b = negative ? ~bytes[i] & 0xff : bytes[i];
    if (i === 0 && !negative) b ^= 0x80;
    bytes[i] = descending ? ~b & 0xff : b;
  }
  return bytes;
}

function numberOf(sortable: Buffer, descending: boolean): number {
  const bytes = Buffer.from(descending ? sortable.map((b) => ~b & 0xff) : sortable);
  const negative = (bytes[0] & 0x80) === 0;
  if (negative) for (let i = 0; i < 8; i++) bytes[i] = ~bytes[i] & 0xff;
  else bytes[0] ^= 0x80;
  return bytes.readDoubleBE(0);
}

/** Each UTF-16 code unit as UTF-8 writes a code point: bytes that sort as the code units do. */
function codeUnitBytes(text: string): Buffer {
  const out = Buffer.alloc(text.length * 3);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const u = text.charCodeAt(i);
    if (u < 0x80) out[n++] = u;
    else if (u < 0x800) {
      out[n++] = 0xc0 | (u >> 6);
      out[n++] = 0x80 | (u & 0x3f);
    } else {
      out[n++] = 0xe0 | (u >> 12);
      out[n++] = 0x80 | ((u >> 6) & 0x3f);
      out[n++] = 0x80 | (u & 0x3f);
    }
  }
  return out.subarray(0, n);
}

function textOf(bytes: Buffer): string {
  const units: number[] = [];
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i];
    if (b < 0x80) {
      units.push(b);
      i += 1;
    } else if (b < 0xe0) {
      units.push(((b & 0x1f) << 6) | (bytes[i + 1] & 0x3f));
      i += 2;
    } else {
      units.push(((b & 0x0f) << 12) | ((bytes[i + 1] & 0x3f) << 6) | (bytes[i + 2] & 0x3f));
      i += 3;
    }
  }
  return String.fromCharCode(...units);
}

const SCORE_BYTES = 8;
const OWNER_AT = 16;

/** A standing's member of its sorted set. */
export const memberOf = (doc: Pick<ScoreDoc, 'score' | 'reachedAt' | 'playerId'>): Buffer =>
  Buffer.concat([sortableNumber(doc.score, true), sortableNumber(doc.reachedAt, false), codeUnitBytes(doc.playerId)]);

const standingOf = (member: Buffer): Standing => ({
  owner: textOf(member.subarray(OWNER_AT)),
  score: numberOf(member.subarray(0, SCORE_BYTES), true),
});

/**
 * KEYS[1]: the set of board period keys; then per document its sorted set and hash. ARGV per
 * document: its board period key, owner, and new member ('' when out of the standings).
 */
const WRITE_SCRIPT = `
for d = 1, (#KEYS - 1) / 2 do
  local standings, members = KEYS[2 * d], KEYS[2 * d + 1]
  local group, owner, member = ARGV[3 * d - 2], ARGV[3 * d - 1], ARGV[3 * d]
  local old = redis.call('HGET', members, owner)
  if old then redis.call('ZREM', standings, old) end
  if member == '' then
    redis.call('HDEL', members, owner)
  else
    redis.call('ZADD', standings, 0, member)
    redis.call('HSET', members, owner, member)
    redis.call('SADD', KEYS[1], group)
  end
end
return 0
`;

/** KEYS: the sorted set and hash of a board period. ARGV[1]: the owner. Their member and its rank, or nil. */
const FIND_SCRIPT = `
local member = redis.call('HGET', KEYS[2], ARGV[1])
if not member then return nil end
return {member, redis.call('ZRANK', KEYS[1], member)}
`;

/** Documents written per script: a batch's thousands are written in a few, none holding Redis long. */
const DOCUMENTS_PER_SCRIPT = 500;

/** Error replies meaning Redis cannot serve right now (loading, failing over), not a bug here. */
const UNAVAILABLE_REPLY = /^(LOADING|BUSY|MASTERDOWN|READONLY|CLUSTERDOWN|TRYAGAIN)\b/;

/** A reply error is a bug (or Redis's refusal) unless it says "not now"; anything else is the connection's. */
function unavailableOr(error: unknown): unknown {
  const reply = error instanceof Error && error.name === 'ReplyError';
  if (reply && !UNAVAILABLE_REPLY.test(error.message)) return error;
  return new StoreUnavailableError(`standings in redis unavailable: ${(error as Error).message}`, error);
}

/** The standings of one collection's score documents in Redis, under `prefix`. */
export class RedisStandings implements RankIndex {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private keysOf({ board, period }: StandingsKey): [standings: string, members: string] {
    const group = `${board}|${period}`;
    return [`${this.prefix}z:${group}`, `${this.prefix}h:${group}`];
  }

  private get groups(): string {
    return `${this.prefix}groups`;
  }

  async slice(key: StandingsKey, start: number, count: number): Promise<Standing[]> {
    if (count <= 0) return [];
    const members = await this.run(() => this.redis.zrangeBuffer(this.keysOf(key)[0], start, start + count - 1));
    return members.map(standingOf);
  }

  above(key: StandingsKey, score: number): Promise<number> {
    const bound = Buffer.concat([Buffer.from('('), sortableNumber(score, true)]);
    return this.run(() => this.redis.zlexcount(this.keysOf(key)[0], '-', bound));
  }

  async find(key: StandingsKey, owner: string): Promise<{ standing: Standing; position: number } | null> {
    const found = (await this.run(() => this.redis.callBuffer('EVAL', FIND_SCRIPT, 2, ...this.keysOf(key), owner))) as
      [Buffer, number] | null;
    return found ? { standing: standingOf(found[0]), position: found[1] } : null;
  }

  /** Each document's standing as written: its old member out, its new one in (none when out of the standings). */
  async write(docs: readonly ScoreDoc[]): Promise<void> {
    for (let i = 0; i < docs.length; i += DOCUMENTS_PER_SCRIPT) {
      const keys: string[] = [this.groups];
      const args: (string | Buffer)[] = [];
      for (const doc of docs.slice(i, i + DOCUMENTS_PER_SCRIPT)) {
        keys.push(...this.keysOf(doc));
        args.push(`${doc.board}|${doc.period}`, doc.playerId, doc.inStandings ? memberOf(doc) : '');
      }
      await this.run(() => this.redis.eval(WRITE_SCRIPT, keys.length, ...keys, ...args));
    }
  }

  /** Removes every standing of the collection. */
  async drop(): Promise<void> {
    const groups = await this.run(() => this.redis.smembers(this.groups));
    for (let i = 0; i < groups.length; i += DOCUMENTS_PER_SCRIPT) {
      const keys = groups
        .slice(i, i + DOCUMENTS_PER_SCRIPT)
        .flatMap((group) => [`${this.prefix}z:${group}`, `${this.prefix}h:${group}`]);
      await this.run(() => this.redis.unlink(...keys));
    }
    await this.run(() => this.redis.unlink(this.groups));
  }

  private async run<R>(call: () => Promise<R>): Promise<R> {
    try {
      return await call();
    } catch (error) {
      throw unavailableOr(error);
    }
  }
}

/** A score collection, whatever prefix the store underneath gives it (a generation's, g<n>_). */
const isScores = (name: string): boolean =>
  name === LEADERBOARD_COLLECTIONS.scores || name.endsWith(`_${LEADERBOARD_COLLECTIONS.scores}`);

/**
 * A read store whose score collections keep their standings in Redis (RedisStandings), under
 * `prefix` and the collection's name; the rest passes through. It owns the Redis client: closing
 * the store closes it.
 */
export class RankedReadStore implements ReadStore {
  private readonly handles = new Map<string, RankedScores>();

  constructor(
    private readonly underlying: ReadStore,
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /**
   * Over `underlying`, with a client of Redis at `url` that gives up on a command within 3 s (a
   * read answers 503, a projector's batch is written again later) rather than queueing it.
   */
  static connect(underlying: ReadStore, url: string, prefix: string): RankedReadStore {
    const redis = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: 3000, connectTimeout: 3000 });
    // Errors reach the commands that meet them; unhandled, the client's own would be logged as a crash.
    redis.on('error', () => undefined);
    return new RankedReadStore(underlying, redis, prefix);
  }

  private standingsOf(name: string): RedisStandings {
    return new RedisStandings(this.redis, `${this.prefix}${name}:`);
  }

  collection<T extends Document = Document>(name: string): Collection<T> {
    if (!isScores(name)) return this.underlying.collection<T>(name);
    let handle = this.handles.get(name);
    if (!handle) {
      handle = new RankedScores(this.underlying.collection<ScoreDoc>(name), this.standingsOf(name));
      this.handles.set(name, handle);
    }
    return handle as unknown as Collection<T>;
  }

  ensureIndex(collection: string, keys: IndexKeys): Promise<void> {
    return this.underlying.ensureIndex(collection, keys);
  }

  /** Standings first: a drop cut off between the two leaves documents, which the rebuild run again drops; never standings without documents. */
  async dropCollection(name: string): Promise<void> {
    if (isScores(name)) await this.standingsOf(name).drop();
    return this.underlying.dropCollection(name);
  }

  listCollections(): Promise<string[]> {
    return this.underlying.listCollections();
  }

  /** A verification's store: it compares documents, not standings. */
  scratch(): Promise<ReadStore> {
    return this.underlying.scratch();
  }

  async close(): Promise<void> {
    try {
      await this.underlying.close();
    } finally {
      this.redis.disconnect();
    }
  }
}

const WHOLE_DOCUMENTS =
  'score documents are written whole (upserted replacements) or deleted, so that their standings are kept';

/**
 * A score collection whose writes keep its standings, Redis first. Written with whole documents
 * (replaceOne, a bulk write of them) and deleteMany, as the leaderboards projector writes it; an
 * update by operators or an insert would leave Redis not knowing the document, so they throw.
 */
class RankedScores implements RankedCollection {
  constructor(
    private readonly scores: Collection<ScoreDoc>,
    readonly ranks: RedisStandings,
  ) {}

  findOne(filter: Filter): Promise<ScoreDoc | null> {
    return this.scores.findOne(filter);
  }

  find(filter: Filter, options?: FindOptions): Promise<ScoreDoc[]> {
    return this.scores.find(filter, options);
  }

  countDocuments(filter: Filter): Promise<number> {
    return this.scores.countDocuments(filter);
  }

  async insertOne(): Promise<void> {
    throw new Error(WHOLE_DOCUMENTS);
  }

  async updateOne(): Promise<UpdateResult> {
    throw new Error(WHOLE_DOCUMENTS);
  }

  async replaceOne(filter: Filter, replacement: ScoreDoc, options: UpdateOptions = {}): Promise<UpdateResult> {
    // Only a document that will be there has a standing: without upsert, only once it replaced one.
    if (!options.upsert) {
      const result = await this.scores.replaceOne(filter, replacement, options);
      if (result.matchedCount > 0) await this.ranks.write([replacement]);
      return result;
    }
    await this.ranks.write([replacement]);
    return this.scores.replaceOne(filter, replacement, options);
  }

  async deleteMany(filter: Filter): Promise<number> {
    const gone = await this.scores.find(filter);
    await this.ranks.write(gone.map((doc) => ({ ...doc, inStandings: false })));
    return this.scores.deleteMany(filter);
  }

  /** In order: each run of upserted replacements written to Redis and then to the collection, a deleteMany as deleteMany does. */
  async bulkWrite(operations: WriteOperation[]): Promise<void> {
    let run: Extract<WriteOperation, { replaceOne: unknown }>[] = [];
    const writeRun = async () => {
      if (run.length === 0) return;
      await this.ranks.write(run.map((op) => op.replaceOne.replacement as ScoreDoc));
      await this.scores.bulkWrite(run);
      run = [];
    };
    for (const op of operations) {
      if ('replaceOne' in op && op.replaceOne.upsert) run.push(op);
      else if ('deleteMany' in op) {
        await writeRun();
        await this.deleteMany(op.deleteMany.filter);
      } else throw new Error(WHOLE_DOCUMENTS);
    }
    await writeRun();
  }
}
