import { randomUUID } from 'node:crypto';
import { BUNDLE_STOCK_COLLECTION } from '../../shared/read-models/bundle-stock';
import { LEADERBOARD_COLLECTIONS, type ScoreDoc } from '../../shared/read-models/leaderboards';
import { collectionDifferences, verifyReadModels } from '../../projections/verify';
import { MemoryReadStore } from '../../shared/adapters/read-store/memory';
import type { ActionTrace, BalanceChange, CausalChain, ProvisionTrace } from '../../read-api/audit/trace';
import { mobile, server, startTestService, type TestService } from '../support/service';

const AUDIT_CATALOG = `
version: 1
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
  - { uid: sword, label: Sword, type: Prize, kind: Item }
actions:
  - { uid: act-earn, identifier: earn, points: 10, deliverables: [{ deliverable: gold, amount: 100 }] }
  - { uid: act-fight, identifier: fight, points: 5, cost: 10, costDeliverable: gold }
  - { uid: act-train, identifier: train, points: 0 }
badges:
  - { uid: b-trained, label: Trained, type: Repeatable, points: 0, conditions: [{ action: train, challenge: { times: 3 } }] }
  - { uid: b-fighter, label: Fighter, type: OneTimeOnly, points: 20, conditions: [{ action: fight }], deliverables: [{ deliverable: sword, amount: 1 }] }
triggers:
  - { uid: t-first-fight, label: First fight, type: OneTimeOnly, limited: true, limit: 100, points: 7, conditions: [{ action: fight }], deliverables: [{ deliverable: gold, amount: 3 }] }
levels:
  - { uid: lvl-1, label: Rookie, level: 1, target: 0 }
  - { uid: lvl-2, label: Regular, level: 2, target: 20 }
stores:
  - uid: main
    label: Main
    bundles:
      - { uid: rare, label: Rare sword, cost: 50, costDeliverable: gold, initialStock: 5, contents: [{ deliverable: sword, amount: 1 }] }
leaderboards:
  - { uid: lb-all, label: All-time, type: 0, startDate: 2020-01-01T00:00:00, endDate: 2100-01-01T00:00:00 }
`;

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ catalogYaml: AUDIT_CATALOG });
});
afterAll(() => t.close());

let requests = 0;
/** A request with a known X-Request-Id: the correlationId its events carry. */
const post = (path: string, body: object) => {
  const requestId = `audit-${++requests}-${Date.now()}`;
  return { requestId, response: t.http.post(path).set(server).set('X-Request-Id', requestId).send(body) };
};
const act = async (name: string, playerId: string, referenceId: string) => {
  const { requestId, response } = post('/v1/action/process', { name, playerId, referenceId });
  expect((await response).body.code).toBe(200);
  return requestId;
};
const reverse = async (name: string, playerId: string, referenceId: string) => {
  const { requestId, response } = post('/v1/action/delete', { name, playerId, referenceId });
  expect((await response).body.code).toBe(200);
  return requestId;
};
const buy = async (playerId: string, bundle: string) => {
  const { requestId, response } = post('/v1/store/buy', { playerId, referenceId: bundle });
  const res = await response;
  expect(res.body.code).toBe(200);
  return { requestId, provisionUid: res.body.data.provisionUid as string };
};
const refund = async (provisionUid: string) => {
  const { requestId, response } = post('/v1/store/refund-transaction', { provisionUid });
  expect((await response).body.code).toBe(200);
  return requestId;
};
const trace = (query: Record<string, string>, headers: Record<string, string> = server) =>
  t.http.get('/v1/audit/trace').query(query).set(headers);
const profile = async (playerId: string) =>
  (await t.http.post('/v1/player/profile').set(server).send({ playerId })).body.data;

