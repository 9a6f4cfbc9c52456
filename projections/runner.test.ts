import pino from 'pino';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import type { DomainEvent, Recorded } from '../domain/events';
import { appendOne } from '../test/support/append-one';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import type { ReadStore } from '../shared/adapters/read-store/port';
import { LogCheckpointWatcher } from './log-checkpoint-watcher';
import { ProjectionRunner } from './runner';
import { CHECKPOINTS, LOG_CHECKPOINT, type Projector } from './projector';
import { eventually } from '../test/support/process';

const metadata = { correlationId: 'c', causationId: 'c', keyName: 'test', catalogVersion: 1 };
/** The events these tests count: any event type the runner knows serves. */
const COUNTED = 'TriggerActivationTaken';
const counted = (id: string) => ({
  id,
  type: COUNTED,
  data: { resourceUid: 't', holder: id, playerId: 'p', units: 1 },
  metadata,
});

/** Counts events per stream; applying one event twice would count it twice. */
const counter: Projector = {
  name: 'counter',
  collections: ['counts'],
  handles: new Set([COUNTED]),
  async apply(event: Recorded<DomainEvent>, store: ReadStore) {
    await store.collection('counts').updateOne({ _id: event.streamName }, { $inc: { n: 1 } }, { upsert: true });
  },
};

