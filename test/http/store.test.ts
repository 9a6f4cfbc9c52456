import { randomUUID } from 'node:crypto';
import { StoreUnavailableError } from '../../shared/adapters/event-store/port';
import { BUNDLE_STOCK, stockStream } from '../../domain/streams';
import { playerStream } from '../../domain/streams';
import { addAmounts } from '../../domain/amount';
import type { Effects } from '../../domain/events/common';
import { client, mobile, server, startTestService, type TestService } from '../support/service';
import { eventually } from '../support/process';

const CATALOG = `
version: 1
settings: { pendingTimeoutSeconds: 1 }
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency, imageName: "https://img/gold.png" }
  - { uid: sword, label: Sword, type: Prize, details: [{ label: rarity, value: rare }] }
  - { uid: shield, label: Shield, type: Prize }
actions:
  - { identifier: earn, deliverables: [{ deliverable: gold, amount: 100 }] }
  - { identifier: spend-sword, cost: 1, costDeliverable: sword }
  - { identifier: fight, cost: 10, costDeliverable: gold }
stores:
  - uid: main
    label: Main
    bundles:
      - { uid: sword-pack, label: Sword pack, cost: 100, costDeliverable: gold, contents: [{ deliverable: sword, amount: 1 }, { deliverable: shield, amount: 2 }] }
      - { uid: rare, label: Rare sword, cost: 50, costDeliverable: gold, initialStock: 5, contents: [{ deliverable: sword, amount: 1 }] }
      - { uid: five, label: Five swords, cost: 50, costDeliverable: gold, initialStock: 5, contents: [{ deliverable: sword, amount: 1 }] }
      - { uid: stocked, label: Stocked sword, cost: 20, costDeliverable: gold, initialStock: 100, contents: [{ deliverable: sword, amount: 1 }] }
      - { uid: few, label: Few, cost: 10, costDeliverable: gold, initialStock: 2, contents: [{ deliverable: shield, amount: 1 }] }
      - { uid: shipped, label: Shipped shield, cost: 30, costDeliverable: gold, initialStock: 100, requiresFulfillment: true, contents: [{ deliverable: shield, amount: 1 }] }
  - { uid: closed, label: Closed, isActive: false, bundles: [{ uid: closed-pack, label: Closed pack, cost: 1, costDeliverable: gold, contents: [{ deliverable: sword, amount: 1 }] }] }
`;

let t: TestService;
let clock = Date.now();
beforeAll(async () => {
  t = await startTestService({ catalogYaml: CATALOG, now: () => clock });
});
afterAll(() => t.close());
afterEach(() => jest.restoreAllMocks());

let refs = 0;
const earn = async (playerId: string, times = 1) => {
  for (let i = 0; i < times; i++) {
    const res = await t.http
      .post('/v1/action/process')
      .set(server)
      .send({ name: 'earn', referenceId: `earn-${Date.now()}-${++refs}`, playerId });
    expect(res.body.code).toBe(200);
  }
};
const richPlayer = async (gold = 300) => {
  const playerId = randomUUID();
  await earn(playerId, gold / 100);
  return playerId;
};
const buy = (playerId: string, referenceId: string, headers: Record<string, string> = server) =>
  t.http.post('/v1/store/buy').set(headers).send({ playerId, referenceId });
const move = (path: string, provisionUid: unknown, headers: Record<string, string> = server) =>
  t.http.post(`/v1/store/${path}`).set(headers).send({ provisionUid });
const balances = async (playerId: string): Promise<Record<string, number>> => {
  const res = await t.http.post('/v1/player/profile').set(server).send({ playerId });
  return Object.fromEntries(
    res.body.data.balances.map((b: { deliverableUid: string; amount: number }) => [b.deliverableUid, b.amount]),
  );
};
const remainingStock = async (bundleUid: string) => {
  const res = await t.http.get('/v1/admin/stores/main').set(server);
  return res.body.data[0].storeBundles.find((b: { uid: string }) => b.uid === bundleUid).remainingStock;
};
/** Every balance of a player recomputed from the `effects` of its recorded events. */
const balancesFromEvents = async (playerId: string) => {
  const sums: Record<string, number> = {};
  for (const e of await t.service.events.readStream(playerStream(playerId))) {
    for (const b of (e.data as { effects: Effects }).effects.balances)
      sums[b.deliverableUid] = addAmounts(sums[b.deliverableUid] ?? 0, b.amount);
  }
  return Object.fromEntries(Object.entries(sums).filter(([, v]) => v !== 0));
};