/** Every change adds up, and each balance's last `after` is what the profile shows now. */
async function expectBalancesAddUp(playerId: string, changes: BalanceChange[]) {
  const last = new Map<string, number>();
  for (const c of changes) {
    expect(Math.round((c.before + c.change) * 1e6) / 1e6).toBe(c.after);
    // Changes are in log order, so each starts where the previous change of the same balance ended.
    if (last.has(c.balance)) expect(c.before).toBe(last.get(c.balance));
    last.set(c.balance, c.after);
  }
  const p = await profile(playerId);
  const shown = new Map<string, number>(
    p.balances.map((b: { deliverableUid: string; amount: number }) => [b.deliverableUid, b.amount]),
  );
  for (const [balance, after] of last) expect(balance === 'points' ? p.points : (shown.get(balance) ?? 0)).toBe(after);
}

const types = (chain: CausalChain) => chain.events.map((e) => e.type);
const change = (chain: CausalChain, balance: string) =>
  chain.balanceChanges.filter((c) => c.balance === balance).map(({ before, change: by, after }) => [before, by, after]);

describe('GET /v1/audit/trace', () => {
  it('traces a refunded purchase: the buy and the refund, each with its request, events and balances before/after', async () => {
    const playerId = randomUUID();
    await act('earn', playerId, `earn-${randomUUID()}`);
    const bought = await buy(playerId, 'rare');
    const refunded = await refund(bought.provisionUid);

    const res = await trace({ provisionUid: bought.provisionUid.toUpperCase() });
    expect(res.body.code).toBe(200);
    const traced = res.body.data as ProvisionTrace;
    expect(traced).toMatchObject({
      provisionUid: bought.provisionUid,
      playerId,
      referenceType: 'Store',
      bundleUid: 'rare',
      referenceId: null,
      status: 'Refunded',
    });
    const [purchase, refundChain, ...more] = traced.chains;
    expect(more).toEqual([]);
    expect(purchase).toMatchObject({
      cause: 'BundlePurchased',
      correlationId: bought.requestId,
      keyName: 'backend',
      catalogVersion: 1,
      rules: null,
    });
    // One append: the player's event, the provision's record, the unit of stock, in that order in the log.
    expect(types(purchase)).toEqual(['BundlePurchased', 'ProvisionOpened', 'BundleStockTaken']);
    expect(purchase.events.map((e) => e.stream)).toEqual([
      `player-${playerId}`,
      `provision-${bought.provisionUid}`,
      'bundle-stock-rare',
    ]);
    expect(change(purchase, 'gold')).toEqual([[100, -50, 50]]);
    expect(change(purchase, 'sword')).toEqual([[0, 1, 1]]);
    expect(refundChain).toMatchObject({ cause: 'ProvisionRefunded', correlationId: refunded, keyName: 'backend' });
    expect(types(refundChain)).toEqual(['ProvisionRefunded', 'ProvisionStatusChanged', 'BundleStockReturned']);
    expect(change(refundChain, 'gold')).toEqual([[50, 50, 100]]);
    expect(change(refundChain, 'sword')).toEqual([[1, -1, 0]]);
    await expectBalancesAddUp(
      playerId,
      traced.chains.flatMap((c) => c.balanceChanges),
    );
  });

  it('traces a badge to the actions that made up its challenge', async () => {
    const playerId = randomUUID();
    const refs = [1, 2, 3, 4, 5, 6].map((n) => `train-${n}-${randomUUID()}`);
    for (const ref of refs) await act('train', playerId, ref);
    const awardsOf = async (referenceId: string) =>
      ((await trace({ referenceId })).body.data as ActionTrace).chains[0].rules!.awards;
    // Three trainings make the badge; a Repeatable badge starts again from zero, so the sixth makes it again of the next three.
    expect(await awardsOf(refs[1])).toEqual([]);
    expect(await awardsOf(refs[2])).toEqual([
      expect.objectContaining({
        uid: 'b-trained',
        challenge: [refs.slice(0, 3).map((referenceId) => ({ referenceId, time: expect.any(Number), value: 0 }))],
      }),
    ]);
    expect((await awardsOf(refs[5]))[0].challenge).toEqual([
      refs.slice(3).map((referenceId) => ({ referenceId, time: expect.any(Number), value: 0 })),
    ]);
  });

  it('traces a reversed action with a cost: the rules behind its awards, its provision, and the reversal', async () => {
    const playerId = randomUUID();
    await act('earn', playerId, `earn-${randomUUID()}`);
    const referenceId = `fight-${randomUUID()}`;
    const fought = await act('fight', playerId, referenceId);
    const reversed = await reverse('fight', playerId, referenceId);

    const res = await trace({ referenceId });
    expect(res.body.code).toBe(200);
    const traced = res.body.data as ActionTrace;
    expect(traced).toMatchObject({
      referenceId,
      playerId,
      actionName: 'fight',
      reversed: true,
      provisionUid: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const [processing, reversal, ...more] = traced.chains;
    expect(more).toEqual([]);
    expect(processing).toMatchObject({
      cause: 'ActionProcessed',
      correlationId: fought,
      keyName: 'backend',
      catalogVersion: 1,
    });
    expect(types(processing)).toEqual([
      'ActionProcessed',
      'ReferenceRecorded',
      'TriggerActivationTaken',
      'ProvisionOpened',
    ]);
    expect(processing.events.map((e) => e.stream)).toEqual([
      `player-${playerId}`,
      `reference-${referenceId}`,
      'trigger-limit-t-first-fight',
      `provision-${traced.provisionUid}`,
    ]);
    expect(processing.rules).toMatchObject({
      catalogVersion: 1,
      action: { uid: 'act-fight', name: 'fight', points: 5 },
      awards: [
        { kind: 'badge', uid: 'b-fighter', ruleType: 'OneTimeOnly', rank: null, points: 20 },
        { kind: 'trigger', uid: 't-first-fight', ruleType: 'OneTimeOnly', rank: null, points: 7, limited: true },
      ],
      levels: [{ uid: 'lvl-2', level: 2, target: 20 }],
    });
    // 5 + 20 + 7 points; 10 gold paid, 3 gold won; a sword from the badge.
    expect(change(processing, 'points')).toEqual([[10, 32, 42]]);
    expect(change(processing, 'gold')).toEqual([[100, -7, 93]]);
    expect(change(processing, 'sword')).toEqual([[0, 1, 1]]);
    expect(reversal).toMatchObject({ cause: 'ActionReversed', correlationId: reversed, rules: null });
    expect(types(reversal)).toEqual([
      'ActionReversed',
      'ReferenceReversed',
      'TriggerActivationReturned',
      'ProvisionStatusChanged',
    ]);
    expect(change(reversal, 'points')).toEqual([[42, -32, 10]]);
    expect(change(reversal, 'gold')).toEqual([[93, 7, 100]]);
    expect(change(reversal, 'sword')).toEqual([[1, -1, 0]]);
    await expectBalancesAddUp(
      playerId,
      traced.chains.flatMap((c) => c.balanceChanges),
    );

    // The cost's provision traces to the same chains.
    const byProvision = (await trace({ provisionUid: traced.provisionUid! })).body.data as ProvisionTrace;
    expect(byProvision).toMatchObject({ referenceType: 'Action', referenceId, status: 'Refunded' });
    expect(byProvision.chains).toEqual(traced.chains);
  });

  it('answers 1001 for neither or both, 5001 for an unknown reference, 9004 for an unknown provision, 4003 for other tiers', async () => {
    expect((await trace({})).body.code).toBe(1001);
    expect((await trace({ referenceId: 'a', provisionUid: 'b' })).body.code).toBe(1001);
    expect((await trace({ referenceId: 'never-seen' })).body).toEqual({ code: 5001, data: 'Action not found' });
    expect((await trace({ provisionUid: '0'.repeat(32) })).body).toEqual({
      code: 9004,
      data: 'Transaction does not exist',
    });
    expect((await trace({ referenceId: 'x' }, mobile)).body.code).toBe(4003);
  });
});

describe('GET /v1/audit/players/{playerId}/events', () => {
  it("pages the player's stream with metadata; 1002 for a non-UUID, 1001 for a bad limit, 5003 for an unknown player", async () => {
    const playerId = randomUUID();
    const requestId = await act('earn', playerId, `earn-${randomUUID()}`);
    await act('earn', playerId, `earn-${randomUUID()}`);
    const events = (query: Record<string, string> = {}, id: string = playerId) =>
      t.http.get(`/v1/audit/players/${id}/events`).query(query).set(server);

    const all = await events({}, playerId.replace(/-/g, '').toUpperCase());
    expect(all.body.code).toBe(200);
    expect(all.body.data.map((e: { type: string; revision: number }) => [e.revision, e.type])).toEqual([
      [0, 'PlayerRegistered'],
      [1, 'ActionProcessed'],
      [2, 'ActionProcessed'],
    ]);
    expect(all.body.data[1]).toMatchObject({
      stream: `player-${playerId}`,
      position: expect.any(Number),
      time: expect.any(Number),
      data: { referenceId: expect.any(String), effects: { points: 10 } },
      metadata: { correlationId: requestId, causationId: requestId, keyName: 'backend', catalogVersion: 1 },
    });
    expect((await events({ from: '1', limit: '1' })).body.data.map((e: { revision: number }) => e.revision)).toEqual([
      1,
    ]);
    expect((await events({}, 'player-1')).body.code).toBe(1002);
    expect((await events({ limit: '0' })).body.code).toBe(1001);
    expect((await events({ limit: '1001' })).body.code).toBe(1001);
    expect((await events({ from: '-1' })).body.code).toBe(1001);
    expect((await events({}, randomUUID())).body.code).toBe(5003);
    expect((await t.http.get(`/v1/audit/players/${playerId}/events`).set(mobile)).body.code).toBe(4003);
  });

  it('last=true: the newest events, in stream order; not with from', async () => {
    const playerId = randomUUID();
    for (let i = 0; i < 3; i++) await act('earn', playerId, `earn-${randomUUID()}`);
    const events = (query: Record<string, string>) =>
      t.http.get(`/v1/audit/players/${playerId}/events`).query(query).set(server);
    const revisions = async (query: Record<string, string>) =>
      (await events(query)).body.data.map((e: { revision: number }) => e.revision);
    expect(await revisions({ last: 'true', limit: '2' })).toEqual([2, 3]);
    expect(await revisions({ last: 'true', limit: '10' })).toEqual([0, 1, 2, 3]);
    expect(await revisions({ last: 'false', limit: '2' })).toEqual([0, 1]);
    expect((await events({ last: 'true', from: '1' })).body).toEqual({
      code: 1001,
      data: 'from and last: give one or the other',
    });
    expect((await events({ last: 'yes' })).body.code).toBe(1001);
  });
});

describe('POST /v1/audit/verify', () => {
  it('passes after a mixed workload, and names the document and field of a tampered read model', async () => {
    for (let i = 0; i < 3; i++) {
      const playerId = randomUUID();
      await act('earn', playerId, `earn-${randomUUID()}`);
      const referenceId = `fight-${randomUUID()}`;
      await act('fight', playerId, referenceId);
      if (i !== 1) await reverse('fight', playerId, referenceId);
      const { provisionUid } = await buy(playerId, 'rare');
      if (i === 0) await refund(provisionUid);
    }
    const verify = () => t.http.post('/v1/audit/verify').set(server);
    const clean = await verify();
    expect(clean.body.code).toBe(200);
    expect(clean.body.data.differences).toEqual([]);
    expect(clean.body.data.eventsReplayed).toBeGreaterThan(30);
    expect(clean.body.data).toMatchObject({ truncated: false, ms: expect.any(Number) });
    expect(clean.body.data.collections).toEqual(
      expect.arrayContaining([LEADERBOARD_COLLECTIONS.scores, BUNDLE_STOCK_COLLECTION]),
    );
    expect((await t.http.post('/v1/audit/verify').set(mobile)).body.code).toBe(4003);

    const scores = t.service.readStore.collection<ScoreDoc>(LEADERBOARD_COLLECTIONS.scores);
    const [score] = await scores.find({}, { limit: 1 });
    const stock = t.service.readStore.collection(BUNDLE_STOCK_COLLECTION);
    const rare = (await stock.findOne({ _id: 'rare' }))!;
    try {
      await scores.updateOne({ _id: score._id }, { $inc: { score: 1000 } });
      await stock.deleteMany({ _id: 'rare' });
      const tampered = await verify();
      expect(tampered.body.data.differences).toEqual([
        { collection: BUNDLE_STOCK_COLLECTION, _id: 'rare', path: '', rebuilt: rare },
        {
          collection: LEADERBOARD_COLLECTIONS.scores,
          _id: score._id,
          path: 'score',
          live: score.score + 1000,
          rebuilt: score.score,
        },
      ]);
    } finally {
      await scores.replaceOne({ _id: score._id }, score);
      await stock.replaceOne({ _id: 'rare' }, rare, { upsert: true });
    }
    expect(
      await verifyReadModels(t.service.events, t.service.readStore, t.service.projections.projectors),
    ).toMatchObject({ differences: [] });
  });
});

describe('collectionDifferences', () => {
  const storeOf = async (docs: { _id: string; [key: string]: unknown }[]) => {
    const store = new MemoryReadStore();
    for (const doc of docs) await store.collection('c1').insertOne(doc);
    return store;
  };

  it('reports missing documents and the leaf-most differing fields, ignoring key order', async () => {
    const live = await storeOf([
      { _id: 'a', x: 1, nested: { list: [1, 2], keep: true } },
      { _id: 'b', y: 2 },
      { _id: 'same', p: 1, q: 2 },
    ]);
    const rebuilt = await storeOf([
      { _id: 'a', x: 1, nested: { list: [1, 3, 4], keep: true }, extra: 'e' },
      { _id: 'c', z: 3 },
      { _id: 'same', q: 2, p: 1 },
    ]);
    expect(await collectionDifferences('c1', live, rebuilt)).toEqual([
      { collection: 'c1', _id: 'a', path: 'nested.list.1', live: 2, rebuilt: 3 },
      { collection: 'c1', _id: 'a', path: 'nested.list.2', live: undefined, rebuilt: 4 },
      { collection: 'c1', _id: 'a', path: 'extra', live: undefined, rebuilt: 'e' },
      { collection: 'c1', _id: 'c', path: '', live: undefined, rebuilt: { _id: 'c', z: 3 } },
      { collection: 'c1', _id: 'b', path: '', live: { _id: 'b', y: 2 }, rebuilt: undefined },
    ]);
  });

  it('compares a collection of many pages a page at a time, and stops at the limit', async () => {
    const ids = Array.from({ length: 2500 }, (_, n) => `doc-${String(n).padStart(4, '0')}`);
    const live = await storeOf(ids.map((_id, n) => ({ _id, n: n === 2400 ? -1 : n })));
    const rebuilt = await storeOf([
      ...ids.slice(1).map((_id, n) => ({ _id, n: n + 1 })),
      { _id: 'zz-only-rebuilt', n: 0 },
    ]);
    const finds = jest.spyOn(live.collection('c1'), 'find');
    expect(await collectionDifferences('c1', live, rebuilt)).toEqual([
      { collection: 'c1', _id: 'doc-2400', path: 'n', live: -1, rebuilt: 2400 },
      {
        collection: 'c1',
        _id: 'zz-only-rebuilt',
        path: '',
        live: undefined,
        rebuilt: { _id: 'zz-only-rebuilt', n: 0 },
      },
      { collection: 'c1', _id: 'doc-0000', path: '', live: { _id: 'doc-0000', n: 0 }, rebuilt: undefined },
    ]);
    // Never the whole collection at once: every read of the live side is a page or the ids of one.
    for (const [filter, options] of finds.mock.calls)
      expect(options?.limit ?? (filter._id as { $in: string[] }).$in.length).toBeLessThanOrEqual(1000);
    expect(await collectionDifferences('c1', live, rebuilt, 2)).toHaveLength(2);
  });
});
