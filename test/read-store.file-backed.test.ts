/**
 * The embedded read models kept in a file: the memory store's behaviour (the contract), what a
 * restart finds in the file (also after the file refused writes: full, or a COMMIT failed), and a
 * service restart that resumes its projections instead of replaying the log.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { PROJECTORS } from '../projections/projectors';
import { ProjectionRunner } from '../projections/runner';
import { CHECKPOINTS, LOG_CHECKPOINT, type Projector } from '../projections/projector';
import { StoreUnavailableError } from '../shared/adapters/event-store/port';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { FileBackedReadStore } from '../shared/adapters/read-store/file-backed';
import { readStoreContract } from './contracts/read-store.contract';
import { appendOne } from './support/append-one';
import { eventually } from './support/process';
import { readingFromFile } from './support/read-from-file';
import { server, startTestService, tempDir } from './support/service';

const noWriteErrors = (error: unknown) => {
  throw error;
};
const fileIn = (dir = tempDir()) => path.join(dir, 'read-models.sqlite');

/** Every document of every collection, by collection: what a restart from the file would serve. */
const contents = async (store: FileBackedReadStore) => {
  const all: Record<string, unknown[]> = {};
  for (const name of (await store.listCollections()).sort())
    all[name] = await store.collection(name).find({}, { sort: { _id: 1 } });
  return all;
};
/** The store's own connection to its file (it holds the file exclusively). */
const connection = (store: FileBackedReadStore) =>
  (
    store as unknown as {
      db: {
        pragma(sql: string, options?: { simple: boolean }): unknown;
        exec(sql: string): void;
        backup(to: string): Promise<unknown>;
        prepare(sql: string): { get(): unknown };
      };
    }
  ).db;

readStoreContract('file-backed', async () => new FileBackedReadStore(fileIn(), noWriteErrors));
readStoreContract('file-backed, every document read back from the file', async () => readingFromFile(fileIn()));