describe('POST /v1/store/buy', () => {
  it('charges, grants and answers the documented buy result, Completed', async () => {
    const playerId = await richPlayer();
    const res = await buy(playerId, 'sword-pack');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 200,
      data: {
        playerId,
        provisionUid: expect.stringMatching(/^[0-9a-f]{32}$/),
        cost: 100,
        costLabel: 'Gold',
        costDeliverableUid: 'gold',
        status: 'Completed',
        updateDate: clock,
        deliverables: [
          { amount: 1, label: 'Sword', type: 1, imageName: null, details: [{ label: 'rarity', value: 'rare' }] },
          { amount: 2, label: 'Shield', type: 1, imageName: null, details: null },
        ],
      },
    });
    expect(await balances(playerId)).toEqual({ gold: 200, sword: 1, shield: 2 });
    const status = await move('transaction-status', res.body.data.provisionUid, client);
    expect(status.body.data).toEqual({
      playerId,
      provisionUid: res.body.data.provisionUid,
      cost: 100,
      costDeliverableUid: 'gold',
      referenceType: 'Store',
      status: 'Completed',
      failureReason: null,
      createDate: clock,
      updateDate: clock,
    });
  });

  it('answers 1001 for a missing body or field, 1002 for a bad player', async () => {
    const none = await t.http.post('/v1/store/buy').set(server);
    expect([none.status, none.body.code]).toEqual([400, 1001]);
    const noPlayer = await t.http.post('/v1/store/buy').set(server).send({ referenceId: 'sword-pack' });
    expect(noPlayer.body).toEqual({ code: 1001, data: 'playerId: is required' });
    const noBundle = await t.http.post('/v1/store/buy').set(server).send({ playerId: randomUUID() });
    expect(noBundle.body).toEqual({ code: 1001, data: 'referenceId: is required' });
    expect((await buy('player-1', 'sword-pack')).body.code).toBe(1002);
    expect((await buy(randomUUID(), 'sword-pack')).body.code).toBe(1002);
  });

  it('answers 9001 with a text when the player cannot pay, and charges nothing', async () => {
    const playerId = await richPlayer(100);
    await buy(playerId, 'rare');
    const res = await buy(playerId, 'sword-pack');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(9001);
    expect(typeof res.body.data).toBe('string');
    expect(await balances(playerId)).toEqual({ gold: 50, sword: 1 });
  });

  it('answers 9008 for an unknown bundle or an inactive store, 9009 when out of stock', async () => {
    const playerId = await richPlayer();
    expect((await buy(playerId, 'nope')).body).toEqual({ code: 9008, data: 'Bundle does not exist' });
    expect((await buy(playerId, 'closed-pack')).body.code).toBe(9008);
    expect((await buy(playerId, 'few')).body.code).toBe(200);
    expect((await buy(playerId, 'few')).body.code).toBe(200);
    const out = await buy(playerId, 'few');
    expect(out.body).toEqual({ code: 9009, data: 'Bundle out of stock' });
    expect(await remainingStock('few')).toBe(0);
    expect((await balances(playerId)).gold).toBe(280);
  });

  it('never oversells: 20 concurrent buyers of a stock-5 bundle, exactly 5 succeed', async () => {
    const players = await Promise.all(Array.from({ length: 20 }, () => richPlayer(100)));
    const results = await Promise.all(players.map((p) => buy(p, 'five')));
    const codes = results.map((r) => r.body.code);
    expect(codes.filter((c) => c === 200)).toHaveLength(5);
    expect(codes.filter((c) => c === 9009)).toHaveLength(15);
    expect(await remainingStock('five')).toBe(0);
    for (const p of players) {
      const b = await balances(p);
      expect(b).toEqual(await balancesFromEvents(p));
      expect(b.gold === 50 ? b.sword : b.gold).toBe(b.gold === 50 ? 1 : 100);
    }
  });
});

