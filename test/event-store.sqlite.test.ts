import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { endianness, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { EventStore, NewEvent, RecordedEvent } from '../shared/adapters/event-store/port';
import { StoreFaultError, StoreUnavailableError, WrongExpectedVersionError } from '../shared/adapters/event-store/port';
import { shareOf } from '../domain/streams';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { WalCheckpointer } from '../shared/adapters/event-store/sqlite-checkpointer';
import pino from 'pino';
import { ProjectionRunner } from '../projections/runner';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import { eventStoreContract } from './contracts/event-store.contract';
import { appendOne } from './support/append-one';
import { eventually } from './support/process';

/** A fresh directory per store, so the -wal and -shm files go with it. */
function tempDbFile(): { file: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'event-store-'));
  return { file: join(dir, 'events.db'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function event(data: unknown = { n: 1 }): NewEvent {
  return {
    id: randomUUID(),
    type: 'Happened',
    data,
    metadata: { correlationId: 'c', causationId: 'c', keyName: 'k', catalogVersion: 1 },
  };
}

const contractFiles = new Map<EventStore, () => void>();
eventStoreContract(
  'SqliteEventStore (file)',
  async () => {
    const { file, remove } = tempDbFile();
    const store = new SqliteEventStore(file);
    contractFiles.set(store, remove);
    return store;
  },
  async (store) => {
    await store.close();
    contractFiles.get(store)?.();
  },
);

eventStoreContract('SqliteEventStore (:memory:)', async () => new SqliteEventStore(':memory:'));

describe('SqliteEventStore specifics', () => {
  let file: string;
  let remove: () => void;
  const opened: SqliteEventStore[] = [];
  const open = (options?: ConstructorParameters<typeof SqliteEventStore>[1]) => {
    const store = new SqliteEventStore(file, options);
    opened.push(store);
    return store;
  };

  beforeEach(() => {
    ({ file, remove } = tempDbFile());
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
    remove();
  });

  it('a group commit refused whole (a full file) leaves no revision of its own remembered: the next append lands right after the last committed', async () => {
    const store = new SqliteEventStore(':memory:');
    opened.push(store);
    await appendOne(store, 'player-1', [event()], 'no_stream');
    const db = (store as unknown as { db: Database.Database }).db;
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    // One batch: an append at revision 1; another expecting 0 again, looked at in the checked way,
    // which reads the stream's revision inside the batch (1, not committed); one too large for the file.
    const batch = await Promise.allSettled([
      appendOne(store, 'player-1', [event()], 0),
      appendOne(store, 'player-1', [event()], 0),
      appendOne(store, 'player-2', [event({ padding: 'x'.repeat(200_000) })], 'no_stream'),
    ]);
    expect(batch.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(String((batch[2] as PromiseRejectedResult).reason)).toContain('disk is full');

    db.pragma('max_page_count = 1000000');
    await appendOne(store, 'player-1', [event()], 'any');
    expect((await store.readStream('player-1')).map((e) => e.revision)).toEqual([0, 1]);
  });

  it('keeps appended events across closing and reopening the file', async () => {
    const first = open();
    const appended = [event({ a: 1 }), event({ b: 0.1 })];
    const result = await appendOne(first, 'player-1', appended, 'no_stream');
    await first.close();

    const reopened = open();
    const stored = await reopened.readStream('player-1');
    expect(stored.map((e) => [e.id, e.data])).toEqual(appended.map((e) => [e.id, e.data]));
    expect(await reopened.headPosition()).toBe(result.position);
    expect((await appendOne(reopened, 'player-1', [event()], 1)).position).toBeGreaterThan(result.position);
  });

  it('delivers to a subscription events appended by another instance on the same file', async () => {
    const writer = open();
    const reader = open({ pollIntervalMs: 50 });
    const seen: string[] = [];
    reader.subscribeToAll({ onEvent: (e) => void seen.push(e.streamName) });
    await appendOne(writer, 'other-process', [event(), event()], 'no_stream');
    await eventually(() => seen.length === 2, 10_000, 5);
    expect(seen).toEqual(['other-process', 'other-process']);
  });

  it('delivers its own appends at once, without waiting for a poll tick', async () => {
    const store = open({ pollIntervalMs: 60_000 });
    const seen: number[] = [];
    store.subscribeToAll({ onEvent: (e) => void seen.push(e.revision) });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await appendOne(store, 's', [event()], 'no_stream');
    await eventually(() => seen.length === 1, 10_000, 5);
  });

  it('hands its own committed events to a subscription exactly as they read back from the file', async () => {
    const store = open({ pollIntervalMs: 60_000 });
    const seen: RecordedEvent[] = [];
    store.subscribeToAll({ onEvent: (e) => void seen.push(e) });
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Concurrent appends share a group commit; the one at a wrong revision writes nothing.
    const results = await Promise.allSettled([
      appendOne(store, 'a', [event({ x: 1, nested: { y: [1, 2] } }), event({ n: null })], 'no_stream'),
      appendOne(store, 'b', [event({ z: 'text' })], 'no_stream'),
      appendOne(store, 'a', [event()], 5),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    await eventually(() => seen.length === 3, 10_000, 5);
    expect(seen).toEqual(await store.readAll());
  });

  it('an error that undoes the whole group commit fails every append of it, and none of them is written', async () => {
    const store = open();
    await appendOne(store, 'before', [event()], 'no_stream');
    // RAISE(ROLLBACK) ends the whole transaction, not just the failing append's savepoint.
    const other = new Database(file);
    other.exec(
      `CREATE TRIGGER poison BEFORE INSERT ON events WHEN NEW.type = 'Poison' BEGIN SELECT RAISE(ROLLBACK, 'poisoned'); END`,
    );
    other.close();
    const results = await Promise.allSettled([
      appendOne(store, 'a', [event()], 'no_stream'),
      appendOne(store, 'b', [{ ...event(), type: 'Poison' }], 'no_stream'),
      appendOne(store, 'c', [event()], 'no_stream'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect((await store.readAll()).map((e) => e.streamName)).toEqual(['before']);
    // The store goes on: the next group commit is whole again.
    await appendOne(store, 'c', [event()], 'no_stream');
    expect((await store.readAll()).map((e) => e.streamName)).toEqual(['before', 'c']);
  });

  it('interleaved with another instance writing to the file, a subscription gets every event once, in order', async () => {
    const store = open({ pollIntervalMs: 10 });
    const other = open();
    const seen: number[] = [];
    store.subscribeToAll({ onEvent: (e) => void seen.push(e.position) });
    for (let i = 0; i < 30; i++) {
      // This instance's batches follow on from the other's events only some of the time.
      await Promise.all([
        appendOne(store, `mine-${i}`, [event(), event()], 'no_stream'),
        i % 3 === 0 ? appendOne(other, `theirs-${i}`, [event()], 'no_stream') : null,
      ]);
    }
    const all = (await store.readAll()).map((e) => e.position);
    expect(all).toHaveLength(70);
    await eventually(() => seen.length >= all.length, 10_000, 5);
    expect(seen).toEqual(all);
  });

  it('a stream read to its end and appended to here still shows what another instance appends to it', async () => {
    const store = open();
    const other = open();
    await appendOne(store, 'shared', [event()], 'no_stream');
    expect(await store.readStream('shared')).toHaveLength(1);
    expect((await appendOne(store, 'shared', [event()], 0)).nextExpectedRevision).toBe(1);
    // Nothing after revision 1 yet, as far as anyone knows...
    expect(await store.readStream('shared', { fromRevision: 2 })).toEqual([]);
    expect(await store.streamRevision('shared')).toBe(1);
    // ...until another connection writes.
    await appendOne(other, 'shared', [event({ from: 'other' })], 1);
    expect((await store.readStream('shared', { fromRevision: 2 })).map((e) => e.data)).toEqual([{ from: 'other' }]);
    expect(await store.streamRevision('shared')).toBe(2);
    expect(await store.readStream('never-written', { fromRevision: 0 })).toEqual([]);
    await appendOne(other, 'never-written', [event()], 'no_stream');
    expect(await store.readStream('never-written', { fromRevision: 0 })).toHaveLength(1);
  });

  it('checks each append of one group commit against what the ones before it wrote, though it reads no revision first', async () => {
    const store = open();
    await appendOne(store, 'known', [event()], 'no_stream');
    expect(await store.readStream('known')).toHaveLength(1); // revision 0 is now remembered
    await appendOne(store, 'taken', [event()], 'no_stream');
    // One turn of the event loop: one group commit.
    const outcomes = await Promise.allSettled([
      appendOne(store, 'known', [event({ n: 'a' })], 0),
      appendOne(store, 'known', [event({ n: 'b' })], 0), // the remembered revision is stale by now
      appendOne(store, 'known', [event({ n: 'c' })], 1),
      appendOne(store, 'taken', [event()], 'no_stream'),
      appendOne(store, 'fresh', [event()], 'no_stream'),
      appendOne(store, 'fresh', [event(), event()], 'no_stream'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
    ]);
    const actual = (o: PromiseSettledResult<unknown>) =>
      ((o as PromiseRejectedResult).reason as WrongExpectedVersionError).actual;
    expect(
      outcomes.map((o) => (o.status === 'rejected' ? [(o.reason as Error).constructor.name, actual(o)] : null)),
    ).toEqual([
      null,
      ['WrongExpectedVersionError', 1],
      null,
      ['WrongExpectedVersionError', 0],
      null,
      ['WrongExpectedVersionError', 0],
    ]);
    expect((await store.readStream('known')).map((e) => e.data)).toEqual([{ n: 1 }, { n: 'a' }, { n: 'c' }]);
    expect(await store.readStream('taken')).toHaveLength(1);
    expect(await store.readStream('fresh')).toHaveLength(1);
  });

  it('undoes a multi-stream append whose later stream conflicts, inside a group commit whose other appends commit', async () => {
    const store = open();
    await appendOne(store, 'known', [event()], 'no_stream');
    expect(await store.readStream('known')).toHaveLength(1); // revision 0 is now remembered
    const outcomes = await Promise.allSettled([
      store.appendToStreams([
        { stream: 'first', events: [event({ n: 'first' })], expectedRevision: 'no_stream' },
        { stream: 'known', events: [event({ n: 'kept' })], expectedRevision: 0 },
      ]),
      // Its first stream would be written before its second one conflicts: all of it is undone.
      store.appendToStreams([
        { stream: 'second', events: [event(), event()], expectedRevision: 'no_stream' },
        { stream: 'known', events: [event({ n: 'lost' })], expectedRevision: 0 },
      ]),
      store.appendToStreams([
        { stream: 'third', events: [event()], expectedRevision: 'no_stream' },
        { stream: 'known', events: [event({ n: 'next' })], expectedRevision: 1 },
      ]),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({
      name: 'WrongExpectedVersionError',
      streamName: 'known',
      actual: 1,
    });
    expect(await store.streamRevision('second')).toBe(-1);
    expect((await store.readStream('known')).map((e) => e.data)).toEqual([{ n: 1 }, { n: 'kept' }, { n: 'next' }]);
    const logged = (await store.readAll()).map((e) => e.streamName);
    expect(logged).toEqual(['known', 'first', 'known', 'third', 'known']);
  });

  it("appends at the stream's real revision after another instance wrote to a stream this one remembers", async () => {
    const store = open();
    const other = open();
    await appendOne(store, 'shared', [event()], 'no_stream');
    expect(await store.readStream('shared')).toHaveLength(1); // remembered at revision 0
    await appendOne(other, 'shared', [event({ from: 'other' })], 0);
    await expect(appendOne(store, 'shared', [event()], 0)).rejects.toMatchObject({ actual: 1 });
    expect((await appendOne(store, 'shared', [event({ n: 3 })], 1)).nextExpectedRevision).toBe(2);
    expect((await other.readStream('shared')).map((e) => e.data)).toEqual([{ n: 1 }, { from: 'other' }, { n: 3 }]);
  });

  it('a retried append answering its earlier revision does not hide what was appended after it', async () => {
    const store = open();
    const first = event();
    await appendOne(store, 'retried', [first], 'no_stream');
    expect(await store.readStream('retried')).toHaveLength(1);
    await appendOne(store, 'retried', [event({ n: 2 })], 0);
    // The retry is answered with the first append's result, revision 0...
    expect((await appendOne(store, 'retried', [first], 'any')).nextExpectedRevision).toBe(0);
    // ...while the stream stays at revision 1, with its second event readable.
    expect(await store.streamRevision('retried')).toBe(1);
    expect((await store.readStream('retried', { fromRevision: 1 })).map((e) => e.data)).toEqual([{ n: 2 }]);
  });

  it('checkpoints its WAL into the database file from a worker thread, so the WAL is reused and stays small', async () => {
    const store = open();
    const walSize = () => statSync(`${file}-wal`).size;
    const written = 8 * 400 * 1200;
    for (let round = 0; round < 8; round++) {
      await appendOne(
        store,
        `bulk-${round}`,
        Array.from({ length: 400 }, () => event({ text: 'x'.repeat(1200) })),
        'no_stream',
      );
      // Every page committed so far reaches the database file without any further commit.
      await eventually(() => statSync(file).size >= (round + 1) * 400 * 1200, 5000, 5);
      // The WAL starts over only if the checkpoint has also synced the file and recorded that it
      // is done when the next append begins, a moment after its last page is copied: recorded in
      // the WAL index, as every frame of the WAL backfilled (nBackfill, at byte 96, equal to
      // mxFrame, at byte 16 of its header; native byte order).
      await eventually(
        () => {
          const index = readFileSync(`${file}-shm`);
          const u32 = (at: number) => (endianness() === 'LE' ? index.readUInt32LE(at) : index.readUInt32BE(at));
          return u32(96) === u32(16);
        },
        5000,
        5,
      );
    }
    // A WAL never started over would hold every page written (more than `written`); SQLite's own
    // checkpoint, off here, would not run before 1000 pages, about 4 MB.
    expect(walSize()).toBeLessThan(written);
    expect(await store.readAll()).toHaveLength(3200);
  });

  it('reports a checkpointer whose worker cannot open the file (the store then checkpoints in its commits again)', async () => {
    const failed = new Promise<Error>(
      (resolve) => new WalCheckpointer(join(file, 'no-such-dir', 'events.db'), resolve),
    );
    expect((await failed).message).toMatch(/unable to open|directory does not exist|cannot open/i);
  });

  it('goes back to SQLite checkpointing in its commits when the checkpoint worker ends', async () => {
    const store = open();
    // The store's internals, reached on purpose: nothing outside can kill its worker.
    const internals = store as unknown as {
      writer: { pragma(pragma: string): Promise<unknown> };
      checkpointer: { worker: { terminate(): Promise<number> } };
    };
    // Checkpoints in commits are the writer thread's: its connection commits.
    expect(await internals.writer.pragma('wal_autocheckpoint')).toBe(0);
    await internals.checkpointer.worker.terminate();
    await eventually(async () => (await internals.writer.pragma('wal_autocheckpoint')) === 1000, 10_000, 5);
    await appendOne(store, 'after', [event()], 'no_stream');
    expect(await store.readStream('after')).toHaveLength(1);
  });

  it('finishes close() in a process that has nothing else to keep it alive (a script, a CLI command)', () => {
    const script = join(dirname(file), 'close.ts');
    writeFileSync(
      script,
      `import { SqliteEventStore } from ${JSON.stringify(join(__dirname, '../shared/adapters/event-store/sqlite'))};
       const store = new SqliteEventStore(${JSON.stringify(file)});
       store.appendToStreams([{ stream: 's', events: [${JSON.stringify(event())}], expectedRevision: 'any' }]).then(() => store.close()).then(() => console.log('closed'));`,
    );
    const run = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 20_000 });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('closed');
  });

  it('runs its group commits in a writer thread: an append is in the file, for any connection, when it resolves', async () => {
    const store = open();
    const reader = new Database(file, { readonly: true });
    try {
      for (let i = 0; i < 20; i++) {
        const e = event({ i });
        await appendOne(store, 's', [e], i === 0 ? 'no_stream' : i - 1);
        // Read at once by a connection of its own: the commit is done, not on its way.
        expect(reader.prepare('SELECT event_id FROM events WHERE stream = ? AND revision = ?').get('s', i)).toEqual({
          event_id: e.id,
        });
      }
    } finally {
      reader.close();
    }
    expect((store as unknown as { writer: unknown }).writer).toBeDefined();
  });

  it('gathers the appends made while a batch is being committed into the next batch', async () => {
    const groups: number[] = [];
    const store = open({ onGroupCommit: (appends) => groups.push(appends) });
    const internals = store as unknown as { inFlight: Promise<void> | undefined };
    const first = appendOne(store, 'first', [event()], 'no_stream');
    await eventually(() => internals.inFlight !== undefined, 10_000, 5);
    // Each in a turn of its own: without a batch in flight, each would be a group commit of its own.
    const later: Promise<unknown>[] = [];
    for (const stream of ['a', 'b', 'c']) {
      expect(internals.inFlight).toBeDefined();
      later.push(appendOne(store, stream, [event()], 'no_stream'));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all([first, ...later]);
    expect(groups).toEqual([1, 3]);
    expect((await store.readAll()).map((e) => e.streamName)).toEqual(['first', 'a', 'b', 'c']);
  });

  it("keeps the revisions it remembers across its writer thread's commits, and forgets them when another connection committed between two of them", async () => {
    const store = open();
    const other = open();
    const internals = store as unknown as { knownRevisions: Map<string, number> };
    await appendOne(store, 'mine', [event()], 'no_stream');
    expect(await store.readStream('mine')).toHaveLength(1);
    await appendOne(store, 'mine', [event()], 0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await store.readStream('mine', { fromRevision: 2 })).toEqual([]);
    // The writer thread is another connection to SQLite, but its commits leave what it answered valid.
    expect(internals.knownRevisions.get('mine')).toBe(1);
    // Another instance writes, then this one commits: the log's head is this writer's again.
    await appendOne(other, 'mine', [event({ from: 'other' })], 1);
    await appendOne(store, 'elsewhere', [event()], 'no_stream');
    await new Promise((resolve) => setImmediate(resolve));
    expect((await store.readStream('mine', { fromRevision: 2 })).map((e) => e.data)).toEqual([{ from: 'other' }]);
  });

  it("does not forget its remembered revisions for its own commit seen before the writer thread shows its head, and reads until that commit's answer", async () => {
    const store = open();
    const other = open();
    // The store's internals, reached on purpose: the race is between two threads.
    const internals = store as unknown as {
      knownRevisions: Map<string, number>;
      writer: { heads: BigInt64Array; wroteAllUpTo(head: number, committing: boolean): boolean | undefined };
      selectStream: { all(...args: unknown[]): unknown[] };
    };
    await appendOne(store, 'mine', [event()], 'no_stream');
    expect(await store.readStream('mine')).toHaveLength(1);
    const head = Number(internals.writer.heads[0]);
    // Another head than the writer's last: with a batch of its in flight, the head may be (or
    // precede) that batch's; without, another connection wrote.
    expect(internals.writer.wroteAllUpTo(head + 3, true)).toBeUndefined();
    expect(internals.writer.wroteAllUpTo(head - 1, true)).toBeUndefined();
    expect(internals.writer.wroteAllUpTo(head + 3, false)).toBe(false);
    expect(internals.writer.wroteAllUpTo(head, true)).toBe(true);
    // The writer's batch seen before its head is shown: read, not forgotten, until its answer.
    const queries = jest.spyOn(internals.selectStream, 'all');
    const wrote = jest.spyOn(internals.writer, 'wroteAllUpTo').mockReturnValueOnce(undefined);
    await appendOne(store, 'elsewhere', [event()], 'no_stream');
    await new Promise((resolve) => setImmediate(resolve));
    expect(await store.readStream('mine', { fromRevision: 1 })).toEqual([]);
    expect(queries).toHaveBeenCalledTimes(1);
    expect(internals.knownRevisions.get('mine')).toBe(0);
    // Its answer settles it: the head was the writer's, so what is remembered is trusted again.
    await appendOne(store, 'elsewhere', [event()], 0);
    expect(await store.readStream('mine', { fromRevision: 1 })).toEqual([]);
    expect(queries).toHaveBeenCalledTimes(1);
    // Settled the other way: another connection committed too, so nothing remembered is trusted.
    wrote.mockReturnValueOnce(undefined);
    await appendOne(other, 'mine', [event({ from: 'other' })], 0);
    await new Promise((resolve) => setImmediate(resolve));
    expect((await store.readStream('mine', { fromRevision: 1 })).map((e) => e.data)).toEqual([{ from: 'other' }]);
    await appendOne(store, 'elsewhere', [event()], 1);
    expect(internals.knownRevisions.size).toBe(0);
    expect((await store.readStream('mine', { fromRevision: 1 })).map((e) => e.data)).toEqual([{ from: 'other' }]);
  });

  it('remembers again the revision of a stream read after it, once another connection made it forget: the next read is no query', async () => {
    const store = open();
    const other = open();
    const internals = store as unknown as {
      knownRevisions: Map<string, number>;
      selectStream: { all(...args: unknown[]): unknown[] };
    };
    await appendOne(store, 'mine', [event(), event()], 'no_stream');
    expect(await store.readStream('mine')).toHaveLength(2);
    await appendOne(other, 'theirs', [event()], 'no_stream');
    await new Promise((resolve) => setImmediate(resolve));
    // A state cached at revision 1 catching up: nothing after it, and the revision is known again.
    const queries = jest.spyOn(internals.selectStream, 'all');
    expect(await store.readStream('mine', { fromRevision: 2 })).toEqual([]);
    expect(internals.knownRevisions.get('mine')).toBe(1);
    expect(await store.readStream('mine', { fromRevision: 2 })).toEqual([]);
    expect(queries).toHaveBeenCalledTimes(1);
  });

  it("judges another connection's commit again when reading the log's head failed: what it remembers is not trusted meanwhile", async () => {
    const store = open();
    const other = open();
    await appendOne(store, 'mine', [event()], 'no_stream');
    expect(await store.readStream('mine')).toHaveLength(1); // remembered: revision 0
    await appendOne(other, 'mine', [event({ from: 'other' })], 0);
    await new Promise((resolve) => setImmediate(resolve));
    // The store's statement, reached on purpose: the head's read fails once (a busy or damaged file).
    const head = (store as unknown as { selectHead: { get(): unknown } }).selectHead;
    jest.spyOn(head, 'get').mockImplementationOnce(() => {
      throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    });
    await expect(store.readStream('mine', { fromRevision: 1 })).rejects.toThrow();
    await new Promise((resolve) => setImmediate(resolve));
    expect((await store.readStream('mine', { fromRevision: 1 })).map((e) => e.data)).toEqual([{ from: 'other' }]);
  });

  it("does not take what another connection committed before its writer thread's first commit for its own", async () => {
    const store = open();
    const other = open();
    expect(await store.readStream('declared', { maxCount: 1 })).toEqual([]); // remembered: no stream
    await appendOne(other, 'declared', [event({ from: 'other' })], 'no_stream');
    await expect(appendOne(store, 'declared', [event()], 'no_stream')).rejects.toThrow(WrongExpectedVersionError);
    await new Promise((resolve) => setImmediate(resolve));
    expect((await store.readStream('declared', { maxCount: 1 })).map((e) => e.data)).toEqual([{ from: 'other' }]);
  });

  it('commits on close() the appends it accepted, and a process that closed it, or never did, exits', () => {
    const module = JSON.stringify(join(__dirname, '../shared/adapters/event-store/sqlite'));
    const run = (name: string, body: string) => {
      const script = join(dirname(file), name);
      writeFileSync(script, `import { SqliteEventStore } from ${module};\n${body}`);
      return spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 30_000 });
    };
    const append = (stream: string) =>
      `store.appendToStreams([{ stream: '${stream}', events: [${JSON.stringify(event())}], expectedRevision: 'no_stream' }])`;
    // Not awaited: close() is called with the append still waiting for its group commit.
    const closed = run(
      'close-pending.ts',
      `const store = new SqliteEventStore(${JSON.stringify(file)});
       const appended = ${append('pending')}.then(() => console.log('appended'));
       store.close().then(() => appended).then(() => console.log('closed'));`,
    );
    expect([closed.status, closed.stderr, closed.stdout.trim().split('\n')]).toEqual([0, '', ['appended', 'closed']]);
    const never = run(
      'never-closed.ts',
      `const store = new SqliteEventStore(${JSON.stringify(file)});
       ${append('unclosed')}.then(() => console.log('appended'));`,
    );
    expect([never.status, never.signal, never.stderr, never.stdout.trim()]).toEqual([0, null, '', 'appended']);
    const reader = new Database(file, { readonly: true });
    expect(reader.prepare('SELECT stream FROM events ORDER BY position').pluck().all()).toEqual([
      'pending',
      'unclosed',
    ]);
    reader.close();
  });

  it('catches up over several pages in order, each event once', async () => {
    const store = open();
    const total = 2500;
    for (let i = 0; i < total; i += 500) {
      await appendOne(
        store,
        'bulk',
        Array.from({ length: 500 }, (_, n) => event({ n: i + n })),
        'any',
      );
    }
    const seen: number[] = [];
    const subscription = store.subscribeToAll({ onEvent: (e) => void seen.push(e.revision) });
    await eventually(() => seen.length >= total, 5000, 5);
    await subscription.close();
    expect(seen).toEqual(Array.from({ length: total }, (_, n) => n));
  });

  it('reads the log without metadata when asked (a replay never reads it): an empty object, the rest as written', async () => {
    const store = open();
    await appendOne(store, 'player-1', [event({ a: 1 }), event({ b: 2 })], 'no_stream');
    await appendOne(store, 'reference-1', [event({ c: 3 })], 'no_stream');
    const whole = await store.readAll();
    const lean = (e: RecordedEvent) => ({ ...e, metadata: {} });
    expect(await store.readAll({ withoutMetadata: true })).toEqual(whole.map(lean));
    expect(await store.readAll({ fromPosition: whole[0].position, maxCount: 1, withoutMetadata: true })).toEqual([
      lean(whole[1]),
    ]);
    expect(await store.readAll({ streamPrefixes: ['reference-'], withoutMetadata: true })).toEqual([lean(whole[2])]);
    expect(await store.readAll({ streamPrefixes: [], withoutMetadata: true })).toEqual([]);
    expect(await store.readAll({ streamPrefixes: ['player-'] })).toEqual(whole.slice(0, 2));
  });

  it("reads one share of a prefix's streams, as shareOf divides them, and every other stream", async () => {
    const store = open();
    const players = Array.from({ length: 12 }, (_, n) => `player-00000000-0000-4000-8000-0000000000${10 + n}`);
    for (const stream of players) await appendOne(store, stream, [event({ stream })], 'no_stream');
    await appendOne(store, 'reference-1', [event({ c: 3 })], 'no_stream');
    const whole = await store.readAll();
    for (const count of [2, 3]) {
      const shares = await Promise.all(
        Array.from({ length: count }, (_, index) =>
          store.readAll({ share: { prefix: 'player-', index, count }, withoutMetadata: true }),
        ),
      );
      shares.forEach((events, index) =>
        expect(events.map((e) => e.streamName)).toEqual(
          whole.map((e) => e.streamName).filter((s) => !s.startsWith('player-') || shareOf(s, count) === index),
        ),
      );
      // With the prefixes too, and a page at a time.
      expect(
        await store.readAll({
          share: { prefix: 'player-', index: 1, count },
          streamPrefixes: ['player-'],
          fromPosition: shares[1][0].position,
          maxCount: 1,
        }),
      ).toEqual(
        whole.filter((e) => e.streamName.startsWith('player-') && shareOf(e.streamName, count) === 1).slice(1, 2),
      );
    }
  });

  it('stops its subscriptions when the store closes', async () => {
    const store = open();
    const writer = open();
    const seen: number[] = [];
    store.subscribeToAll({ onEvent: (e) => void seen.push(e.revision) });
    await appendOne(writer, 's', [event()], 'no_stream');
    await eventually(() => seen.length === 1, 10_000, 5);
    await store.close();
    await appendOne(writer, 's', [event()], 0);
    // A fixed wait on purpose: what is checked is that nothing arrives, and a closed store's
    // subscription has no signal of a delivery it did not make (listed in test/no-fixed-sleeps.test.ts).
    await new Promise((resolve) => setTimeout(resolve, 150)); // fixed on purpose: proves nothing arrives
    expect(seen).toEqual([0]);
  });

  it('rejects an event id already used in another stream, writing nothing', async () => {
    const store = open();
    const shared = event();
    await appendOne(store, 'a', [shared], 'no_stream');
    const error = await appendOne(store, 'b', [event(), shared], 'any').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(WrongExpectedVersionError);
    expect((error as Error).message).toContain(shared.id);
    expect(await store.streamRevision('b')).toBe(-1);
  });

  it("rejects a partial duplicate with 'any' as a wrong expected version", async () => {
    const store = open();
    const stored = event();
    await appendOne(store, 's', [stored], 'no_stream');
    await expect(appendOne(store, 's', [stored, event()], 'any')).rejects.toMatchObject({
      name: 'WrongExpectedVersionError',
      actual: 0,
    });
    expect(await store.streamRevision('s')).toBe(0);
  });

  it('records createdAt from the injected clock', async () => {
    const store = open({ now: () => 1_700_000_000_123 });
    await appendOne(store, 's', [event(), event()], 'no_stream');
    expect((await store.readStream('s')).map((e) => e.createdAt)).toEqual([1_700_000_000_123, 1_700_000_000_123]);
  });

  // Tests run as root, for whom chmod 0444 does not stop writes, so the read-only case is
  // produced by opening the connection read-only, which SQLite enforces for any user.
  it('throws StoreUnavailableError when appending to a store it cannot write', async () => {
    const writer = open();
    await appendOne(writer, 's', [event()], 'no_stream');
    const readonly = open({ readonly: true });
    expect(await readonly.streamRevision('s')).toBe(0);
    await expect(appendOne(readonly, 's', [event()], 0)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await readonly.streamRevision('s')).toBe(0);
  });

  it('throws StoreUnavailableError when the file cannot be opened', () => {
    expect(() => new SqliteEventStore(join(file, 'missing-dir', 'events.db'))).toThrow(StoreUnavailableError);
  });

  it('notices that its file was deleted or replaced: a lasting fault, reported once, and every write refused', async () => {
    for (const replace of [false, true]) {
      const faults: string[] = [];
      const store = open({ onFault: (reason) => faults.push(reason) });
      await appendOne(store, 's', [event()], 'no_stream');
      expect(store.writeProblem()).toBeNull();
      for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
      if (replace) await new SqliteEventStore(file).close();
      const refused = await appendOne(store, 's', [event()], 0).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(StoreFaultError);
      await expect(appendOne(store, 't', [event()], 'any')).rejects.toBeInstanceOf(StoreFaultError);
      expect(store.writeProblem()).toEqual({
        reason: expect.stringContaining('was deleted or replaced while the service was running'),
        lasting: true,
      });
      expect(faults).toEqual([(refused as Error).message]);
      await store.close();
    }
  });

  it('refuses, with checkIntegrity, to open a damaged file, naming the first problem quick_check found', async () => {
    const store = open();
    for (let i = 0; i < 20; i++)
      await appendOne(
        store,
        `s${i}`,
        Array.from({ length: 50 }, () => event({ text: 'x'.repeat(200) })),
        'no_stream',
      );
    await store.close();
    expect(() => open({ checkIntegrity: true }).close()).not.toThrow();
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(4096, 0), 0, 4096, 8192);
    closeSync(fd);
    expect(() => open({ checkIntegrity: true })).toThrow(StoreFaultError);
    expect(() => open({ checkIntegrity: true })).toThrow(/is damaged \((quick_check: |SQLITE_CORRUPT)/);
  });

  it('a read that finds the file damaged while open is a lasting fault: reported once, writes refused, a projection runner stops waiting', async () => {
    const writer = open();
    for (let i = 0; i < 40; i++)
      await appendOne(
        writer,
        `s${i}`,
        Array.from({ length: 50 }, () => event({ text: 'x'.repeat(200) })),
        'no_stream',
      );
    await writer.close();
    const faults: string[] = [];
    const store = open({ onFault: (reason) => faults.push(reason) });
    // Damaged under it, before it has read those pages.
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(8192, 0xff), 0, 8192, Math.floor(statSync(file).size / 2));
    closeSync(fd);
    const logged: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void logged.push(line) });
    const runner = new ProjectionRunner(
      store,
      new MemoryReadStore(),
      [{ name: 'all', collections: [], handles: new Set(['TriggerActivationTaken']), apply: async () => undefined }],
      log,
    );
    await runner.start();
    // It gives up at once, and does not resubscribe (and log it) every second.
    expect(await runner.waitFor(await store.headPosition(), 3000)).toBe(false);
    await runner.stop();
    expect(logged).toEqual([]);
    await expect(store.readAll()).rejects.toBeInstanceOf(StoreFaultError);
    await expect(appendOne(store, 'more', [event()], 'any')).rejects.toBeInstanceOf(StoreFaultError);
    expect(store.writeProblem()).toEqual({
      reason: expect.stringMatching(/is damaged \(SQLITE_CORRUPT/),
      lasting: true,
    });
    expect(faults).toHaveLength(1);
  });

  it('throws StoreUnavailableError once closed', async () => {
    const store = open();
    await store.close();
    await expect(appendOne(store, 's', [event()], 'any')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.readAll()).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(() => store.subscribeToAll({ onEvent: () => undefined })).toThrow(StoreUnavailableError);
  });
});
