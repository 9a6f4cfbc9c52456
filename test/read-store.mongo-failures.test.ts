/**
 * MongoDB that cannot serve: every driver error that means "not now" is a 503 (StoreUnavailableError),
 * never a 500; a server that is down or silent is given up on within seconds (the adapter's timeout
 * defaults, which the URL may override). With MONGO_URL, a running service whose MongoDB goes away
 * (a proxy in front of it is cut) answers 503 within seconds and recovers when it is back.
 */
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import {
  Collection,
  Db,
  MongoBulkWriteError,
  MongoClient,
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
} from 'mongodb';
import { StoreUnavailableError } from '../shared/adapters/event-store/port';
import { meansNotNow, MongoReadStore, withTimeoutDefaults } from '../shared/adapters/read-store/mongo';
import { eventually, freePort } from './support/process';
import { server, startTestService } from './support/service';
import { withServer } from './support/server-suites';
import { deleteRedisKeys, TEST_REDIS_URL } from './support/redis';

// The driver throws it, but does not export it: loaded by its path inside the package.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a file the package's exports do not name
const { WaitQueueTimeoutError } = require('mongodb/lib/cmap/errors') as {
  WaitQueueTimeoutError: new (message: string, address: string) => Error;
};

describe('MongoDB errors that mean "not now"', () => {
  const serverError = (code: number, errorLabels: string[] = []) =>
    new MongoServerError({ code, errmsg: `code ${code}`, errorLabels });

  it.each<[string, Error]>([
    ['NotWritablePrimary (failover)', serverError(10107)],
    ['NotPrimaryNoSecondaryOk', serverError(13435)],
    ['NotPrimaryOrSecondary', serverError(13436)],
    ['PrimarySteppedDown', serverError(189)],
    ['InterruptedDueToReplStateChange', serverError(11602)],
    ['ShutdownInProgress', serverError(91)],
    ['InterruptedAtShutdown', serverError(11600)],
    ['HostUnreachable', serverError(6)],
    ['NetworkTimeout', serverError(89)],
    ['ExceededTimeLimit', serverError(262)],
    ['MaxTimeMSExpired', serverError(50)],
    ['any error the driver labelled retryable and gave up on', serverError(2, ['RetryableWriteError'])],
    [
      'a write concern error from a stepping-down primary',
      new MongoWriteConcernError({ writeConcernError: { code: 91, errmsg: 'shutting down' } } as never),
    ],
    [
      'WaitQueueTimeoutError (connection pool exhausted)',
      new WaitQueueTimeoutError('Timed out while checking out a connection from connection pool', 'mongo:27017'),
    ],
    ['MongoOperationTimeoutError', new MongoOperationTimeoutError('operation timed out')],
    ['MongoNetworkError', new MongoNetworkError('connection reset')],
    ['MongoNetworkTimeoutError', new MongoNetworkTimeoutError('socket timed out')],
    ['MongoServerSelectionError', new MongoServerSelectionError('no server', { type: 'Unknown' } as never)],
    ['MongoNotConnectedError', new MongoNotConnectedError('not connected')],
    ['MongoTopologyClosedError', new MongoTopologyClosedError()],
  ])('%s', (_name, error) => {
    expect(meansNotNow(error)).toBe(true);
  });

  it('a bulk write that failed on a dropped connection', () => {
    const bulk = Object.assign(Object.create(MongoBulkWriteError.prototype) as MongoBulkWriteError, {
      errorResponse: new MongoNetworkError('connection reset'),
    });
    expect(meansNotNow(bulk)).toBe(true);
  });

  it.each<[string, Error]>([
    ['a duplicate key', serverError(11000)],
    ['a bad value', serverError(2)],
    ['an error that is not the driver', new Error('boom')],
  ])('but not %s', (_name, error) => {
    expect(meansNotNow(error)).toBe(false);
  });
});