describe('the transaction endpoints', () => {
  it('answer 1001 without a provisionUid, 1002 for a malformed one, 9004 for an unknown one', async () => {
    expect((await t.http.post('/v1/store/transaction-status').set(server).send({})).body.code).toBe(1001);
    for (const path of ['transaction-status', 'complete-transaction', 'cancel-transaction', 'refund-transaction']) {
      expect((await move(path, 'not-a-uid')).body.code).toBe(1002);
      expect((await move(path, 'f'.repeat(32))).body).toEqual({ code: 9004, data: 'Transaction does not exist' });
    }
  });

  it('let Client keys read the status but not move a transaction (4003)', async () => {
    const playerId = await richPlayer();
    const { provisionUid } = (await buy(playerId, 'shipped', client)).body.data;
    expect((await move('transaction-status', provisionUid, client)).body.data.status).toBe('Pending');
    for (const path of ['complete-transaction', 'cancel-transaction', 'refund-transaction']) {
      const res = await move(path, provisionUid, client);
      expect([res.status, res.body.code]).toEqual([403, 4003]);
    }
    expect((await move('complete-transaction', provisionUid, mobile)).body.data.status).toBe('Completed');
  });

  it('complete a Pending provision: contents granted then, not at purchase', async () => {
    const playerId = await richPlayer();
    const bought = await buy(playerId, 'shipped');
    expect(bought.body.data.status).toBe('Pending');
    expect(await balances(playerId)).toEqual({ gold: 270 });
    const done = await move('complete-transaction', bought.body.data.provisionUid);
    expect(done.body.data).toMatchObject({ status: 'Completed', referenceType: 'Store', failureReason: null });
    expect(await balances(playerId)).toEqual({ gold: 270, shield: 1 });
    expect((await move('complete-transaction', bought.body.data.provisionUid)).body.code).toBe(9002);
    expect((await move('cancel-transaction', bought.body.data.provisionUid)).body.code).toBe(9002);
  });

  it('cancel a Pending provision: Failed (Cancelled), currency and stock returned; then 9003 for everything', async () => {
    const playerId = await richPlayer();
    const before = await remainingStock('shipped');
    const { provisionUid } = (await buy(playerId, 'shipped')).body.data;
    expect(await remainingStock('shipped')).toBe(before - 1);
    const cancelled = await move('cancel-transaction', provisionUid);
    expect(cancelled.body.data).toMatchObject({ status: 'Failed', failureReason: 'Cancelled' });
    expect(await balances(playerId)).toEqual({ gold: 300 });
    expect(await remainingStock('shipped')).toBe(before);
    for (const path of ['complete-transaction', 'cancel-transaction', 'refund-transaction'])
      expect((await move(path, provisionUid)).body.code).toBe(9003);
    expect((await move('transaction-status', provisionUid)).body.data.status).toBe('Failed');
  });

  it('refund a Completed purchase: currency back, contents gone, stock returned; 9010 after; 9008 while Pending', async () => {
    const playerId = await richPlayer();
    const before = await remainingStock('stocked');
    const { provisionUid } = (await buy(playerId, 'stocked')).body.data;
    const stockBefore = await remainingStock('stocked');
    const refunded = await move('refund-transaction', provisionUid);
    expect(refunded.body.data.status).toBe('Refunded');
    expect(await balances(playerId)).toEqual({ gold: 300 });
    expect(await remainingStock('stocked')).toBe(stockBefore + 1);
    expect(await remainingStock('stocked')).toBe(before);
    expect((await move('refund-transaction', provisionUid)).body.code).toBe(9010);
    expect((await move('complete-transaction', provisionUid)).body.code).toBe(9010);

    const pending = (await buy(playerId, 'shipped')).body.data.provisionUid;
    expect((await move('refund-transaction', pending)).body.code).toBe(9008);
  });

  it('refuse to refund spent contents (9011) or an action cost (9009)', async () => {
    const playerId = await richPlayer();
    const { provisionUid } = (await buy(playerId, 'sword-pack')).body.data;
    await t.http
      .post('/v1/action/process')
      .set(server)
      .send({ name: 'spend-sword', referenceId: `spend-${++refs}`, playerId });
    const res = await move('refund-transaction', provisionUid);
    expect(res.body.code).toBe(9011);
    expect((await move('transaction-status', provisionUid)).body.data.status).toBe('Completed');

    const fight = await t.http
      .post('/v1/action/process')
      .set(server)
      .send({ name: 'fight', referenceId: `fight-${++refs}`, playerId });
    const cost = await move('transaction-status', fight.body.data.provisionUid);
    expect(cost.body.data).toMatchObject({
      referenceType: 'Action',
      status: 'Completed',
      cost: 10,
      costDeliverableUid: 'gold',
    });
    expect((await move('refund-transaction', fight.body.data.provisionUid)).body.code).toBe(9009);
  });
});