describe('FileBackedReadStore', () => {
  it('finds after a reopen what it held: documents written, updated, deleted, and collections dropped', async () => {
    const file = fileIn();
    const first = new FileBackedReadStore(file, noWriteErrors);
    const scores = first.collection('scores');
    await scores.insertOne({ _id: 'a', score: 1, nested: { list: [1, 'two'] } });
    await scores.insertOne({ _id: 'b', score: 2 });
    await scores.updateOne({ _id: 'a' }, { $inc: { score: 10 } });
    await scores.deleteMany({ _id: 'b' });
    await first.collection('gone').insertOne({ _id: 'x' });
    await first.dropCollection('gone');
    await first.collection('gone').insertOne({ _id: 'y' });
    await first.close();

    const second = new FileBackedReadStore(file, noWriteErrors);
    expect(await second.collection('scores').find({})).toEqual([{ _id: 'a', score: 11, nested: { list: [1, 'two'] } }]);
    expect(await second.collection('gone').find({})).toEqual([{ _id: 'y' }]);
    await second.close();
  });

  it('an index declared after a reopen holds the documents read back from the file and those changed since, each as it is now', async () => {
    const file = fileIn();
    const first = new FileBackedReadStore(file, noWriteErrors);
    for (const [id, score] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
      ['d', 4],
      ['e', 5],
    ] as const)
      await first.collection('scores').insertOne({ _id: id, board: 'x', score });
    await first.close();

    // No cache: every unchanged document is only in the file when the index is declared.
    const second = new FileBackedReadStore(file, noWriteErrors, { cachedDocuments: 0 });
    const scores = second.collection('scores');
    await scores.updateOne({ _id: 'a' }, { $set: { score: 9 } });
    await scores.deleteMany({ _id: 'c' });
    await scores.insertOne({ _id: 'f', board: 'x', score: 3 });
    await second.ensureIndex('scores', { board: 1, score: -1 });
    const ranked = await scores.find({ board: 'x' }, { sort: { score: -1 } });
    expect(ranked.map((doc) => [doc._id, doc.score])).toEqual([
      ['a', 9],
      ['e', 5],
      ['d', 4],
      ['f', 3],
      ['b', 2],
    ]);
    expect(await scores.countDocuments({ board: 'x', score: { $gt: 3 } })).toBe(3);
    await second.close();
  });

  it('writes changes behind, together, without being asked (close is not needed for them to reach the file)', async () => {
    const file = fileIn();
    const store = new FileBackedReadStore(file, noWriteErrors);
    await store.collection('c').insertOne({ _id: 'a' });
    // The store holds the file exclusively: what it has written is read from a copy its own connection makes.
    const copy = `${file}.copy`;
    await eventually(
      async () => {
        fs.rmSync(copy, { force: true });
        await (store as unknown as { db: { backup(to: string): Promise<unknown> } }).db.backup(copy);
        const reader = new FileBackedReadStore(copy, noWriteErrors);
        try {
          expect(await reader.collection('c').find({})).toEqual([{ _id: 'a' }]);
        } finally {
          await reader.close();
        }
      },
      10_000,
      50,
    );
    await store.close();
  });

  it('fills the indexes it is opened with as it loads the file: ordered reads answer as with an index made later, without reading the file again', async () => {
    const file = fileIn();
    const store = new FileBackedReadStore(file, noWriteErrors);
    const scores = store.collection('lb_scores');
    for (let i = 0; i < 50; i++) await scores.insertOne({ _id: `p${i}`, score: (i * 37) % 11 });
    store.flush();
    await store.close();
    const byScore = { collection: 'lb_scores', keys: { score: -1, _id: 1 } as const };
    const top = { sort: byScore.keys, limit: 7 };

    const later = new FileBackedReadStore(file, noWriteErrors, { cachedDocuments: 0 });
    await later.ensureIndex(byScore.collection, byScore.keys);
    const expected = await later.collection('lb_scores').find({ score: { $lte: 8 } }, top);
    await later.close();
    const indexed = new FileBackedReadStore(file, noWriteErrors, { cachedDocuments: 0, indexes: [byScore] });
    // The store's statement, reached on purpose: the index is already filled, so nothing reads the collection.
    const passes = jest.spyOn(
      (indexed as unknown as { selectCollection: { iterate(): unknown } }).selectCollection,
      'iterate',
    );
    await indexed.ensureIndex(byScore.collection, byScore.keys);
    expect(passes).not.toHaveBeenCalled();
    expect(await indexed.collection('lb_scores').find({ score: { $lte: 8 } }, top)).toEqual(expected);
    expect(expected.map((d) => d.score)).toEqual([8, 8, 8, 8, 8, 7, 7]);
    await indexed.close();
  });

  it('changes refused by a full file (SQLITE_FULL) stay recorded and are written, with their checkpoint, once it has room again', async () => {
    const file = fileIn();
    const store = new FileBackedReadStore(file, noWriteErrors);
    const scores = store.collection('lb_scores');
    const checkpoints = store.collection(CHECKPOINTS);
    await scores.insertOne({ _id: 'kept', score: 1 });
    await store.collection('dropped').insertOne({ _id: 'x' });
    await checkpoints.insertOne({ _id: LOG_CHECKPOINT, position: 1 });
    store.flush();

    // The file may not grow by a page more: a full disk, on demand.
    const db = connection(store);
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    for (let i = 0; i < 200; i++) await scores.insertOne({ _id: `p${i}`, score: i, padding: 'x'.repeat(200) });
    await scores.updateOne({ _id: 'kept' }, { $inc: { score: 1 } });
    await store.dropCollection('dropped');
    await checkpoints.updateOne({ _id: LOG_CHECKPOINT }, { $set: { position: 2 } });
    expect(() => store.flush()).toThrow(expect.objectContaining({ code: 'SQLITE_FULL' }));

    db.pragma('max_page_count = 1000000');
    store.flush();
    const live = await contents(store);
    await store.close();
    const restarted = new FileBackedReadStore(file, noWriteErrors);
    expect(await contents(restarted)).toEqual(live);
    expect(live.lb_scores).toHaveLength(201);
    expect(live.dropped).toBeUndefined();
    await restarted.close();
  });

  it('changes refused by a full file are tried again by themselves: an idle store writes them once the file has room', async () => {
    const file = fileIn();
    const store = new FileBackedReadStore(file, noWriteErrors);
    const scores = store.collection('lb_scores');
    await scores.insertOne({ _id: 'kept', score: 1 });
    store.flush();
    const db = connection(store);
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    for (let i = 0; i < 200; i++) await scores.insertOne({ _id: `p${i}`, score: i, padding: 'x'.repeat(200) });
    expect(() => store.flush()).toThrow(expect.objectContaining({ code: 'SQLITE_FULL' }));

    // Nothing changes from here on, and nobody calls flush: the write-behind retries on its own.
    db.pragma('max_page_count = 1000000');
    await eventually(
      async () => {
        const rows = db.prepare(`SELECT count(*) AS n FROM documents WHERE collection = 'lb_scores'`).get() as {
          n: number;
        };
        expect(rows.n).toBe(201);
      },
      20_000,
      100,
    );
    await store.close();
  });

  it('changes whose COMMIT fails are rolled back and stay recorded: the next write has them, not only the checkpoint after them', async () => {
    const file = fileIn();
    const store = new FileBackedReadStore(file, noWriteErrors);
    const db = connection(store);
    // A COMMIT refused by SQLite after every statement of the transaction ran, as a full disk refuses
    // the WAL's frames at COMMIT (max_page_count fails an earlier statement instead): a deferred
    // constraint that a trigger breaks while the gate is closed.
    db.exec(`
      CREATE TABLE gate (open INTEGER PRIMARY KEY);
      CREATE TABLE gated (need INTEGER REFERENCES gate (open) DEFERRABLE INITIALLY DEFERRED);
      CREATE TRIGGER close_gate AFTER INSERT ON documents BEGIN INSERT INTO gated VALUES (1); END;`);
    db.pragma('foreign_keys = ON');
    await store.collection('lb_scores').insertOne({ _id: 'p1', score: 5 });
    await store.collection(CHECKPOINTS).insertOne({ _id: LOG_CHECKPOINT, position: 7 });
    expect(() => store.flush()).toThrow(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' }));

    db.exec('INSERT INTO gate VALUES (1)');
    // Later changes: the checkpoint moves on, the score does not change again.
    await store.collection(CHECKPOINTS).updateOne({ _id: LOG_CHECKPOINT }, { $set: { position: 8 } });
    store.flush();
    await store.close();
    const restarted = new FileBackedReadStore(file, noWriteErrors);
    expect(await restarted.collection('lb_scores').find({})).toEqual([{ _id: 'p1', score: 5 }]);
    expect(await restarted.collection(CHECKPOINTS).find({})).toEqual([{ _id: LOG_CHECKPOINT, position: 8 }]);
    await restarted.close();
  });

  it('is held by one process at a time: a second one is refused with StoreUnavailableError', async () => {
    const file = fileIn();
    const store = new FileBackedReadStore(file, noWriteErrors);
    expect(() => new FileBackedReadStore(file, noWriteErrors)).toThrow(StoreUnavailableError);
    await store.close();
  });
});

