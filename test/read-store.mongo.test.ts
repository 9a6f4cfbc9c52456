import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import pino from 'pino';
import { ProjectorLease } from '../projections/lease';
import { StoreUnavailableError } from '../shared/adapters/event-store/port';
import { MongoReadStore } from '../shared/adapters/read-store/mongo';
import { readStoreContract } from './contracts/read-store.contract';
import { freePort } from './support/process';
import { withServer } from './support/server-suites';

withServer(
  'MONGO_URL',
  'MongoDB contract',
  [
    'runs the ReadStore contract against MongoDB',
    'creates declared indexes, and again after a drop',
    'refuses a second projector while the first holds the lease',
    'drops the scratch databases an interrupted verification left',
  ],
  (MONGO_URL) => {
    // A database of its own per run, dropped afterwards, so the suite can share a real server.
    const dbName = `test_read_store_${randomUUID().slice(0, 8)}`;
    readStoreContract(
      'MongoReadStore',
      () => MongoReadStore.connect(MONGO_URL, dbName),
      async (store) => {
        await store.close();
        const admin = new MongoClient(MONGO_URL);
        try {
          await admin.db(dbName).dropDatabase();
        } finally {
          await admin.close();
        }
      },
    );
    describe('MongoReadStore indexes', () => {
      it('creates a declared index once, and again after the collection is dropped', async () => {
        const indexDb = `test_indexes_${randomUUID().slice(0, 8)}`;
        const store = await MongoReadStore.connect(MONGO_URL, indexDb);
        const admin = new MongoClient(MONGO_URL);
        try {
          const keys = { board: 1, period: 1, score: -1 } as const;
          await store.ensureIndex('scores', keys);
          await store.ensureIndex('scores', keys);
          const named = async () => (await admin.db(indexDb).collection('scores').indexes()).map((i) => i.key);
          expect(await named()).toEqual([{ _id: 1 }, keys]);
          await store.dropCollection('scores');
          expect(await named()).toEqual([{ _id: 1 }, keys]);
        } finally {
          await store.close();
          await admin.db(indexDb).dropDatabase();
          await admin.close();
        }
      });
    });

    describe('scratch databases left by interrupted verifications', () => {
      it('drops those of its database, and no other', async () => {
        const ownDb = `test_scratches_${randomUUID().slice(0, 8)}`;
        const store = await MongoReadStore.connect(MONGO_URL, ownDb);
        const admin = new MongoClient(MONGO_URL);
        try {
          // A verification's scratch, written and never closed: its process was killed.
          const left = await store.scratch();
          await left.collection('players').insertOne({ _id: 'p', username: 'in plain text' });
          await admin.db(`${ownDb}_other`).collection('kept').insertOne({ kept: true });
          const dropped = await store.dropScratches();
          expect(dropped).toEqual([expect.stringMatching(new RegExp(`^${ownDb}_scratch_`))]);
          const names = (await admin.db().admin().listDatabases({ nameOnly: true })).databases.map((d) => d.name);
          expect(names.filter((n) => n.startsWith(ownDb))).toEqual([`${ownDb}_other`]);
        } finally {
          await store.close();
          await admin.db(`${ownDb}_other`).dropDatabase();
          await admin.close();
        }
      });
    });

    describe('the projector lease on MongoDB', () => {
      it('refuses a second projector while the first holds it: the duplicate key of the upsert', async () => {
        const leaseDb = `test_lease_${randomUUID().slice(0, 8)}`;
        const [one, two] = [
          await MongoReadStore.connect(MONGO_URL, leaseDb),
          await MongoReadStore.connect(MONGO_URL, leaseDb),
        ];
        const first = new ProjectorLease(one, pino({ level: 'silent' }), { holder: 'first' });
        const second = new ProjectorLease(two, pino({ level: 'silent' }), { holder: 'second' });
        try {
          expect(await first.take()).toBeNull();
          expect(await second.take()).toMatchObject({ holder: 'first' });
          await first.release();
          expect(await second.take()).toBeNull();
          await second.release();
        } finally {
          await one.close();
          await two.close();
          const admin = new MongoClient(MONGO_URL);
          await admin.db(leaseDb).dropDatabase();
          await admin.close();
        }
      });
    });
  },
);

describe('MongoReadStore without a server', () => {
  it('rejects connecting with StoreUnavailableError within the server selection timeout', async () => {
    const url = `mongodb://127.0.0.1:${await freePort()}/?serverSelectionTimeoutMS=500`;
    const startedAt = Date.now();
    await expect(MongoReadStore.connect(url, `test_${randomUUID().slice(0, 8)}`)).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    expect(Date.now() - startedAt).toBeLessThan(3000);
  });
});
