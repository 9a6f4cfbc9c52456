import { randomBytes } from 'node:crypto';
import { Binary, MongoClient, MongoServerError, type Collection } from 'mongodb';
import { StoreUnavailableError } from '../event-store/port';
import { meansNotNow, withTimeoutDefaults } from '../read-store/mongo';
import { KEY_BYTES, type PlayerKeys } from './port';

interface KeyDocument {
  _id: string;
  key: Binary;
}

/**
 * The production key store: a `player_keys` collection in MongoDB (MONGO_URL), in a database of
 * its own (MONGO_KEYS_DATABASE). Kept apart from the event log (KurrentDB), so a copy of the log
 * holds no key, and from the read models' database, whose plaintext names a backup of the keys
 * need not hold (docs/operations.md, "Backups"). A deleted document is gone from
 * the server's data files as its storage engine reuses the space; backups of this database must
 * expire within the erasure period (docs/personal-data.md).
 *
 * Every write is acknowledged by a majority of the replica set and on its journal: the codec
 * appends an event encrypted under a key only once getOrCreate has answered, so a crash of the
 * server cannot keep the event and lose the key (the default write concern, on a single node,
 * answers before the journal is written); and an erasure answered is not undone by a fail-over.
 */
export class MongoPlayerKeys implements PlayerKeys {
  private constructor(
    private readonly client: MongoClient,
    private readonly keys: Collection<KeyDocument>,
  ) {}

  /** `movedFrom`: the read models' database, where earlier versions kept the keys (moved out once, moveKeysOut). */
  static async connect(url: string, dbName: string, movedFrom?: string): Promise<MongoPlayerKeys> {
    const client = new MongoClient(url, withTimeoutDefaults(url));
    try {
      await client.connect();
      if (movedFrom !== undefined) await moveKeysOut(client, movedFrom, dbName);
      return new MongoPlayerKeys(client, keysCollection(client, dbName));
    } catch (error) {
      await client.close();
      throw unavailableOr(error);
    }
  }

  async getOrCreate(playerId: string): Promise<Buffer> {
    try {
      // An upsert that only sets on insert: two processes making a key at once both get the first one kept.
      const kept = await this.keys.findOneAndUpdate(
        { _id: playerId },
        { $setOnInsert: { key: new Binary(randomBytes(KEY_BYTES)) } },
        { upsert: true, returnDocument: 'after' },
      );
      return Buffer.from(kept!.key.buffer);
    } catch (error) {
      throw unavailableOr(error);
    }
  }

  async get(playerId: string): Promise<Buffer | null> {
    try {
      const found = await this.keys.findOne({ _id: playerId });
      return found ? Buffer.from(found.key.buffer) : null;
    } catch (error) {
      throw unavailableOr(error);
    }
  }

  async delete(playerId: string): Promise<void> {
    try {
      await this.keys.deleteOne({ _id: playerId });
    } catch (error) {
      throw unavailableOr(error);
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

const KEYS = 'player_keys';
const DURABLE = { w: 'majority', journal: true } as const;

/** The keys' collection, written durably (above). */
export function keysCollection(client: MongoClient, dbName: string): Collection<KeyDocument> {
  return client.db(dbName).collection<KeyDocument>(KEYS, { writeConcern: DURABLE });
}

/** Keys in both the read models' database (an earlier version's) and their own: which to keep is the operator's call. */
export class KeysInTwoDatabasesError extends Error {
  constructor(
    readonly from: string,
    readonly to: string,
  ) {
    super(
      `MongoDB holds players' keys in both ${from}.${KEYS} (where an earlier version kept them) and ${to}.${KEYS}: ` +
        `stop every process, keep the keys of the deployment's players (docs/operations.md, "Backups"), drop the other collection, and start again`,
    );
    this.name = 'KeysInTwoDatabasesError';
  }
}

/** MongoDB's NamespaceNotFound: the collection to rename is gone. */
const NAMESPACE_NOT_FOUND = 26;

/**
 * Moves the keys an earlier version kept in the read models' database (`from`) to their own
 * (`to`), by one rename on the server: no key is read and written back, so an erasure made
 * meanwhile by another process cannot be undone by a copy of its key. Refuses when both hold
 * keys (an earlier version still running wrote some after a move).
 */
export async function moveKeysOut(client: MongoClient, from: string, to: string): Promise<void> {
  const exists = async (db: string) =>
    (await client.db(db).listCollections({ name: KEYS }, { nameOnly: true }).toArray()).length > 0;
  if (!(await exists(from))) return;
  if (await exists(to)) throw new KeysInTwoDatabasesError(from, to);
  try {
    await client
      .db('admin')
      .command({ renameCollection: `${from}.${KEYS}`, to: `${to}.${KEYS}`, writeConcern: DURABLE });
  } catch (error) {
    // Another process starting at the same time moved them first.
    if (error instanceof MongoServerError && error.code === NAMESPACE_NOT_FOUND && (await exists(to))) return;
    throw error;
  }
}

function unavailableOr(error: unknown): unknown {
  return meansNotNow(error)
    ? new StoreUnavailableError(`key store unavailable: ${(error as Error).message}`, error)
    : error;
}
