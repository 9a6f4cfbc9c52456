import { randomBytes } from 'node:crypto';
import { Binary, MongoClient, type Collection } from 'mongodb';
import { StoreUnavailableError } from '../event-store/port';
import { meansNotNow, withTimeoutDefaults } from '../read-store/mongo';
import { KEY_BYTES, type PlayerKeys } from './port';

interface KeyDocument {
  _id: string;
  key: Binary;
}

/**
 * The production key store: a `player_keys` collection in MongoDB (MONGO_URL). Kept apart from
 * the event log (KurrentDB), so a copy of the log holds no key. A deleted document is gone from
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

  static async connect(url: string, dbName: string): Promise<MongoPlayerKeys> {
    const client = new MongoClient(url, withTimeoutDefaults(url));
    try {
      await client.connect();
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

/** The keys' collection, written durably (above). */
export function keysCollection(client: MongoClient, dbName: string): Collection<KeyDocument> {
  return client.db(dbName).collection<KeyDocument>('player_keys', { writeConcern: { w: 'majority', journal: true } });
}

function unavailableOr(error: unknown): unknown {
  return meansNotNow(error)
    ? new StoreUnavailableError(`key store unavailable: ${(error as Error).message}`, error)
    : error;
}
