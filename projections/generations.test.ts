import pino from 'pino';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import type { ReadStore } from '../shared/adapters/read-store/port';
import type { DomainEvent, Recorded } from '../domain/events';
import { appendOne } from '../test/support/append-one';
import { eventually } from '../test/support/process';
import { LiveReadModels, READ_MODELS } from './generations';
import { ProjectionRunner } from './runner';
import { CHECKPOINTS, ORIGIN, type Projector } from './projector';
import { PROJECTIONS_VERSION } from './version';

const log = pino({ level: 'silent' });
const metadata = { correlationId: 'c', causationId: 'c', keyName: 'test', catalogVersion: 1 };
const counted = (n: number) => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  type: 'TriggerActivationTaken',
  data: { resourceUid: 't', holder: `h${n}`, playerId: 'p', units: 1 },
  metadata,
});

/** A gate the projector waits at, on the event of holder `h<n>`, until opened. */
function gate(n: number) {
  let reached = () => {};
  let open = () => {};
  return {
    holder: `h${n}`,
    reached: new Promise<void>((resolve) => (reached = resolve)),
    opened: new Promise<void>((resolve) => (open = resolve)),
    reach: () => reached(),
    open: () => open(),
  };
}

/** Counts events in one document; waits at the gate's event. */
function counter(at?: ReturnType<typeof gate>): Projector {
  return {
    name: 'counter',
    collections: ['counts'],
    handles: new Set(['TriggerActivationTaken']),
    async apply(event: Recorded<DomainEvent>, store: ReadStore) {
      if (at && event.type === 'TriggerActivationTaken' && event.data.holder === at.holder) {
        at.reach();
        await at.opened;
      }
      const counts = store.collection<{ _id: string; n: number }>('counts');
      const doc = await counts.findOne({ _id: 'all' });
      await counts.replaceOne({ _id: 'all' }, { _id: 'all', n: (doc?.n ?? 0) + 1 }, { upsert: true });
    },
  };
}

const served = async (live: LiveReadModels) => {
  await live.refresh();
  return live.store.collection('counts').findOne({ _id: 'all' });
};

describe('Read model generations: a rebuild is made beside the read models served', () => {
  it('keeps serving the read models of an earlier version while the new ones are built, then switches and drops the old', async () => {
    const events = new SqliteEventStore(':memory:');
    const store = new MemoryReadStore();
    await appendOne(events, 's-1', [counted(1), counted(2)], 'no_stream');
    const [first] = await events.readAll({ maxCount: 1 });
    // Read models an earlier version built, before generations: no prefix, no generations document.
    await store.collection('counts').insertOne({ _id: 'all', n: 2 });
    await store
      .collection(CHECKPOINTS)
      .insertOne({ _id: ORIGIN, logStart: first.id, version: PROJECTIONS_VERSION - 1 });
    await store.collection(CHECKPOINTS).insertOne({ _id: 'counter', position: await events.headPosition() });
    const live = new LiveReadModels(store, [counter()]);
    expect(await served(live)).toEqual({ _id: 'all', n: 2 });
    expect(live.problem()).toBeNull();

    // This version's projector builds its own beside them: held half-way, the old ones are still served.
    const held = gate(2);
    const projector = new ProjectionRunner(events, store, [counter(held)], log, undefined, {
      buildAside: true,
      retiredDroppedAfterMs: 10,
    });
    await projector.start();
    await held.reached;
    expect(await served(live)).toEqual({ _id: 'all', n: 2 });
    expect(live.problem()).toBeNull();
    expect(await store.collection(READ_MODELS).findOne({ _id: 'generations' })).toEqual({
      _id: 'generations',
      live: '',
      building: 'g1_',
      retired: [],
      next: 2,
    });

    // Caught up: the new ones are served, events after the switch included, and the old ones dropped.
    held.open();
    await appendOne(events, 's-1', [counted(3)], 1);
    await eventually(async () => expect(await served(live)).toEqual({ _id: 'all', n: 3 }), 5000, 10);
    expect(await store.collection(READ_MODELS).findOne({ _id: 'generations' })).toMatchObject({ live: 'g1_' });
    await eventually(async () => expect(await store.listCollections()).not.toContain('counts'), 5000, 10);
    expect(await store.collection(CHECKPOINTS).findOne({ _id: ORIGIN })).toBeNull();
    expect(await live.store.collection(CHECKPOINTS).findOne({ _id: ORIGIN })).toMatchObject({
      version: PROJECTIONS_VERSION,
    });
    // A restart of the same version resumes the live generation: no rebuild.
    await projector.stop();
    const again = new ProjectionRunner(events, store, [counter()], log, undefined, { buildAside: true });
    await again.start();
    await appendOne(events, 's-1', [counted(4)], 2);
    await eventually(async () => expect(await served(live)).toEqual({ _id: 'all', n: 4 }), 5000, 10);
    expect(await store.collection(READ_MODELS).findOne({ _id: 'generations' })).toMatchObject({ live: 'g1_', next: 2 });
    await again.stop();
    await events.close();
  });

  it('has nothing to serve, and says so, until the first read models have caught up', async () => {
    const events = new SqliteEventStore(':memory:');
    const store = new MemoryReadStore();
    await appendOne(events, 's-1', [counted(1), counted(2)], 'no_stream');
    const live = new LiveReadModels(store, [counter()]);
    await live.refresh();
    expect(live.problem()).toBe('no read models to serve yet: the projector is building them');

    const held = gate(2);
    const projector = new ProjectionRunner(events, store, [counter(held)], log, undefined, { buildAside: true });
    await projector.start();
    await held.reached;
    expect(await served(live)).toBeNull();
    expect(live.problem()).toBe('no read models to serve yet: the projector is building them');
    held.open();
    await eventually(async () => expect(await served(live)).toEqual({ _id: 'all', n: 2 }), 5000, 10);
    expect(live.problem()).toBeNull();
    await projector.stop();
    await events.close();
  });
});
