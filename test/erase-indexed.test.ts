import { randomUUID } from 'node:crypto';
import { PROJECTORS } from '../projections/projectors';
import { LEADERBOARD_COLLECTIONS } from '../shared/read-models/leaderboards';
import { noEffects } from '../domain/events/common';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import type { Collection, Document, Filter, ReadStore, WriteOperation } from '../shared/adapters/read-store/port';

/** The deletes a projector makes, by collection and filter, on a store that does nothing else. */
function recordingDeletes(): { store: ReadStore; deletes: { collection: string; filter: Filter }[] } {
  const deletes: { collection: string; filter: Filter }[] = [];
  const inner = new MemoryReadStore();
  const store = new Proxy(inner, {
    get(target, name, receiver) {
      if (name !== 'collection') return Reflect.get(target, name, receiver);
      return (collection: string): Collection => {
        const real = inner.collection(collection);
        return new Proxy(real, {
          get(c, method, r) {
            if (method === 'deleteMany')
              return (filter: Filter) => (deletes.push({ collection, filter }), real.deleteMany(filter));
            if (method === 'bulkWrite')
              return (ops: WriteOperation[]) => {
                for (const op of ops)
                  if ('deleteMany' in op) deletes.push({ collection, filter: op.deleteMany.filter });
                return real.bulkWrite(ops);
              };
            return Reflect.get(c, method, r);
          },
        });
      };
    },
  });
  return { store, deletes };
}

/**
 * Whether MongoDB answers a delete by an index rather than a collection scan: the filter names
 * `_id` (always indexed), or its fields, all equalities, are a prefix of a declared index's.
 */
function indexed(collection: string, filter: Filter): boolean {
  const fields = Object.keys(filter);
  if (fields.length === 1 && fields[0] === '_id') return true;
  if (Object.values(filter).some((v) => typeof v === 'object' && v !== null)) return false;
  return PROJECTORS.flatMap((p) => p.indexes ?? [])
    .filter((i) => i.collection === collection)
    .some((i) => {
      const prefix = Object.keys(i.keys).slice(0, fields.length);
      return fields.every((f) => prefix.includes(f));
    });
}

describe("an erasure's deletes in the read models", () => {
  it('each goes through an index, none scans a collection (lb_scores by playerId included)', async () => {
    const { store, deletes } = recordingDeletes();
    const playerId = randomUUID();
    const event = {
      type: 'PlayerErased',
      data: { playerId, erasedAt: 0, effects: noEffects() },
      streamName: `player-${playerId}`,
      revision: 0,
      position: 1,
      createdAt: 0,
    } as never;
    for (const p of PROJECTORS.filter((p) => p.handles.has('PlayerErased'))) await p.apply(event, store, {} as never);
    expect(deletes.map((d) => d.collection)).toContain(LEADERBOARD_COLLECTIONS.scores);
    expect(deletes.filter((d) => !indexed(d.collection, d.filter))).toEqual([]);
  });

  it("the memory store deletes by an index's prefix exactly the documents the filter matches", async () => {
    const store = new MemoryReadStore();
    await store.ensureIndex('scores', { playerId: 1 });
    const scores = store.collection<Document>('scores');
    for (let i = 0; i < 30; i++) await scores.insertOne({ _id: `s${i}`, playerId: `p${i % 3}`, board: `b${i}` });
    expect(await scores.deleteMany({ playerId: 'p1' })).toBe(10);
    expect(await scores.countDocuments({ playerId: 'p1' })).toBe(0);
    expect((await scores.find({}, { sort: { _id: 1 } })).map((d) => d.playerId).sort()).toEqual([
      ...Array(10).fill('p0'),
      ...Array(10).fill('p2'),
    ]);
  });
});