describe('read models kept across a restart', () => {
  it('the all-in-one service resumes its projections from the file: no replay, the same read models', async () => {
    const dataDir = tempDir();
    const first = await startTestService({ dataDir });
    const playerId = randomUUID();
    for (let i = 0; i < 5; i++)
      await first.http
        .post('/v1/action/process')
        .set(server)
        .send({ name: 'purchase', referenceId: randomUUID(), playerId });
    const head = await first.service.events.headPosition();
    const standings = (await first.http.get('/v1/admin/leaderboards/lb-all').set(server)).body.data[0].standings;
    await first.close();
    expect(fs.existsSync(path.join(dataDir, 'read-models.sqlite'))).toBe(true);

    // What the restarted runner starts from: the checkpoints in the file, at the head.
    const kept = new FileBackedReadStore(path.join(dataDir, 'read-models.sqlite'), noWriteErrors);
    expect(await kept.collection(CHECKPOINTS).findOne({ _id: LOG_CHECKPOINT })).toMatchObject({ position: head });
    await kept.close();

    const second = await startTestService({ dataDir });
    try {
      // Not one event replayed: the runner started at the head.
      const projected = (await second.http.get('/metrics').set(server)).text
        .split('\n')
        .find((l) => l.startsWith('projection_lag_seconds_count '));
      expect(projected).toBe('projection_lag_seconds_count 0');
      expect((await second.http.get('/v1/admin/leaderboards/lb-all').set(server)).body.data[0].standings).toEqual(
        standings,
      );
      expect((await second.http.post('/v1/audit/verify').set(server)).body.data.differences).toEqual([]);
    } finally {
      await second.close();
    }
  });

  it('after the file was full (max_page_count) while the projections ran, the write-behind catches up by itself: a runner started again on the file resumes at the head with the live read models', async () => {
    // The service's projections run in a worker thread, over the same read models file: its log is
    // made by the service, and projected here, where the file's connection can be made full.
    const dataDir = tempDir();
    const t = await startTestService({ dataDir });
    try {
      const purchase = (playerId: string) =>
        t.http.post('/v1/action/process').set(server).send({ name: 'purchase', referenceId: randomUUID(), playerId });
      for (let p = 0; p < 40; p++) {
        const playerId = randomUUID();
        for (let i = 0; i < 3; i++) expect((await purchase(playerId)).body.code).toBe(200);
      }
    } finally {
      await t.close();
    }
    const events = new SqliteEventStore(path.join(dataDir, 'events.sqlite'), { readonly: true });
    const head = await events.headPosition();
    const log = pino({ level: 'silent' });
    const file = fileIn();
    const refused: unknown[] = [];
    const store = new FileBackedReadStore(file, (error) => refused.push(error));
    const db = connection(store);
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    const runner = new ProjectionRunner(events, store, PROJECTORS, log);
    await runner.start();
    expect(await runner.waitFor(head, 60_000)).toBe(true);
    await runner.stop();
    expect(() => store.flush()).toThrow(expect.objectContaining({ code: 'SQLITE_FULL' }));

    db.pragma('max_page_count = 1000000');
    // Not flushed by the test: the write-behind retries on its own until the file holds what memory does.
    const copy = path.join(tempDir(), 'copy.sqlite');
    await eventually(
      async () => {
        fs.rmSync(copy, { force: true });
        await connection(store).backup(copy);
        const written = new FileBackedReadStore(copy, noWriteErrors);
        try {
          expect(await contents(written)).toEqual(await contents(store));
        } finally {
          await written.close();
        }
      },
      20_000,
      300,
    );
    const live = await contents(store);
    expect(live.lb_scores?.length).toBeGreaterThan(0);
    await store.close();

    const reopened = new FileBackedReadStore(file, noWriteErrors);
    const resumed = new ProjectionRunner(events, reopened, PROJECTORS, log);
    try {
      await resumed.start();
      expect(resumed.position).toBe(head);
      expect(await contents(reopened)).toEqual(live);
    } finally {
      await resumed.stop();
      await reopened.close();
      await events.close();
    }
  });

  it('read models of another log, or of another projections version, are dropped and rebuilt', async () => {
    const dir = tempDir();
    const log = pino({ level: 'silent' });
    const metadata = { correlationId: 'c', causationId: 'c', keyName: 'k', catalogVersion: 1 };
    const counter: Projector = {
      name: 'counter',
      collections: ['counts'],
      handles: new Set(['TriggerActivationTaken']),
      async apply(_event, store) {
        await store.collection('counts').updateOne({ _id: 'n' }, { $inc: { n: 1 } }, { upsert: true });
      },
    };
    const run = async (events: SqliteEventStore, store: FileBackedReadStore) => {
      const runner = new ProjectionRunner(events, store, [counter], log);
      await runner.start();
      await runner.waitFor(await events.headPosition(), 5000);
      await runner.stop();
      return (await store.collection('counts').findOne({ _id: 'n' }))?.n;
    };
    const taken = () => [
      {
        id: randomUUID(),
        type: 'TriggerActivationTaken',
        data: { resourceUid: 't', holder: randomUUID(), playerId: 'p', units: 1 },
        metadata,
      },
    ];

    const oldLog = new SqliteEventStore(path.join(dir, 'old.sqlite'));
    await appendOne(oldLog, 's', [...taken(), ...taken(), ...taken()], 'no_stream');
    let store = new FileBackedReadStore(fileIn(dir), noWriteErrors);
    expect(await run(oldLog, store)).toBe(3);
    await store.close();

    // The same read models file behind a new log (one event): rebuilt from it, not carried on.
    const newLog = new SqliteEventStore(path.join(dir, 'new.sqlite'));
    await appendOne(newLog, 's', taken(), 'no_stream');
    store = new FileBackedReadStore(fileIn(dir), noWriteErrors);
    expect(await run(newLog, store)).toBe(1);
    await store.close();
    await Promise.all([oldLog.close(), newLog.close()]);
  });
});