describe('settlement', () => {
  it('times out a Pending provision after pendingTimeoutSeconds by the scheduled job: Failed (TimedOut), currency and stock back', async () => {
    const playerId = await richPlayer();
    const { provisionUid } = (await buy(playerId, 'shipped')).body.data;
    // Units this purchase holds of the bundle's stock: taken, and not yet returned.
    const holds = async () =>
      (await t.service.events.readStream(stockStream(BUNDLE_STOCK, 'shipped'))).filter(
        (e) => (e.data as { holder: string }).holder === provisionUid,
      ).length === 1;
    expect(await holds()).toBe(true);
    clock += 1500;
    // The job runs on the real clock, one second after the purchase. A run that finds it early
    // schedules itself again, and one that fails is retried after 1, 2, 4 s: on a loaded machine,
    // with Redis, that has taken over 6 s, so the wait allows 20.
    await eventually(
      async () => expect((await move('transaction-status', provisionUid)).body.data.status).not.toBe('Pending'),
      20_000,
    );
    const res = await move('transaction-status', provisionUid);
    expect(res.body.data).toMatchObject({ status: 'Failed', failureReason: 'TimedOut' });
    expect(await balances(playerId)).toEqual({ gold: 300 });
    // Other tests' Pending purchases time out too, so the stock stream is checked for this one.
    expect(await holds()).toBe(false);
  }, 45_000);

  it('a purchase whose one append fails writes nothing: no charge, no stock, no provision; the retry buys once', async () => {
    const playerId = await richPlayer();
    const before = await remainingStock('stocked');
    const head = await t.service.events.headPosition();
    jest.spyOn(t.service.events, 'appendToStreams').mockRejectedValueOnce(new StoreUnavailableError('disk gone'));
    const failed = await buy(playerId, 'stocked');
    expect([failed.status, failed.body.code]).toEqual([503, 503]);
    expect(await t.service.events.headPosition()).toBe(head);
    expect(await remainingStock('stocked')).toBe(before);
    expect(await balances(playerId)).toEqual({ gold: 300 });

    const retried = await buy(playerId, 'stocked');
    expect(retried.body.data.status).toBe('Completed');
    expect(await remainingStock('stocked')).toBe(before - 1);
    expect(await balances(playerId)).toEqual({ gold: 280, sword: 1 });
    expect(await balancesFromEvents(playerId)).toEqual({ gold: 280, sword: 1 });
  });

  it('a refund whose one append fails changes nothing: still Completed, stock still held; the retry refunds once', async () => {
    const playerId = await richPlayer();
    const { provisionUid } = (await buy(playerId, 'stocked')).body.data;
    const before = await remainingStock('stocked');
    jest.spyOn(t.service.events, 'appendToStreams').mockRejectedValueOnce(new StoreUnavailableError('disk gone'));
    expect((await move('refund-transaction', provisionUid)).status).toBe(503);
    expect((await move('transaction-status', provisionUid)).body.data.status).toBe('Completed');
    expect(await remainingStock('stocked')).toBe(before);
    expect((await move('refund-transaction', provisionUid)).body.data.status).toBe('Refunded');
    expect((await move('refund-transaction', provisionUid)).body.code).toBe(9010);
    await t.service.projections.waitFor(await t.service.events.headPosition(), 5000);
    expect(await remainingStock('stocked')).toBe(before + 1);
    expect(await balances(playerId)).toEqual({ gold: 300 });
    expect(await balancesFromEvents(playerId)).toEqual({ gold: 300 });
  });
});

