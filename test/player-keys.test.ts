import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { MongoClient, MongoServerError } from 'mongodb';
import { StoreUnavailableError } from '../shared/adapters/event-store/port';
import { CachedPlayerKeys } from '../shared/adapters/player-keys/cached';
import {
  keysCollection,
  KeysInTwoDatabasesError,
  MongoPlayerKeys,
  moveKeysOut,
} from '../shared/adapters/player-keys/mongo';
import type { PlayerKeys } from '../shared/adapters/player-keys/port';
import { SqlitePlayerKeys } from '../shared/adapters/player-keys/sqlite';
import { playerKeysContract } from './contracts/player-keys.contract';
import { withServer } from './support/server-suites';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'player-keys-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = path.join(dir, 'player-keys.sqlite');

playerKeysContract('SqlitePlayerKeys', async () => new SqlitePlayerKeys(file));
playerKeysContract(
  'CachedPlayerKeys over SqlitePlayerKeys',
  async () => new CachedPlayerKeys(new SqlitePlayerKeys(file), 2),
);

describe.each([
  ['SqlitePlayerKeys', (file: string) => new SqlitePlayerKeys(file, 50)],
  ['CachedPlayerKeys over SqlitePlayerKeys', (file: string) => new CachedPlayerKeys(new SqlitePlayerKeys(file, 50), 2)],
])('%s: keys asked for at once', (_name, openKeys: (file: string) => PlayerKeys) => {
  const ownFile = () => path.join(fs.mkdtempSync(path.join(dir, 'batch-')), 'player-keys.sqlite');
  const newPlayers = (n: number) => Array.from({ length: n }, () => `player-${randomUUID()}`);

  it('keeps them all after the file is opened again', async () => {
    const own = ownFile();
    const players = newPlayers(300);
    const keys = openKeys(own);
    const made = await Promise.all(players.map((p) => keys.getOrCreate(p)));
    await keys.close();
    const reopened = openKeys(own);
    expect(await Promise.all(players.map((p) => reopened.get(p)))).toEqual(made);
    expect(await Promise.all(players.map((p) => reopened.getOrCreate(p)))).toEqual(made);
    await reopened.close();
  });

  it('writes a key asked for just before closing', async () => {
    const own = ownFile();
    const [player] = newPlayers(1);
    const keys = openKeys(own);
    const asked = keys.getOrCreate(player);
    await keys.close();
    const made = await asked;
    const reopened = openKeys(own);
    expect(await reopened.get(player)).toEqual(made);
    await reopened.close();
  });

  it('deletes a key still being made: those who asked before get it, the store keeps none, and the next ask makes a new one', async () => {
    const own = ownFile();
    const [erased, kept] = newPlayers(2);
    const keys = openKeys(own);
    const asked = [keys.getOrCreate(erased), keys.getOrCreate(kept)];
    await keys.delete(erased);
    const [given, keptKey] = await Promise.all(asked);
    expect(given).toHaveLength(32);
    expect(await keys.get(erased)).toBeNull();
    expect(await keys.get(kept)).toEqual(keptKey);
    const remade = await keys.getOrCreate(erased);
    expect(remade).not.toEqual(given);
    await keys.close();
    const reopened = openKeys(own);
    expect(await reopened.get(erased)).toEqual(remade);
    await reopened.close();
    const bytes = Buffer.concat(
      fs.readdirSync(path.dirname(own)).map((name) => fs.readFileSync(path.join(path.dirname(own), name))),
    );
    expect(bytes.includes(given)).toBe(false);
  });

  // Tests run as root, for whom chmod does not stop writes: the file is made unwritable by
  // another connection holding its write lock, past the store's busy timeout.
  it('answers StoreUnavailableError to every waiter of a batch it cannot write, and makes the keys once it can', async () => {
    const own = ownFile();
    const players = newPlayers(10);
    const keys = openKeys(own);
    await keys.getOrCreate(players[0]);
    const locker = new Database(own);
    locker.exec('BEGIN IMMEDIATE');
    const answers = await Promise.allSettled([...players.slice(1), players[1]].map((p) => keys.getOrCreate(p)));
    expect(answers.map((a) => a.status === 'rejected' && a.reason instanceof StoreUnavailableError)).toEqual(
      answers.map(() => true),
    );
    locker.exec('ROLLBACK');
    locker.close();
    const made = await Promise.all(players.map((p) => keys.getOrCreate(p)));
    expect(await Promise.all(players.map((p) => keys.get(p)))).toEqual(made);
    await keys.close();
  });
});

