/**
 * The behaviour every ReadStore adapter must share, so that projectors and queries written
 * against the embedded store behave the same on MongoDB. Each test works in its own
 * collection under a per-run prefix, so the suite can run against a shared database.
 */
import type { Collection, Document, ReadStore } from '../../shared/adapters/read-store/port';
import { DuplicateKeyError } from '../../shared/adapters/read-store/port';

export function readStoreContract(
  name: string,
  makeStore: () => Promise<ReadStore>,
  /** Releases the store after the suite; defaults to close(). */
  cleanup: (store: ReadStore) => Promise<void> = (store) => store.close(),
): void {
  describe(`ReadStore contract: ${name}`, () => {
    const prefix = `rsc_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}_`;
    let store: ReadStore;
    let created = 0;

    const nextName = (): string => `${prefix}${++created}`;
    const fresh = <T extends Document = Document>(): Collection<T> => store.collection<T>(nextName());
    const ids = (docs: Document[]): string[] => docs.map((doc) => doc._id);

    beforeAll(async () => {
      store = await makeStore();
    });

    afterAll(async () => {
      for (const collection of await store.listCollections()) {
        if (collection.startsWith(prefix)) await store.dropCollection(collection);
      }
      await cleanup(store);
    });

    describe('insert and read', () => {
      it('finds an inserted document by _id, and null for a missing one', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'a', n: 1, nested: { list: [1, 2] } });
        expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 1, nested: { list: [1, 2] } });
        expect(await c.findOne({ _id: 'b' })).toBeNull();
      });

      it('rejects a second insert with the same _id with DuplicateKeyError and keeps the first', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'a', n: 1 });
        const failure = await c.insertOne({ _id: 'a', n: 2 }).catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(DuplicateKeyError);
        expect(failure).toMatchObject({ id: 'a' });
        expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 1 });
      });

      it('reads nothing from a collection never written', async () => {
        const c = fresh();
        expect(await c.find({})).toEqual([]);
        expect(await c.findOne({})).toBeNull();
        expect(await c.countDocuments({})).toBe(0);
      });
    });

    describe('filters', () => {
      let c: Collection;

      beforeAll(async () => {
        c = fresh();
        await c.insertOne({
          _id: 'a',
          score: 10,
          tier: 'gold',
          profile: { country: 'FR', level: 3 },
          tags: ['x', 'y'],
        });
        await c.insertOne({ _id: 'b', score: 20, tier: 'silver', profile: { country: 'DE', level: 1 }, tags: ['y'] });
        await c.insertOne({ _id: 'c', score: 30, tier: 'gold', profile: { country: 'FR', level: 5 }, tags: [] });
        await c.insertOne({ _id: 'd', tier: 'bronze', profile: { country: 'IT' } });
      });

      it.each<[string, Record<string, unknown>, string[]]>([
        ['implicit equality', { tier: 'gold' }, ['a', 'c']],
        ['$eq', { score: { $eq: 20 } }, ['b']],
        ['$ne, which matches missing fields', { score: { $ne: 20 } }, ['a', 'c', 'd']],
        ['$gt', { score: { $gt: 10 } }, ['b', 'c']],
        ['$gte', { score: { $gte: 20 } }, ['b', 'c']],
        ['$lt', { score: { $lt: 20 } }, ['a']],
        ['$lte', { score: { $lte: 20 } }, ['a', 'b']],
        ['range on one field', { score: { $gt: 10, $lt: 30 } }, ['b']],
        ['$in', { tier: { $in: ['silver', 'bronze'] } }, ['b', 'd']],
        ['$nin, which matches missing fields', { score: { $nin: [10, 20] } }, ['c', 'd']],
        ['$exists true', { score: { $exists: true } }, ['a', 'b', 'c']],
        ['$exists false', { score: { $exists: false } }, ['d']],
        ['$and', { $and: [{ tier: 'gold' }, { score: { $gt: 10 } }] }, ['c']],
        ['$or', { $or: [{ tier: 'silver' }, { score: { $gte: 30 } }] }, ['b', 'c']],
        ['$nor', { $nor: [{ tier: 'gold' }, { score: 20 }] }, ['d']],
        ['$not, which matches missing fields', { score: { $not: { $gt: 10 } } }, ['a', 'd']],
        ['$regex', { tier: { $regex: '^s' } }, ['b']],
        ['$all', { tags: { $all: ['x', 'y'] } }, ['a']],
        ['$size', { tags: { $size: 0 } }, ['c']],
        ['$expr', { $expr: { $gt: ['$score', 15] } }, ['b', 'c']],
        ['dotted path equality', { 'profile.country': 'FR' }, ['a', 'c']],
        ['dotted path operator', { 'profile.level': { $gte: 3 } }, ['a', 'c']],
        ['array field contains a value', { tags: 'y' }, ['a', 'b']],
        ['_id with another condition', { _id: 'a', tier: 'gold' }, ['a']],
        ['_id whose other condition fails', { _id: 'a', tier: 'silver' }, []],
        ['_id $in', { _id: { $in: ['a', 'd', 'zz'] } }, ['a', 'd']],
        ['_id $in naming one twice', { _id: { $in: ['d', 'a', 'd'] } }, ['a', 'd']],
        ['_id $eq', { _id: { $eq: 'b' } }, ['b']],
        ['_id $in with another condition', { _id: { $in: ['a', 'b', 'c', 'a'] }, tier: 'gold' }, ['a', 'c']],
        ['_id $gt, for paging by _id', { _id: { $gt: 'b' } }, ['c', 'd']],
        ['empty filter', {}, ['a', 'b', 'c', 'd']],
      ])('%s', async (_label, filter, expected) => {
        expect(ids(await c.find(filter, { sort: { _id: 1 } }))).toEqual(expected);
        expect(await c.countDocuments(filter)).toBe(expected.length);
      });

      it('findOne returns a matching document or null', async () => {
        expect(await c.findOne({ 'profile.country': 'DE' })).toMatchObject({ _id: 'b' });
        expect(await c.findOne({ 'profile.country': 'ES' })).toBeNull();
      });
    });

    describe('sort, skip and limit', () => {
      let c: Collection;

      beforeAll(async () => {
        c = fresh();
        const rows: Array<[string, string, number]> = [
          ['p1', 'gold', 5],
          ['p2', 'silver', 9],
          ['p3', 'gold', 7],
          ['p4', 'bronze', 1],
          ['p5', 'silver', 3],
          ['p6', 'gold', 6],
        ];
        for (const [_id, tier, score] of rows) await c.insertOne({ _id, tier, stats: { score } });
      });

      it('sorts on one key ascending and descending', async () => {
        expect(ids(await c.find({}, { sort: { 'stats.score': 1 } }))).toEqual(['p4', 'p5', 'p1', 'p6', 'p3', 'p2']);
        expect(ids(await c.find({}, { sort: { 'stats.score': -1 } }))).toEqual(['p2', 'p3', 'p6', 'p1', 'p5', 'p4']);
      });

      it('sorts on several keys with mixed directions', async () => {
        const docs = await c.find({}, { sort: { tier: 1, 'stats.score': -1 } });
        expect(ids(docs)).toEqual(['p4', 'p3', 'p6', 'p1', 'p2', 'p5']);
      });

      it('applies skip and limit after sorting', async () => {
        const sort = { 'stats.score': -1 } as const;
        expect(ids(await c.find({}, { sort, skip: 1, limit: 2 }))).toEqual(['p3', 'p6']);
        expect(ids(await c.find({}, { sort, skip: 4 }))).toEqual(['p5', 'p4']);
        expect(ids(await c.find({}, { sort, skip: 10 }))).toEqual([]);
        expect(ids(await c.find({ tier: 'gold' }, { sort, limit: 2 }))).toEqual(['p3', 'p6']);
      });

      it('pages through a sorted result without gaps or repeats', async () => {
        const sort = { tier: -1, 'stats.score': 1 } as const;
        const all = ids(await c.find({}, { sort }));
        const pages: string[] = [];
        for (let skip = 0; skip < all.length; skip += 4) pages.push(...ids(await c.find({}, { sort, skip, limit: 4 })));
        expect(pages).toEqual(all);
      });

      it('pages by _id after the last _id seen, also while documents come and go between pages', async () => {
        const c2 = fresh();
        for (const _id of ['k', 'c', 'x', 'a', 'm', 'f']) await c2.insertOne({ _id, odd: _id.charCodeAt(0) % 2 === 1 });
        const page = async (after: string | null) =>
          ids(await c2.find(after === null ? {} : { _id: { $gt: after } }, { sort: { _id: 1 }, limit: 2 }));
        expect(await page(null)).toEqual(['a', 'c']);
        await c2.insertOne({ _id: 'b' }); // behind the pages read: not seen
        await c2.insertOne({ _id: 'd' });
        expect(await page('c')).toEqual(['d', 'f']);
        await c2.deleteMany({ _id: 'k' });
        expect(await page('f')).toEqual(['m', 'x']);
        expect(await page('x')).toEqual([]);
        // With a filter: only matching documents, still in _id order.
        expect(ids(await c2.find({ _id: { $gt: 'a' }, odd: true }, { sort: { _id: 1 }, limit: 2 }))).toEqual([
          'c',
          'm',
        ]);
      });

      it('limits without a sort', async () => {
        expect(await c.find({ tier: 'gold' }, { limit: 2 })).toHaveLength(2);
        expect(await c.find({}, { limit: 0 })).toHaveLength(6);
      });
    });

    // Standings are read this way: equality on a prefix of an index's fields, a range on the
    // next, the rest as the sort; the memory store answers from an ordered index, MongoDB from its own.
    describe('queries on an index: the answers of a brute-force scan', () => {
      type Row = { _id: string; board: string; period: string; inStandings: boolean; score: number; reachedAt: number };
      const keys = { board: 1, period: 1, inStandings: 1, score: -1, reachedAt: 1 } as const;
      const order = (a: Row, b: Row) => b.score - a.score || a.reachedAt - b.reachedAt;

      it('pages, counts and ranges equal a sort and filter of every document, through inserts, replacements, updates and deletes', async () => {
        const name = nextName();
        await store.ensureIndex(name, keys);
        const c = store.collection<Row>(name);
        let seed = 26;
        const random = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
        const model = new Map<string, Row>();
        let at = 0;
        // Few distinct scores: many ties, broken by the unique reachedAt.
        const next = (id: string): Row => ({
          _id: id,
          board: `b${random(2)}`,
          period: `p${random(2)}`,
          inStandings: random(5) > 0,
          score: random(12),
          reachedAt: ++at,
        });
        for (let round = 0; round < 6; round++) {
          const ops = [];
          for (let i = 0; i < 60; i++) {
            const id = `d${random(150)}`;
            const roll = random(10);
            if (roll < 6) {
              const row = next(id);
              model.set(id, row);
              ops.push({ replaceOne: { filter: { _id: id }, replacement: row, upsert: true } });
            } else if (roll < 8 && model.has(id)) {
              const score = random(12);
              model.set(id, { ...model.get(id)!, score, reachedAt: ++at });
              ops.push({ updateOne: { filter: { _id: id }, update: { $set: { score, reachedAt: at } } } });
            } else {
              model.delete(id);
              ops.push({ deleteMany: { filter: { _id: id } } });
            }
          }
          await c.bulkWrite(ops);
          for (const board of ['b0', 'b1']) {
            for (const period of ['p0', 'p1']) {
              const standings = [...model.values()]
                .filter((r) => r.board === board && r.period === period && r.inStandings)
                .sort(order);
              const pinned = { board, period, inStandings: true };
              const sort = { score: -1, reachedAt: 1 } as const;
              expect(ids(await c.find(pinned, { sort }))).toEqual(ids(standings));
              expect(ids(await c.find(pinned, { sort, limit: 5 }))).toEqual(ids(standings.slice(0, 5)));
              expect(ids(await c.find(pinned, { sort, skip: 7, limit: 4 }))).toEqual(ids(standings.slice(7, 11)));
              expect(ids(await c.find(pinned, { sort, skip: 1000, limit: 4 }))).toEqual([]);
              expect(await c.countDocuments(pinned)).toBe(standings.length);
              for (const score of [-1, 0, 5, 11, 12]) {
                expect([score, await c.countDocuments({ ...pinned, score: { $gt: score } })]).toEqual([
                  score,
                  standings.filter((r) => r.score > score).length,
                ]);
                expect([score, await c.countDocuments({ ...pinned, score: { $gte: score, $lt: score + 3 } })]).toEqual([
                  score,
                  standings.filter((r) => r.score >= score && r.score < score + 3).length,
                ]);
                expect([score, await c.countDocuments({ ...pinned, score: { $lte: score } })]).toEqual([
                  score,
                  standings.filter((r) => r.score <= score).length,
                ]);
                const tied = standings.filter((r) => r.score === score);
                const middle = tied[tied.length >> 1]?.reachedAt ?? 0;
                expect([score, await c.countDocuments({ ...pinned, score, reachedAt: { $lt: middle } })]).toEqual([
                  score,
                  tied.filter((r) => r.reachedAt < middle).length,
                ]);
                expect(ids(await c.find({ ...pinned, score: { $lt: score } }, { sort, limit: 3 }))).toEqual(
                  ids(standings.filter((r) => r.score < score).slice(0, 3)),
                );
              }
            }
          }
        }
      });
    });

    describe("$startsWith, the port's prefix operator", () => {
      // Next characters across the planes: below and above the surrogates, astral, U+FFFF itself.
      const names = [
        'abc',
        'abc!',
        'abc\u{d7ff}x',
        'abc\u{e000}',
        'abc\u{ff01}def',
        'abc\u{ffff}',
        'abc\u{1f600}',
        'abc\u{10ffff}z',
        'abd',
        'ab',
        '\u{ff80}\u{ff9b}\u{ff73}',
        '\u{ff34}\u{ff41}\u{ff52}\u{ff4f}',
        '\u{ff34}',
        '\u{ffff}\u{ffff}a',
        '\u{10ffff}',
        'zz',
      ];
      it('finds every name that starts with the text, whatever its next character, sorted and counted through an index', async () => {
        const name = nextName();
        await store.ensureIndex(name, { name: 1, _id: 1 });
        const c = store.collection(name);
        for (const [i, n] of names.entries()) await c.insertOne({ _id: `p${String(i).padStart(2, '0')}`, name: n });
        const prefixes = [
          'abc',
          'ab',
          'abc\u{d7ff}',
          'abc\u{ffff}',
          '\u{ff80}',
          '\u{ff34}',
          '\u{ffff}',
          '\u{10ffff}',
          'a',
          'q',
        ];
        for (const text of prefixes) {
          const expected = names
            .filter((n) => n.startsWith(text))
            .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
          const found = await c.find({ name: { $startsWith: text } }, { sort: { name: 1, _id: 1 } });
          expect({ text, found: found.map((d) => d.name).sort() }).toEqual({ text, found: [...expected].sort() });
          expect({ text, count: await c.countDocuments({ name: { $startsWith: text } }) }).toEqual({
            text,
            count: expected.length,
          });
        }
      });
    });

    describe('update operators', () => {
      it('$set replaces fields and creates dotted paths', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'a', name: 'old', profile: { city: 'Paris' } });
        const result = await c.updateOne(
          { _id: 'a' },
          { $set: { name: 'new', 'profile.zip': '75001', 'stats.wins': 1 } },
        );
        expect(result).toEqual({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0 });
        expect(await c.findOne({ _id: 'a' })).toEqual({
          _id: 'a',
          name: 'new',
          profile: { city: 'Paris', zip: '75001' },
          stats: { wins: 1 },
        });
      });

      it('reports an update that changes nothing as matched but not modified', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'a', name: 'same' });
        expect(await c.updateOne({ _id: 'a' }, { $set: { name: 'same' } })).toEqual({
          matchedCount: 1,
          modifiedCount: 0,
          upsertedCount: 0,
        });
      });

      it('matches nothing and creates nothing without upsert', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'a', n: 1 });
        expect(await c.updateOne({ _id: 'b' }, { $set: { n: 2 } })).toEqual({
          matchedCount: 0,
          modifiedCount: 0,
          upsertedCount: 0,
        });
        expect(await c.countDocuments({})).toBe(1);
      });

      it('updates only the first match of a non-_id filter', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'a', group: 'g', n: 0 });
        await c.insertOne({ _id: 'b', group: 'g', n: 0 });
        expect(await c.updateOne({ group: 'g' }, { $inc: { n: 1 } })).toMatchObject({
          matchedCount: 1,
          modifiedCount: 1,
        });
        expect((await c.find({ group: 'g' })).map((doc) => doc.n).sort()).toEqual([0, 1]);
      });

      it('$inc adds to numbers, creates missing fields, and uses plain floating-point addition', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'a', points: 10, balance: 0.1, nested: { n: 1 } });
        await c.updateOne({ _id: 'a' }, { $inc: { points: -3, balance: 0.2, 'nested.n': 2, fresh: 5 } });
        expect(await c.findOne({ _id: 'a' })).toEqual({
          _id: 'a',
          points: 7,
          balance: 0.1 + 0.2,
          nested: { n: 3 },
          fresh: 5,
        });
      });

      it('$unset removes fields, nested ones included', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'a', keep: 1, drop: 2, nested: { keep: 3, drop: 4 } });
        await c.updateOne({ _id: 'a' }, { $unset: { drop: '', 'nested.drop': '', missing: '' } });
        expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', keep: 1, nested: { keep: 3 } });
      });

      it('$push appends one value or several with $each, creating the array', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'a', list: [1] });
        await c.updateOne({ _id: 'a' }, { $push: { list: 2, created: 'x' } });
        await c.updateOne({ _id: 'a' }, { $push: { list: { $each: [3, 4] } } });
        expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', list: [1, 2, 3, 4], created: ['x'] });
      });

      it('$pull removes equal values and values matching a condition', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'a', tags: ['x', 'y', 'x'], scores: [1, 5, 3, 8], items: [{ k: 'a' }, { k: 'b' }] });
        await c.updateOne({ _id: 'a' }, { $pull: { tags: 'x', scores: { $gte: 5 }, items: { k: 'a' } } });
        expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', tags: ['y'], scores: [1, 3], items: [{ k: 'b' }] });
      });

      it('$addToSet adds only absent values, also with $each', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'a', set: ['x'] });
        await c.updateOne({ _id: 'a' }, { $addToSet: { set: 'x' } });
        await c.updateOne({ _id: 'a' }, { $addToSet: { set: { $each: ['y', 'x', 'z'] }, created: 'w' } });
        expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', set: ['x', 'y', 'z'], created: ['w'] });
        expect(await c.updateOne({ _id: 'a' }, { $addToSet: { set: 'y' } })).toMatchObject({ modifiedCount: 0 });
      });

      it('$max and $min change a field only past its bound, and set it when missing', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'a', best: 10, worst: 10 });
        await c.updateOne({ _id: 'a' }, { $max: { best: 5, top: 1 }, $min: { worst: 15, bottom: 2 } });
        expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', best: 10, worst: 10, top: 1, bottom: 2 });
        await c.updateOne({ _id: 'a' }, { $max: { best: 12 }, $min: { worst: 3 } });
        expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', best: 12, worst: 3, top: 1, bottom: 2 });
      });

      it('$setOnInsert is ignored when the update matches an existing document', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'a', created: 'first', n: 1 });
        const result = await c.updateOne(
          { _id: 'a' },
          { $setOnInsert: { created: 'second' }, $inc: { n: 1 } },
          { upsert: true },
        );
        expect(result).toEqual({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0 });
        expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', created: 'first', n: 2 });
      });

      it('rejects an update that would change _id', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'a', n: 1 });
        await expect(c.updateOne({ _id: 'a' }, { $set: { _id: 'b' } })).rejects.toThrow();
        expect(ids(await c.find({}))).toEqual(['a']);
      });
    });

    describe('upserts', () => {
      it('seeds the new document from the equality fields of the filter, then applies the update', async () => {
        const c = fresh();
        const result = await c.updateOne(
          { _id: 'u', tenant: 't1', 'meta.kind': 'k', level: { $eq: 2 }, $and: [{ region: 'eu' }], score: { $gt: 0 } },
          { $inc: { n: 1 }, $set: { name: 'x' }, $setOnInsert: { created: 'now' } },
          { upsert: true },
        );
        expect(result).toEqual({ matchedCount: 0, modifiedCount: 0, upsertedCount: 1 });
        expect(await c.findOne({ _id: 'u' })).toEqual({
          _id: 'u',
          tenant: 't1',
          meta: { kind: 'k' },
          level: 2,
          region: 'eu',
          n: 1,
          name: 'x',
          created: 'now',
        });
      });

      it('updates the document it created on the next upsert', async () => {
        const c = fresh();
        const upsert = () => c.updateOne({ _id: 'u', kind: 'k' }, { $inc: { n: 1 } }, { upsert: true });
        await upsert();
        expect(await upsert()).toEqual({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0 });
        expect(await c.findOne({ _id: 'u' })).toEqual({ _id: 'u', kind: 'k', n: 2 });
      });

      it('lets the update override a seeded field', async () => {
        const c = fresh();
        await c.updateOne({ _id: 'u', status: 'new' }, { $set: { status: 'active' } }, { upsert: true });
        expect(await c.findOne({ _id: 'u' })).toEqual({ _id: 'u', status: 'active' });
      });

      it('throws DuplicateKeyError when a guard fails on an existing _id, leaving the document as it was', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'x', pos: 7 });
        const failure = await c
          .updateOne({ _id: 'x', pos: { $lt: 5 } }, { $set: { pos: 5 } }, { upsert: true })
          .catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(DuplicateKeyError);
        expect(failure).toMatchObject({ id: 'x' });
        expect(await c.findOne({ _id: 'x' })).toEqual({ _id: 'x', pos: 7 });
      });

      it('applies a guarded upsert whose guard passes', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'x', pos: 3 });
        expect(await c.updateOne({ _id: 'x', pos: { $lt: 5 } }, { $set: { pos: 5 } }, { upsert: true })).toMatchObject({
          matchedCount: 1,
          modifiedCount: 1,
        });
        expect(await c.findOne({ _id: 'x' })).toEqual({ _id: 'x', pos: 5 });
      });
    });

    describe('replaceOne', () => {
      it('replaces the whole document, keeping _id', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'a', old: 1, nested: { x: 1 } });
        expect(await c.replaceOne({ _id: 'a' }, { _id: 'a', fresh: 2 })).toEqual({
          matchedCount: 1,
          modifiedCount: 1,
          upsertedCount: 0,
        });
        expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', fresh: 2 });
      });

      it('reports an identical replacement as not modified', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'a', n: 1 });
        expect(await c.replaceOne({ _id: 'a' }, { _id: 'a', n: 1 })).toMatchObject({
          matchedCount: 1,
          modifiedCount: 0,
        });
      });

      it('compares nested values: the same ones are not a modification, one differing deep inside is', async () => {
        const c = fresh();
        const doc = { _id: 'a', list: [{ k: 'x', v: [1, 2] }, null], at: { day: '2026-11-22', zero: 0 } };
        await c.insertOne(doc);
        expect(await c.replaceOne({ _id: 'a' }, JSON.parse(JSON.stringify(doc)) as typeof doc)).toMatchObject({
          modifiedCount: 0,
        });
        expect(await c.replaceOne({ _id: 'a' }, { ...doc, list: [{ k: 'x', v: [1, 3] }, null] })).toMatchObject({
          modifiedCount: 1,
        });
        expect(
          await c.replaceOne({ _id: 'a' }, { ...doc, at: { day: '2026-11-22', zero: 0, more: true } }),
        ).toMatchObject({ modifiedCount: 1 });
        expect(
          await c.replaceOne({ _id: 'a' }, { ...doc, at: { day: '2026-11-22', zero: 0, more: true } }),
        ).toMatchObject({ modifiedCount: 0 });
        expect(
          await c.replaceOne({ _id: 'a' }, { ...doc, at: { day: '2026-11-22', zero: '0', more: true } }),
        ).toMatchObject({ modifiedCount: 1 });
        expect(await c.findOne({ _id: 'a' })).toEqual({ ...doc, at: { day: '2026-11-22', zero: '0', more: true } });
      });

      it('rejects a replacement with another _id', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'a', n: 1 });
        await expect(c.replaceOne({ _id: 'a' }, { _id: 'b', n: 2 })).rejects.toThrow();
        expect(await c.find({})).toEqual([{ _id: 'a', n: 1 }]);
      });

      it('does nothing without a match unless upserting, and then inserts the replacement', async () => {
        const c = fresh();
        expect(await c.replaceOne({ _id: 'a' }, { _id: 'a', n: 1 })).toEqual({
          matchedCount: 0,
          modifiedCount: 0,
          upsertedCount: 0,
        });
        expect(await c.findOne({ _id: 'a' })).toBeNull();
        expect(await c.replaceOne({ _id: 'a' }, { _id: 'a', n: 1 }, { upsert: true })).toEqual({
          matchedCount: 0,
          modifiedCount: 0,
          upsertedCount: 1,
        });
        expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 1 });
      });

      it('throws DuplicateKeyError when a guarded replace upsert fails on an existing _id', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'a', rev: 5 });
        await expect(
          c.replaceOne({ _id: 'a', rev: { $lt: 3 } }, { _id: 'a', rev: 3 }, { upsert: true }),
        ).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', rev: 5 });
      });
    });

    describe('deleteMany', () => {
      it('deletes the matching documents and returns how many', async () => {
        const c = fresh();
        for (const [_id, kind] of [
          ['a', 'x'],
          ['b', 'y'],
          ['c', 'x'],
        ])
          await c.insertOne({ _id, kind });
        expect(await c.deleteMany({ kind: 'x' })).toBe(2);
        expect(ids(await c.find({}))).toEqual(['b']);
        expect(await c.deleteMany({ kind: 'x' })).toBe(0);
        expect(await c.deleteMany({ _id: 'b' })).toBe(1);
        expect(await c.countDocuments({})).toBe(0);
      });

      it('deletes everything with an empty filter', async () => {
        const c = fresh();
        for (const _id of ['a', 'b', 'c']) await c.insertOne({ _id });
        expect(await c.deleteMany({})).toBe(3);
        expect(await c.find({})).toEqual([]);
      });
    });

    describe('bulkWrite', () => {
      it('applies the operations in order', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'old', n: 0 });
        await c.bulkWrite([
          { updateOne: { filter: { _id: 'a' }, update: { $set: { n: 1 } }, upsert: true } },
          { updateOne: { filter: { _id: 'a' }, update: { $inc: { n: 10 } } } },
          { replaceOne: { filter: { _id: 'b' }, replacement: { _id: 'b', n: 2 }, upsert: true } },
          { updateOne: { filter: { _id: 'b' }, update: { $inc: { n: 1 } } } },
          { deleteMany: { filter: { _id: 'old' } } },
          { replaceOne: { filter: { _id: 'c' }, replacement: { _id: 'c', n: 3 }, upsert: true } },
          { deleteMany: { filter: { _id: 'c' } } },
        ]);
        expect(await c.find({}, { sort: { _id: 1 } })).toEqual([
          { _id: 'a', n: 11 },
          { _id: 'b', n: 3 },
        ]);
      });

      it('stops at the first failing operation and rejects with its error, keeping earlier writes', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'x', rev: 9 });
        await expect(
          c.bulkWrite([
            { updateOne: { filter: { _id: 'a' }, update: { $set: { n: 1 } }, upsert: true } },
            { updateOne: { filter: { _id: 'x', rev: { $lt: 2 } }, update: { $set: { rev: 2 } }, upsert: true } },
            { updateOne: { filter: { _id: 'c' }, update: { $set: { n: 3 } }, upsert: true } },
          ]),
        ).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await c.find({}, { sort: { _id: 1 } })).toEqual([
          { _id: 'a', n: 1 },
          { _id: 'x', rev: 9 },
        ]);
      });
    });

    describe('isolation', () => {
      it('returns copies: changing a read document changes nothing stored', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'a', n: 1, nested: { list: [1] } });
        const one = await c.findOne({ _id: 'a' });
        one!.n = 99;
        (one!.nested as { list: number[] }).list.push(2);
        const [listed] = await c.find({});
        (listed.nested as { list: number[] }).list.push(3);
        expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 1, nested: { list: [1] } });
      });

      it('stores copies: changing an object after writing it changes nothing stored', async () => {
        const c = fresh();
        const inserted = { _id: 'a', nested: { v: 1 } };
        await c.insertOne(inserted);
        inserted.nested.v = 2;

        const value = { deep: { v: 1 } };
        const pushed = { k: 1 };
        await c.updateOne({ _id: 'a' }, { $set: { value }, $push: { list: pushed } });
        value.deep.v = 2;
        pushed.k = 2;

        const replacement = { _id: 'b', nested: { v: 1 } };
        await c.replaceOne({ _id: 'b' }, replacement, { upsert: true });
        replacement.nested.v = 2;

        expect(await c.find({}, { sort: { _id: 1 } })).toEqual([
          { _id: 'a', nested: { v: 1 }, value: { deep: { v: 1 } }, list: [{ k: 1 }] },
          { _id: 'b', nested: { v: 1 } },
        ]);
      });
    });

    describe('scratch', () => {
      it('is an empty store of its own, and closing it leaves this one working', async () => {
        const name = nextName();
        await store.collection(name).insertOne({ _id: 'live' });
        const scratch = await store.scratch();
        expect((await scratch.listCollections()).filter((c) => c.startsWith(prefix))).toEqual([]);
        await scratch.collection(name).insertOne({ _id: 'replayed' });
        expect(await store.collection(name).find({})).toEqual([{ _id: 'live' }]);
        await scratch.close();
        expect(await store.collection(name).find({})).toEqual([{ _id: 'live' }]);
      });
    });

    describe('collections', () => {
      it('lists a collection once written, and no longer once dropped', async () => {
        const name = nextName();
        const untouched = nextName();
        const c = store.collection(name);
        store.collection(untouched);
        await c.insertOne({ _id: 'a' });
        expect(await store.listCollections()).toContain(name);
        expect(await store.listCollections()).not.toContain(untouched);
        await store.dropCollection(name);
        expect(await store.listCollections()).not.toContain(name);
      });

      it('is empty after being dropped, and can be written again', async () => {
        const name = nextName();
        const c = store.collection(name);
        await c.insertOne({ _id: 'a', n: 1 });
        await store.dropCollection(name);
        expect(await c.find({})).toEqual([]);
        expect(await c.countDocuments({})).toBe(0);
        await c.insertOne({ _id: 'a', n: 2 });
        expect(await store.collection(name).findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 2 });
      });

      it('drops a collection that does not exist without error', async () => {
        await expect(store.dropCollection(nextName())).resolves.toBeUndefined();
      });

      it('keeps collections apart', async () => {
        const first = fresh();
        const second = fresh();
        await first.insertOne({ _id: 'a', in: 'first' });
        await second.insertOne({ _id: 'a', in: 'second' });
        expect(await first.findOne({ _id: 'a' })).toEqual({ _id: 'a', in: 'first' });
        expect(await second.findOne({ _id: 'a' })).toEqual({ _id: 'a', in: 'second' });
      });
    });
  });
}