describe('ProjectionRunner', () => {
  it('projects, checkpoints, resumes from the checkpoint, and rebuilds to the same read model', async () => {
    const events = new SqliteEventStore(':memory:');
    const store = new MemoryReadStore();
    const log = pino({ level: 'silent' });
    await appendOne(
      events,
      's-1',
      [counted('00000000-0000-4000-8000-000000000001'), counted('00000000-0000-4000-8000-000000000002')],
      'no_stream',
    );
    const runner = new ProjectionRunner(events, store, [counter], log);
    await runner.start();
    const head = await events.headPosition();
    expect(await runner.waitFor(head, 5000)).toBe(true);
    expect(await store.collection('counts').findOne({ _id: 's-1' })).toEqual({ _id: 's-1', n: 2 });
    // Checkpoints are written in batches; stopping writes them.
    await runner.stop();
    expect(await store.collection(CHECKPOINTS).findOne({ _id: 'counter' })).toEqual({ _id: 'counter', position: head });

    // A restarted runner resumes after its checkpoint: nothing is counted twice.
    await appendOne(events, 's-1', [counted('00000000-0000-4000-8000-000000000003')], 1);
    const again = new ProjectionRunner(events, store, [counter], log);
    await again.start();
    expect(await again.waitFor(await events.headPosition(), 5000)).toBe(true);
    expect(await store.collection('counts').findOne({ _id: 's-1' })).toEqual({ _id: 's-1', n: 3 });

    // Rebuild drops the read model and replays the log into it.
    await store.collection('counts').updateOne({ _id: 's-1' }, { $set: { n: 99 } });
    await again.rebuild();
    expect(await again.waitFor(await events.headPosition(), 5000)).toBe(true);
    expect(await store.collection('counts').findOne({ _id: 's-1' })).toEqual({ _id: 's-1', n: 3 });
    await expect(again.rebuild(['nope'])).rejects.toThrow('unknown projector');
    await again.stop();
    await events.close();
  });

  it('reaches the head over events no projector handles, and names the log by its first event, whatever its type', async () => {
    const events = new SqliteEventStore(':memory:');
    const store = new MemoryReadStore();
    const log = pino({ level: 'silent' });
    const other = (id: string) => ({ id, type: 'ReferenceRecorded', data: { referenceId: id }, metadata });
    // Started on an empty log: the origin is stored once the log has events.
    const runner = new ProjectionRunner(events, store, [counter], log);
    await runner.start();
    await appendOne(events, 'o-1', [other('00000000-0000-4000-8000-000000000001')], 'no_stream');
    await appendOne(events, 's-1', [counted('00000000-0000-4000-8000-000000000002')], 'no_stream');
    await appendOne(events, 'o-2', [other('00000000-0000-4000-8000-000000000003')], 'no_stream');
    const head = await events.headPosition();
    expect(await runner.waitFor(head, 5000)).toBe(true);
    await runner.stop();
    expect(await store.collection(CHECKPOINTS).findOne({ _id: LOG_CHECKPOINT })).toEqual({
      _id: LOG_CHECKPOINT,
      position: head,
    });
    // The read models are this log's: a restart resumes them instead of rebuilding.
    const again = new ProjectionRunner(events, store, [counter], log);
    await again.start();
    expect(again.position).toBe(head);
    expect(await again.waitFor(head, 5000)).toBe(true);
    expect(await store.collection('counts').findOne({ _id: 's-1' })).toEqual({ _id: 's-1', n: 1 });
    await again.stop();
    await events.close();
  });

  it('drops the collections an earlier version of a projector wrote when it rebuilds, keeping others', async () => {
    const events = new SqliteEventStore(':memory:');
    const store = new MemoryReadStore();
    await appendOne(events, 's-1', [counted('00000000-0000-4000-8000-000000000001')], 'no_stream');
    await store.collection('old_counts').insertOne({ _id: 's-1', n: 1 });
    await store.collection('unrelated').insertOne({ _id: 'x' });
    const runner = new ProjectionRunner(
      events,
      store,
      [{ ...counter, retiredCollections: ['old_counts'] }],
      pino({ level: 'silent' }),
    );
    await runner.start();
    await runner.rebuild();
    expect(await runner.waitFor(await events.headPosition(), 5000)).toBe(true);
    expect(await store.listCollections()).not.toContain('old_counts');
    expect(await store.collection('unrelated').findOne({ _id: 'x' })).toEqual({ _id: 'x' });
    expect(await store.collection('counts').findOne({ _id: 's-1' })).toEqual({ _id: 's-1', n: 1 });
    await runner.stop();
    await events.close();
  });

  it('writes checkpoints in batches: at least every 1000 events, and soon after the log goes idle', async () => {
    const events = new SqliteEventStore(':memory:');
    const store = new MemoryReadStore();
    const checkpoints = store.collection<{ _id: string; position: number }>(CHECKPOINTS);
    let writes = 0;
    const updateOne = checkpoints.updateOne.bind(checkpoints);
    checkpoints.updateOne = (...args) => {
      writes++;
      return updateOne(...args);
    };
    let lag = 0;
    const watching: Projector = {
      name: 'watching',
      collections: ['watched'],
      handles: new Set([COUNTED]),
      async apply(event) {
        lag = Math.max(lag, event.position - ((await checkpoints.findOne({ _id: 'watching' }))?.position ?? 0));
      },
    };
    const batch = Array.from({ length: 2500 }, (_, i) =>
      counted(`00000000-0000-4000-8000-${String(100000 + i).padStart(12, '0')}`),
    );
    await appendOne(events, 's-1', batch, 'no_stream');
    const head = await events.headPosition();
    const runner = new ProjectionRunner(events, store, [watching], pino({ level: 'silent' }));
    await runner.start();
    expect(await runner.waitFor(head, 5000)).toBe(true);
    // Applied is what waitFor waits for; the checkpoint follows.
    expect(lag).toBeGreaterThan(1);
    expect(lag).toBeLessThanOrEqual(1000);
    expect(writes).toBeLessThan(50);
    await eventually(
      async () =>
        expect([
          await checkpoints.findOne({ _id: 'watching' }),
          await checkpoints.findOne({ _id: LOG_CHECKPOINT }),
        ]).toEqual([
          { _id: 'watching', position: head },
          { _id: LOG_CHECKPOINT, position: head },
        ]),
      10_000,
      10,
    );
    await runner.stop();
    await events.close();
  });

  it('writes the checkpoints just before and just after an event of checkpointAround', async () => {
    const events = new SqliteEventStore(':memory:');
    const store = new MemoryReadStore();
    const checkpoints = store.collection<{ _id: string; position: number }>(CHECKPOINTS);
    const seen: [string, number, number | undefined][] = [];
    const guarded: Projector = {
      name: 'guarded',
      collections: [],
      handles: new Set([COUNTED, 'StoreFormatDeclared']),
      checkpointAround: new Set(['StoreFormatDeclared']),
      async apply(event) {
        seen.push([event.type, event.position, (await checkpoints.findOne({ _id: 'guarded' }))?.position]);
      },
    };
    const ids = [21, 22, 23, 24, 25].map((n) => `00000000-0000-4000-8000-0000000000${n}`);
    await appendOne(
      events,
      's-1',
      [
        counted(ids[0]),
        counted(ids[1]),
        { id: ids[2], type: 'StoreFormatDeclared', data: { version: 2 }, metadata },
        counted(ids[3]),
        counted(ids[4]),
      ],
      'no_stream',
    );
    const runner = new ProjectionRunner(events, store, [guarded], pino({ level: 'silent' }));
    await runner.start();
    expect(await runner.waitFor(await events.headPosition(), 5000)).toBe(true);
    await runner.stop();
    expect(seen).toEqual([
      [COUNTED, 1, undefined],
      [COUNTED, 2, undefined],
      ['StoreFormatDeclared', 3, 2],
      [COUNTED, 4, 3],
      [COUNTED, 5, 3],
    ]);
    await events.close();
  });

  it('stores the origin once the log has a first event, so a cold start on an empty log is not rebuilt at the next start', async () => {
    const events = new SqliteEventStore(':memory:');
    const store = new MemoryReadStore();
    const log = pino({ level: 'silent' });
    const runner = new ProjectionRunner(events, store, [counter], log);
    await runner.start();
    expect(await store.collection(CHECKPOINTS).findOne({ _id: '$origin' })).toBeNull();
    await appendOne(events, 's-1', [counted('00000000-0000-4000-8000-000000000031')], 'no_stream');
    expect(await runner.waitFor(await events.headPosition(), 5000)).toBe(true);
    await runner.stop();
    const [first] = await events.readAll({ maxCount: 1 });
    expect(await store.collection(CHECKPOINTS).findOne({ _id: '$origin' })).toMatchObject({ logStart: first.id });

    // A rebuild would drop the mark along with the read model.
    await store.collection('counts').updateOne({ _id: 's-1' }, { $set: { kept: true } });
    const again = new ProjectionRunner(events, store, [counter], log);
    await again.start();
    await again.stop();
    expect(await store.collection('counts').findOne({ _id: 's-1' })).toEqual({ _id: 's-1', n: 1, kept: true });
    await events.close();
  });

  it('takes an origin stored without a first event (by earlier versions) as this log, without a rebuild', async () => {
    const events = new SqliteEventStore(':memory:');
    const store = new MemoryReadStore();
    await appendOne(events, 's-1', [counted('00000000-0000-4000-8000-000000000041')], 'no_stream');
    const first = new ProjectionRunner(events, store, [counter], pino({ level: 'silent' }));
    await first.start();
    expect(await first.waitFor(await events.headPosition(), 5000)).toBe(true);
    await first.stop();
    const origin = store.collection<{ _id: string; logStart: string | null }>(CHECKPOINTS);
    await origin.updateOne({ _id: '$origin' }, { $set: { logStart: null } });
    await store.collection('counts').updateOne({ _id: 's-1' }, { $set: { kept: true } });
    const again = new ProjectionRunner(events, store, [counter], pino({ level: 'silent' }));
    await again.start();
    await again.stop();
    expect(await store.collection('counts').findOne({ _id: 's-1' })).toEqual({ _id: 's-1', n: 1, kept: true });
    expect((await origin.findOne({ _id: '$origin' }))?.logStart).toBe((await events.readAll({ maxCount: 1 }))[0].id);
    await events.close();
  });

  it('bounds waitFor when the position is never reached', async () => {
    const events = new SqliteEventStore(':memory:');
    const runner = new ProjectionRunner(events, new MemoryReadStore(), [counter], pino({ level: 'silent' }));
    await runner.start();
    expect(await runner.waitFor(1000, 50)).toBe(false);
    await runner.stop();
    await events.close();
  });
});

describe('LogCheckpointWatcher', () => {
  it('lets a reader in another process wait for a position, including events no projector handles or this version knows', async () => {
    const events = new SqliteEventStore(':memory:');
    const store = new MemoryReadStore();
    const runner = new ProjectionRunner(events, store, [counter], pino({ level: 'silent' }));
    await runner.start();
    const watcher = new LogCheckpointWatcher(store);
    await appendOne(events, 's-1', [counted('00000000-0000-4000-8000-000000000011')], 'no_stream');
    const { position } = await appendOne(
      events,
      'other',
      [{ id: '00000000-0000-4000-8000-000000000012', type: 'Unhandled', data: {}, metadata }],
      'no_stream',
    );
    expect(await watcher.waitFor(position, 5000)).toBe(true);
    expect(await watcher.waitFor(position + 1000, 100)).toBe(false);
    await runner.stop();
  });
});