describe('CachedPlayerKeys of two processes over one store', () => {
  it('a key the other deleted is served no longer than the cache keeps it, counted from when the store was asked', async () => {
    const own = path.join(fs.mkdtempSync(path.join(dir, 'age-')), 'player-keys.sqlite');
    let clock = 0;
    const reader = new CachedPlayerKeys(new SqlitePlayerKeys(own), 10, 1000, () => clock);
    const eraser = new CachedPlayerKeys(new SqlitePlayerKeys(own), 10, 1000, () => clock);
    const player = `player-${randomUUID()}`;
    const key = await eraser.getOrCreate(player);
    expect(await reader.get(player)).toEqual(key);
    clock = 400;
    await eraser.delete(player);
    // Used again since, but read from the store at 0: kept until 1000, not 1400.
    clock = 999;
    expect(await reader.get(player)).toEqual(key);
    clock = 1000;
    expect([await reader.get(player), await eraser.get(player)]).toEqual([null, null]);
    await Promise.all([reader.close(), eraser.close()]);
  });
});

describe('SqlitePlayerKeys files', () => {
  it('holds no byte of a deleted key in any of its files', async () => {
    const own = path.join(fs.mkdtempSync(path.join(dir, 'bytes-')), 'player-keys.sqlite');
    const keys = new SqlitePlayerKeys(own);
    const players = Array.from({ length: 20 }, () => `player-${randomUUID()}`);
    const made = await Promise.all(players.map((p) => keys.getOrCreate(p)));
    await keys.delete(players[7]);
    const bytes = Buffer.concat(
      fs.readdirSync(path.dirname(own)).map((name) => fs.readFileSync(path.join(path.dirname(own), name))),
    );
    expect(bytes.includes(made[7])).toBe(false);
    expect(bytes.includes(made[8])).toBe(true);
    await keys.close();
  });
});

describe('MongoPlayerKeys writes', () => {
  // Only a server shows the writes waiting for the journal; the driver sends the collection's concern with each.
  it('are acknowledged by a majority and on the journal, never by the default concern', async () => {
    const client = new MongoClient('mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=100');
    const keys = keysCollection(client, 'keys_db');
    expect([keys.dbName, keys.collectionName, keys.writeConcern?.w, keys.writeConcern?.journal]).toEqual([
      'keys_db',
      'player_keys',
      'majority',
      true,
    ]);
    await client.close();
  });
});

/**
 * A MongoDB server's collections by database, as the driver's client shows them to moveKeysOut:
 * listCollections, and the admin command renameCollection (moving the collection, or failing with `fails`).
 */
function serverHolding(collections: Record<string, string[]>, fails?: () => Error) {
  const commands: Record<string, unknown>[] = [];
  const client = {
    db: (name: string) => ({
      listCollections: (filter: { name: string }) => ({
        toArray: async () => (collections[name] ?? []).filter((c) => c === filter.name).map((c) => ({ name: c })),
      }),
      command: async (command: { renameCollection: string; to: string }) => {
        commands.push({ db: name, ...command });
        if (fails) throw fails();
        const [[fromDb, coll], [toDb, toColl]] = [command.renameCollection, command.to].map((n) => n.split('.'));
        collections[fromDb] = collections[fromDb].filter((c) => c !== coll);
        (collections[toDb] ??= []).push(toColl);
        return { ok: 1 };
      },
    }),
  } as unknown as MongoClient;
  return { client, commands, collections };
}