describe('a Pending provision across a restart', () => {
  it('still times out: the timeout job is kept on disk', async () => {
    const first = await startTestService({ catalogYaml: CATALOG });
    const playerId = randomUUID();
    await first.http
      .post('/v1/action/process')
      .set(server)
      .send({ name: 'earn', referenceId: `restart-${++refs}`, playerId });
    const { provisionUid } = (
      await first.http.post('/v1/store/buy').set(server).send({ playerId, referenceId: 'shipped' })
    ).body.data;
    const second = await first.restart();
    try {
      const status = async () =>
        (await second.http.post('/v1/store/transaction-status').set(server).send({ provisionUid })).body.data.status;
      await eventually(async () => expect(await status()).toBe('Failed'), 20_000);
    } finally {
      await second.close();
    }
  });
});

describe("POST /v1/store/transactions (a player's transaction history, Client keys too)", () => {
  it('lists purchases and action costs newest first, with what each bought and its status, a page at a time', async () => {
    const playerId = await richPlayer(300);
    const sword = (await buy(playerId, 'sword-pack', client)).body.data.provisionUid;
    const fight = (
      await t.http
        .post('/v1/action/process')
        .set(server)
        .send({ name: 'fight', referenceId: `fight-${++refs}`, playerId })
    ).body.data.provisionUid;
    const shipped = (await buy(playerId, 'shipped', client)).body.data.provisionUid;
    await move('cancel-transaction', shipped);
    const list = (body: object) =>
      t.http
        .post('/v1/store/transactions')
        .set(client)
        .send({ playerId, ...body });

    const all = await list({});
    expect(all.body.code).toBe(200);
    expect(all.body.data.map((x: { provisionUid: string }) => x.provisionUid)).toEqual([shipped, fight, sword]);
    expect(all.body.data[0]).toEqual({
      playerId,
      provisionUid: shipped,
      cost: 30,
      costDeliverableUid: 'gold',
      costLabel: 'Gold',
      referenceType: 'Store',
      status: 'Failed',
      failureReason: 'Cancelled',
      bundleUid: 'shipped',
      bundleLabel: 'Shipped shield',
      referenceId: null,
      contents: [{ deliverableUid: 'shield', label: 'Shield', type: 1, amount: 1 }],
      createDate: expect.any(Number),
      updateDate: expect.any(Number),
    });
    expect(all.body.data[1]).toMatchObject({
      provisionUid: fight,
      referenceType: 'Action',
      referenceId: expect.stringMatching(/^fight-/),
      bundleUid: null,
      cost: 10,
      status: 'Completed',
      contents: [],
    });

    const first = await list({ top: 2 });
    expect(first.body.data.map((x: { provisionUid: string }) => x.provisionUid)).toEqual([shipped, fight]);
    const next = await list({ top: 2, before: fight });
    expect(next.body.data.map((x: { provisionUid: string }) => x.provisionUid)).toEqual([sword]);
    expect((await list({ top: 2, before: sword })).body.data).toEqual([]);
  });

  it('answers 9020 for an unknown player, 9004 for a `before` the player does not have, 1001 for a bad `top`, 1002 without a playerId', async () => {
    const playerId = await richPlayer(100);
    const list = (body: object) => t.http.post('/v1/store/transactions').set(client).send(body);
    expect((await list({ playerId: randomUUID() })).body.code).toBe(9020);
    expect((await list({ playerId, before: 'f'.repeat(32) })).body.code).toBe(9004);
    expect((await list({ playerId, top: 0 })).body.code).toBe(1001);
    expect((await list({ playerId, top: 101 })).body.code).toBe(1001);
    expect((await list({})).body.code).toBe(1002);
    expect((await list({ playerId })).body).toEqual({ code: 200, data: [] });
  });
});