describe('a MongoDB server that is down or silent', () => {
  /** A port that accepts connections and never answers, as a hung server. */
  async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
    const sockets = new Set<net.Socket>();
    const srv = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const { port } = srv.address() as net.AddressInfo;
    return {
      url: `mongodb://127.0.0.1:${port}/?directConnection=true`,
      close: () =>
        new Promise((resolve) => {
          for (const socket of sockets) socket.destroy();
          srv.close(() => resolve());
        }),
    };
  }

  it('keeps the timeouts the URL sets, and adds the others', () => {
    const options = withTimeoutDefaults('mongodb://mongo:27017/?serverSelectionTimeoutMS=500&sockettimeoutms=100');
    expect(options).toEqual({ connectTimeoutMS: 3000, waitQueueTimeoutMS: 3000 });
    expect(withTimeoutDefaults('mongodb://mongo:27017')).toEqual({
      serverSelectionTimeoutMS: 3000,
      connectTimeoutMS: 3000,
      waitQueueTimeoutMS: 3000,
      socketTimeoutMS: 10_000,
    });
  });

  describe('operations that take as long as they take', () => {
    afterEach(() => jest.restoreAllMocks());

    // The driver's own calls, answered here as a server would, record the socket timeout of the client each went through.
    it('index builds and drops run without the socket timeout that bounds every other operation, even one the URL sets', async () => {
      const seen: [string, number][] = [];
      const timeoutOf = (db: Db) => db.client.options.socketTimeoutMS;
      jest.spyOn(MongoClient.prototype, 'connect').mockImplementation(async function (this: MongoClient) {
        return this;
      });
      jest.spyOn(Collection.prototype, 'createIndex').mockImplementation(async function (this: Collection) {
        seen.push(['createIndex', timeoutOf(this.db)]);
        return 'index';
      });
      jest.spyOn(Collection.prototype, 'findOne').mockImplementation(async function (this: Collection) {
        seen.push(['findOne', timeoutOf(this.db)]);
        return null;
      });
      jest.spyOn(Db.prototype, 'dropCollection').mockImplementation(async function (this: Db) {
        seen.push(['dropCollection', timeoutOf(this)]);
        return true;
      });
      jest.spyOn(Db.prototype, 'dropDatabase').mockImplementation(async function (this: Db) {
        seen.push(['dropDatabase', timeoutOf(this)]);
        return true;
      });
      for (const [url, socketTimeoutMS] of [
        [`mongodb://127.0.0.1:${await freePort()}/?directConnection=true`, 10_000],
        [`mongodb://127.0.0.1:${await freePort()}/?directConnection=true&socketTimeoutMS=500`, 500],
      ] as const) {
        seen.length = 0;
        const store = await MongoReadStore.connect(url, `test_${randomUUID().slice(0, 8)}`);
        await store.ensureIndex('boards', { score: -1 });
        await store.dropCollection('boards');
        await store.collection('boards').findOne({ _id: 'x' });
        const scratch = await store.scratch();
        await scratch.close();
        await store.close();
        expect(seen).toEqual([
          ['createIndex', 0],
          ['dropCollection', 0],
          ['createIndex', 0],
          ['findOne', socketTimeoutMS],
          ['dropDatabase', 0],
        ]);
      }
    });
  });

  it('gives up on a port where nothing listens within seconds, by default', async () => {
    const startedAt = Date.now();
    await expect(
      MongoReadStore.connect(`mongodb://127.0.0.1:${await freePort()}`, `test_${randomUUID().slice(0, 8)}`),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(Date.now() - startedAt).toBeLessThan(8000);
  });

  it('gives up on a server that accepts connections and never answers within seconds, by default', async () => {
    const silent = await silentServer();
    try {
      const startedAt = Date.now();
      await expect(MongoReadStore.connect(silent.url, `test_${randomUUID().slice(0, 8)}`)).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      expect(Date.now() - startedAt).toBeLessThan(8000);
    } finally {
      await silent.close();
    }
  });
});

/** A TCP proxy to MongoDB that the test can cut (every connection dropped, new ones refused) and restore. */
async function cuttableProxy(
  target: URL,
): Promise<{ url: string; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }> {
  const port = await freePort();
  const sockets = new Set<net.Socket>();
  let srv: net.Server | null = null;
  const listen = () =>
    new Promise<void>((resolve) => {
      srv = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 27017), target.hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('error', () => undefined);
          socket.on('close', () => sockets.delete(socket));
        }
        client.pipe(upstream).pipe(client);
      });
      srv.listen(port, '127.0.0.1', resolve);
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (!srv) return resolve();
      srv.close(() => resolve());
      srv = null;
    });
  await listen();
  const url = new URL(target.toString());
  url.host = `127.0.0.1:${port}`;
  url.searchParams.set('directConnection', 'true');
  return { url: url.toString(), cut, restore: listen, close: cut };
}

withServer(
  'MONGO_URL',
  'a service whose MongoDB goes away',
  ['answers 503 within seconds while it is away, and 200 again once it is back'],
  (MONGO_URL) => {
    describe('a service whose MongoDB goes away', () => {
      it('answers 503 within seconds while it is away, and 200 again once it is back', async () => {
        const proxy = await cuttableProxy(new URL(MONGO_URL));
        const database = `test_failures_${randomUUID().slice(0, 8)}`;
        // Redis for the standings MongoDB's read models keep there, under a prefix deleted afterwards.
        const redisPrefix = `test-failures-${randomUUID()}`;
        const t = await startTestService({
          env: { MONGO_URL: proxy.url, MONGO_DATABASE: database, REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: redisPrefix },
        });
        const read = () => t.http.get('/v1/admin/leaderboards').set(server);
        try {
          expect((await read()).status).toBe(200);
          await proxy.cut();
          const startedAt = Date.now();
          const refused = await read();
          expect([refused.status, refused.body.code]).toEqual([503, 503]);
          expect(Date.now() - startedAt).toBeLessThan(8000);
          await proxy.restore();
          await eventually(async () => expect((await read()).status).toBe(200), 10_000, 200);
        } finally {
          await t.close();
          await proxy.close();
          await deleteRedisKeys(`${redisPrefix}:`);
          const admin = new MongoClient(MONGO_URL);
          try {
            await admin.db(database).dropDatabase();
          } finally {
            await admin.close();
          }
        }
      }, 60_000);
    });
  },
);