describe("MongoPlayerKeys: the keys' own database", () => {
  it("moves the keys an earlier version kept in the read models' database by one durable rename on the server", async () => {
    const server = serverHolding({ gamification: ['lb_scores', 'player_keys'] });
    await moveKeysOut(server.client, 'gamification', 'gamification_keys');
    expect(server.commands).toEqual([
      {
        db: 'admin',
        renameCollection: 'gamification.player_keys',
        to: 'gamification_keys.player_keys',
        writeConcern: { w: 'majority', journal: true },
      },
    ]);
    expect(server.collections).toEqual({ gamification: ['lb_scores'], gamification_keys: ['player_keys'] });
  });

  it('moves nothing when the read models hold no keys (a new deployment, or moved already)', async () => {
    for (const collections of [{ gamification: ['lb_scores'] }, { gamification_keys: ['player_keys'] }] as Record<
      string,
      string[]
    >[]) {
      const server = serverHolding(collections);
      await moveKeysOut(server.client, 'gamification', 'gamification_keys');
      expect(server.commands).toEqual([]);
    }
  });

  it('refuses to choose when both databases hold keys (an earlier version wrote some after the move)', async () => {
    const server = serverHolding({ gamification: ['player_keys'], gamification_keys: ['player_keys'] });
    const refused = moveKeysOut(server.client, 'gamification', 'gamification_keys');
    await expect(refused).rejects.toBeInstanceOf(KeysInTwoDatabasesError);
    await expect(refused).rejects.toThrow(
      "MongoDB holds players' keys in both gamification.player_keys (where an earlier version kept them) and gamification_keys.player_keys",
    );
    expect(server.commands).toEqual([]);
  });

  it('takes a move made by another process starting at the same time (NamespaceNotFound) as done', async () => {
    const collections: Record<string, string[]> = { gamification: ['player_keys'] };
    const server = serverHolding(collections, () => {
      // The other process's rename went first.
      collections.gamification = [];
      collections.gamification_keys = ['player_keys'];
      return new MongoServerError({ code: 26, errmsg: 'source namespace does not exist' });
    });
    await expect(moveKeysOut(server.client, 'gamification', 'gamification_keys')).resolves.toBeUndefined();
  });

  it('passes on any other failure of the rename', async () => {
    const server = serverHolding(
      { gamification: ['player_keys'] },
      () => new MongoServerError({ code: 13, errmsg: 'not authorized' }),
    );
    await expect(moveKeysOut(server.client, 'gamification', 'gamification_keys')).rejects.toThrow('not authorized');
  });
});

withServer(
  'MONGO_URL',
  'PlayerKeys contract: MongoPlayerKeys',
  [
    'runs the PlayerKeys contract against MongoDB',
    "MongoPlayerKeys on MongoDB moves the keys out of the read models' database and reads them there",
  ],
  (MONGO_URL) => {
    // A database of its own per run, dropped afterwards, so the suite can share a real server.
    const dbName = `test_player_keys_${randomUUID().slice(0, 8)}`;
    const readModelsDb = `${dbName}_read`;
    playerKeysContract('MongoPlayerKeys', () => MongoPlayerKeys.connect(MONGO_URL, dbName));
    it("MongoPlayerKeys on MongoDB moves the keys out of the read models' database and reads them there", async () => {
      const earlier = await MongoPlayerKeys.connect(MONGO_URL, readModelsDb);
      const key = await earlier.getOrCreate('moved-player');
      await earlier.close();
      const keys = await MongoPlayerKeys.connect(MONGO_URL, `${dbName}_moved`, readModelsDb);
      expect(await keys.get('moved-player')).toEqual(key);
      await keys.close();
      const admin = new MongoClient(MONGO_URL);
      expect(await admin.db(readModelsDb).listCollections({ name: 'player_keys' }).toArray()).toEqual([]);
      await admin.close();
    });
    afterAll(async () => {
      const admin = new MongoClient(MONGO_URL);
      for (const db of [dbName, readModelsDb, `${dbName}_moved`]) await admin.db(db).dropDatabase();
      await admin.close();
    });
  },
);
