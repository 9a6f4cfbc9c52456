import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { CachedPlayerKeys } from '../shared/adapters/player-keys/cached';
import { MongoPlayerKeys } from '../shared/adapters/player-keys/mongo';
import { SqlitePlayerKeys } from '../shared/adapters/player-keys/sqlite';
import { playerKeysContract } from './contracts/player-keys.contract';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'player-keys-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = path.join(dir, 'player-keys.sqlite');

playerKeysContract('SqlitePlayerKeys', async () => new SqlitePlayerKeys(file));
playerKeysContract(
  'CachedPlayerKeys over SqlitePlayerKeys',
  async () => new CachedPlayerKeys(new SqlitePlayerKeys(file), 2),
);

describe('SqlitePlayerKeys files', () => {
  it('holds no byte of a deleted key in any of its files', async () => {
    const own = path.join(fs.mkdtempSync(path.join(dir, 'bytes-')), 'player-keys.sqlite');
    const keys = new SqlitePlayerKeys(own);
    const players = Array.from({ length: 20 }, () => `player-${randomUUID()}`);
    const made = await Promise.all(players.map((p) => keys.getOrCreate(p)));
    await keys.delete(players[7]!);
    const bytes = Buffer.concat(
      fs.readdirSync(path.dirname(own)).map((name) => fs.readFileSync(path.join(path.dirname(own), name))),
    );
    expect(bytes.includes(made[7]!)).toBe(false);
    expect(bytes.includes(made[8]!)).toBe(true);
    await keys.close();
  });
});

const MONGO_URL = process.env.MONGO_URL;
if (MONGO_URL) {
  // A database of its own per run, dropped afterwards, so the suite can share a real server.
  const dbName = `test_player_keys_${randomUUID().slice(0, 8)}`;
  playerKeysContract('MongoPlayerKeys', () => MongoPlayerKeys.connect(MONGO_URL, dbName));
  afterAll(async () => {
    const admin = new MongoClient(MONGO_URL);
    await admin.db(dbName).dropDatabase();
    await admin.close();
  });
} else {
  // Skipped because MONGO_URL is not set: no MongoDB server on this machine (set it to run the contract on MongoDB).
  const skipped = describe.skip;
  skipped(
    'PlayerKeys contract: MongoPlayerKeys (skipped: MONGO_URL is not set; no MongoDB server on this machine)',
    () => {
      it('runs the PlayerKeys contract against MongoDB', () => undefined);
    },
  );
}
