import { transactionView } from '../../domain/provisions';
import { BUNDLE_STOCK, provisionStream, stockStream } from '../../domain/streams';
import {
  catalogOf,
  DAY,
  failureOf,
  OTHER_PLAYER,
  PLAYER,
  playerEvents,
  playerSpec,
  succeeded,
  T0,
  type PlayerSpec,
} from '../../test/support/player-spec';
import type { TransactionOperation } from '../provision-transactions/decider';
import { balanceOf } from '../../domain/player/state';
import { deciderSpec, readProvision, readStock } from '../../test/support/decider-spec';
import { timeoutDecider, transactionDecider } from '../provision-transactions/decider';
import { buyBundleDecider } from './decider';
import { PURCHASE_WRITE_WINDOW_MS } from '../provision-transactions/decider';

/** T0 is 2026-06-01: the main store is open from 2026-01-01 to 2027-01-01. */
const catalog = catalogOf(`
  version: 1
  settings: { pendingTimeoutSeconds: 60 }
  deliverables:
    - { uid: gold, label: Gold, type: Prize, kind: Currency, imageName: "https://img/gold.png" }
    - { uid: sword, label: Sword, type: Prize, details: [{ label: rarity, value: rare }] }
    - { uid: shield, label: Shield, type: Prize }
    - { uid: boost, label: Boost, type: Prize, kind: Powerup, powerup: { multiplier: 2, timeoutSeconds: 600 } }
  actions:
    - { identifier: earn, deliverables: [{ deliverable: gold, amount: 100 }] }
    - { identifier: fight, cost: 10, costDeliverable: gold }
  stores:
    - uid: main
      label: Main
      startDate: 2026-01-01T00:00:00
      endDate: 2027-01-01T00:00:00
      bundles:
        - { uid: sword-pack, label: Sword pack, cost: 100, costDeliverable: gold, contents: [{ deliverable: sword, amount: 1 }, { deliverable: shield, amount: 2 }] }
        - { uid: rare, label: Rare sword, cost: 50, costDeliverable: gold, initialStock: 5, contents: [{ deliverable: sword, amount: 1 }] }
        - { uid: shipped, label: Shipped shield, cost: 30, costDeliverable: gold, requiresFulfillment: true, contents: [{ deliverable: shield, amount: 1 }] }
        - { uid: boosts, label: Boosts, cost: 10, costDeliverable: gold, contents: [{ deliverable: boost, amount: 2 }] }
        - { uid: free, label: Free shield, cost: 0, contents: [{ deliverable: shield, amount: 1 }] }
    - { uid: closed, label: Closed, isActive: false, bundles: [{ uid: closed-pack, label: Closed pack, cost: 1, costDeliverable: gold, contents: [{ deliverable: sword, amount: 1 }] }] }
    - { uid: later, label: Later, startDate: 2026-07-01T00:00:00, bundles: [{ uid: later-pack, label: Later pack, cost: 1, costDeliverable: gold, contents: [{ deliverable: sword, amount: 1 }] }] }
    - { uid: over, label: Over, endDate: 2026-05-31T23:59:59, bundles: [{ uid: over-pack, label: Over pack, cost: 1, costDeliverable: gold, contents: [{ deliverable: sword, amount: 1 }] }] }
`);

/** Buys for the spec's player; a successful purchase is recorded on its streams. */
/** The purchase, a client's move of a provision and its timeout, each by its decider object. */
const buying = deciderSpec(buyBundleDecider);
const transacting = deciderSpec(transactionDecider);
const timingOut = deciderSpec(timeoutDecider);

const tryBuy = (p: PlayerSpec, bundleUid: string) => p.when(buying, { playerId: PLAYER, bundleUid });
function buy(p: PlayerSpec, bundleUid: string) {
  const decision = tryBuy(p, bundleUid);
  if (!decision.ok) throw new Error(`buy failed: ${decision.failure.code} ${decision.failure.message}`);
  return decision.value.answer;
}

/** The units taken of a bundle's stock, as the spec's streams hold them. */
const stockTaken = (p: PlayerSpec, bundleUid: string) =>
  readStock(p.givenStreams(), stockStream(BUNDLE_STOCK, bundleUid)).taken;

function tryTransact(p: PlayerSpec, op: TransactionOperation | 'timeout', provisionUid: string) {
  if (op !== 'timeout' || !p.streams.has(provisionStream(provisionUid)))
    return p.when(transacting, { op: op === 'timeout' ? 'cancel' : op, provisionUid });
  const timedOut = succeeded(p.when(timingOut, { provisionUid }));
  return timedOut.writes.length ? { ok: true as const, value: timedOut } : failureOfTimeout(p, provisionUid);
}

/** What the timeout's "nothing to do" is in the state table's codes, to test both the same way. */
const failureOfTimeout = (p: PlayerSpec, provisionUid: string) =>
  transacting.given(p.givenStreams()).when({ op: 'cancel', provisionUid }, { ...p.env, catalog }).decided;

/** The player event a successful move wrote. */
function moved(result: ReturnType<typeof tryTransact>) {
  if (!result.ok) throw new Error(`expected a move, got ${result.failure.code}`);
  return playerEvents(result.value)[0];
}

const status = (p: PlayerSpec, uid: string) => transactionView(readProvision(p.givenStreams(), provisionStream(uid))!);

/** A registered player holding `gold`. */
function rich(gold = 300): PlayerSpec {
  const p = playerSpec(catalog);
  p.repeat(gold / 100, 'earn');
  return p;
}

describe('buying a bundle', () => {
  test('charges the cost and grants the contents in one Completed purchase', () => {
    const p = rich();
    const purchase = buy(p, 'sword-pack');
    expect(purchase).toMatchObject({
      status: 'Completed',
      cost: { deliverableUid: 'gold', label: 'Gold', amount: 100 },
      stockTaken: false,
      pendingUntil: null,
      purchasedAt: T0,
    });
    expect(purchase.contents.map((g) => [g.uid, g.amount, g.details])).toEqual([
      ['sword', 1, [{ label: 'rarity', value: 'rare' }]],
      ['shield', 2, null],
    ]);
    expect(balanceOf(p.state, 'gold')).toBe(200);
    expect(balanceOf(p.state, 'sword')).toBe(1);
    expect(balanceOf(p.state, 'shield')).toBe(2);
    expect(status(p, purchase.provisionUid)).toEqual({
      playerId: PLAYER,
      provisionUid: purchase.provisionUid,
      cost: 100,
      costDeliverableUid: 'gold',
      referenceType: 'Store',
      status: 'Completed',
      failureReason: null,
      createDate: T0,
      updateDate: T0,
    });
  });

  test('with exactly the cost in balance succeeds; one short is 9001 and records nothing', () => {
    const exact = rich(100);
    expect(tryBuy(exact, 'sword-pack').ok).toBe(true);
    expect(balanceOf(exact.state, 'gold')).toBe(0);
    const broke = rich(100);
    buy(broke, 'rare'); // 50 left
    const before = broke.recorded.length;
    expect(failureOf(tryBuy(broke, 'sword-pack'))).toMatchObject({ code: 9001 });
    expect(broke.recorded.length).toBe(before);
    expect(balanceOf(broke.state, 'gold')).toBe(50);
  });

  test('a limited bundle takes stock; an unlimited one does not', () => {
    const p = rich();
    expect(buy(p, 'rare').stockTaken).toBe(true);
    expect(buy(p, 'sword-pack').stockTaken).toBe(false);
  });

  test('a free bundle needs no currency', () => {
    const p = rich(100);
    expect(buy(p, 'free')).toMatchObject({
      cost: { deliverableUid: null, label: null, amount: 0 },
      status: 'Completed',
    });
    expect(balanceOf(p.state, 'shield')).toBe(1);
  });

  test('9008 for an unknown bundle, an inactive store, and outside the store dates', () => {
    const p = rich();
    expect(failureOf(tryBuy(p, 'nope'))).toMatchObject({ code: 9008, message: 'Bundle does not exist' });
    expect(failureOf(tryBuy(p, 'closed-pack'))).toMatchObject({ code: 9008 });
    expect(failureOf(tryBuy(p, 'later-pack'))).toMatchObject({ code: 9008 });
    expect(failureOf(tryBuy(p, 'over-pack'))).toMatchObject({ code: 9008 });
    p.env.now = Date.UTC(2026, 6, 1); // the later store opens at its startDate, to the millisecond
    expect(tryBuy(p, 'later-pack').ok).toBe(true);
  });

  test('an unknown player is 1002', () => {
    const p = playerSpec(catalog);
    expect(failureOf(tryBuy(p, 'free'))).toMatchObject({ code: 1002 });
  });

  test('powerups in a bundle become owned instances', () => {
    const p = rich();
    const purchase = buy(p, 'boosts');
    expect(purchase.effects.powerupsGranted).toHaveLength(2);
    expect(p.state.powerups.size).toBe(2);
    expect(p.state.provisions.get(purchase.provisionUid)!.powerupUids).toEqual(
      purchase.effects.powerupsGranted.map((x) => x.uid),
    );
  });
});

describe('a bundle that requires fulfillment', () => {
  test('is Pending: charged, contents not yet granted, due by pendingTimeoutSeconds', () => {
    const p = rich();
    const purchase = buy(p, 'shipped');
    expect(purchase).toMatchObject({ status: 'Pending', pendingUntil: T0 + 60_000 });
    expect(balanceOf(p.state, 'gold')).toBe(270);
    expect(balanceOf(p.state, 'shield')).toBe(0);
  });

  test('complete grants the contents and moves it to Completed', () => {
    const p = rich();
    const { provisionUid } = buy(p, 'shipped');
    p.env.now = T0 + 5000;
    const completed = tryTransact(p, 'complete', provisionUid);
    expect(moved(completed).type).toBe('ProvisionCompleted');
    expect(balanceOf(p.state, 'shield')).toBe(1);
    expect(status(p, provisionUid)).toMatchObject({ status: 'Completed', createDate: T0, updateDate: T0 + 5000 });
  });

  test('cancel fails it with reason Cancelled and returns the currency', () => {
    const p = rich();
    const { provisionUid } = buy(p, 'shipped');
    const cancelled = tryTransact(p, 'cancel', provisionUid);
    expect(moved(cancelled).data).toMatchObject({ reason: 'Cancelled', returned: { amount: 30 } });
    expect(balanceOf(p.state, 'gold')).toBe(300);
    expect(status(p, provisionUid)).toMatchObject({ status: 'Failed', failureReason: 'Cancelled' });
  });

  test('the timeout fails it with reason TimedOut and returns the currency, once due', () => {
    const p = rich();
    const { provisionUid, pendingUntil } = buy(p, 'shipped');
    p.env.now = pendingUntil! - 1;
    expect(timingOut.given(p.givenStreams()).when({ provisionUid }, { ...p.env, catalog }).decided).toEqual({
      ok: true,
      value: { writes: [], jobs: [], answer: { dueAt: pendingUntil } },
    });
    p.env.now = pendingUntil!;
    expect(tryTransact(p, 'timeout', provisionUid).ok).toBe(true);
    expect(status(p, provisionUid)).toMatchObject({
      status: 'Failed',
      failureReason: 'TimedOut',
      updateDate: pendingUntil,
    });
    expect(balanceOf(p.state, 'gold')).toBe(300);
    // Run again (a job delivered twice): nothing left to do.
    expect(timingOut.given(p.givenStreams()).when({ provisionUid }, { ...p.env, catalog }).decided).toEqual({
      ok: true,
      value: { writes: [], jobs: [], answer: { dueAt: null } },
    });
  });

  test('a Pending purchase schedules its timeout with the purchase; a completed one needs none', () => {
    const p = rich();
    const pending = tryBuy(p, 'shipped');
    const completed = tryBuy(p, 'sword-pack');
    if (!pending.ok || !completed.ok) throw new Error('buy failed');
    const { provisionUid } = pending.value.answer;
    expect(pending.value.jobs).toEqual([
      {
        type: 'provision-timeout',
        id: `provision-timeout-${provisionUid}`,
        runAt: T0 + 60_000,
        payload: { provisionUid, writtenBy: T0 + PURCHASE_WRITE_WINDOW_MS },
      },
    ]);
    expect(completed.value.jobs).toEqual([]);
  });
});

describe('what a purchase and a move write, in one append', () => {
  test('a purchase: the player event, the provision record (expected new), a limited unit taken at the revision read', () => {
    const p = rich();
    const bought = tryBuy(p, 'rare');
    if (!bought.ok) throw new Error('buy failed');
    const { provisionUid } = bought.value.answer;
    expect(bought.value.writes.map((w) => [w.stream, w.events.map((e) => e.type), w.expectedRevision])).toEqual([
      [`player-${PLAYER}`, ['BundlePurchased'], undefined],
      [provisionStream(provisionUid), ['ProvisionOpened'], 'no_stream'],
      [stockStream(BUNDLE_STOCK, 'rare'), ['BundleStockTaken'], undefined],
    ]);
    expect(p.streams.get(stockStream(BUNDLE_STOCK, 'rare'))).toEqual([
      { type: 'BundleStockTaken', data: { resourceUid: 'rare', holder: provisionUid, playerId: PLAYER, units: 1 } },
    ]);
  });

  test('9009 once the stock is all taken, whoever took it, with nothing recorded', () => {
    const p = rich(1000);
    const takenElsewhere = Array.from({ length: 3 }, (_, i) => ({
      type: BUNDLE_STOCK.taken,
      data: { resourceUid: 'rare', holder: `elsewhere-${i}`, playerId: OTHER_PLAYER, units: 1 },
    }));
    p.streams.set(stockStream(BUNDLE_STOCK, 'rare'), takenElsewhere);
    buy(p, 'rare');
    buy(p, 'rare'); // 5 of 5 taken
    const before = p.recorded.length;
    expect(failureOf(tryBuy(p, 'rare'))).toEqual({ code: 9009, message: 'Bundle out of stock' });
    expect(p.recorded.length).toBe(before);
  });

  test('a refund gives the unit back (any revision) and records the status on the provision', () => {
    const p = rich();
    const { provisionUid } = buy(p, 'rare');
    p.env.now = T0 + DAY;
    const refunded = tryTransact(p, 'refund', provisionUid);
    if (!refunded.ok) throw new Error('refund failed');
    expect(refunded.value.writes.map((w) => [w.stream, w.events.map((e) => e.type), w.expectedRevision])).toEqual([
      [`player-${PLAYER}`, ['ProvisionRefunded'], undefined],
      [provisionStream(provisionUid), ['ProvisionStatusChanged'], undefined],
      [stockStream(BUNDLE_STOCK, 'rare'), ['BundleStockReturned'], 'any'],
    ]);
    expect(stockTaken(p, 'rare')).toBe(0);
    expect(status(p, provisionUid)).toMatchObject({ status: 'Refunded', updateDate: T0 + DAY });
  });
});

describe('the transaction state table', () => {
  const ops: TransactionOperation[] = ['complete', 'cancel', 'refund'];

  test('9004 for a provision the player does not have', () => {
    const p = rich();
    for (const op of ops) expect(failureOf(tryTransact(p, op, 'unknown'))).toMatchObject({ code: 9004 });
  });

  test('Completed: complete and cancel are 9002; refund moves it to Refunded', () => {
    const p = rich();
    const { provisionUid } = buy(p, 'sword-pack');
    expect(failureOf(tryTransact(p, 'complete', provisionUid))).toMatchObject({ code: 9002 });
    expect(failureOf(tryTransact(p, 'cancel', provisionUid))).toMatchObject({ code: 9002 });
    expect(tryTransact(p, 'refund', provisionUid).ok).toBe(true);
    expect(status(p, provisionUid).status).toBe('Refunded');
  });

  test('Failed: every operation is 9003, refund included', () => {
    const p = rich();
    const { provisionUid } = buy(p, 'shipped');
    tryTransact(p, 'cancel', provisionUid);
    for (const op of [...ops, 'timeout' as const])
      expect(failureOf(tryTransact(p, op, provisionUid))).toMatchObject({ code: 9003 });
  });

  test('Refunded: every operation is 9010', () => {
    const p = rich();
    const { provisionUid } = buy(p, 'sword-pack');
    tryTransact(p, 'refund', provisionUid);
    for (const op of ops) expect(failureOf(tryTransact(p, op, provisionUid))).toMatchObject({ code: 9010 });
  });

  test('Pending: refund is 9008 (only completed transactions)', () => {
    const p = rich();
    const { provisionUid } = buy(p, 'shipped');
    expect(failureOf(tryTransact(p, 'refund', provisionUid))).toMatchObject({ code: 9008 });
  });

  test("an action's cost is a Completed provision of referenceType Action; refunding it is 9009", () => {
    const p = rich(100);
    const fight = p.process('fight');
    const uid = fight.result.provisionUid!;
    expect(status(p, uid)).toMatchObject({
      referenceType: 'Action',
      status: 'Completed',
      cost: 10,
      costDeliverableUid: 'gold',
    });
    expect(failureOf(tryTransact(p, 'refund', uid))).toMatchObject({ code: 9009 });
    expect(failureOf(tryTransact(p, 'complete', uid))).toMatchObject({ code: 9002 });
  });

  test('reversing a costed action refunds its provision', () => {
    const p = rich(100);
    const fight = p.process('fight');
    p.env.now = T0 + DAY;
    p.reverse(fight.referenceId);
    expect(status(p, fight.result.provisionUid!)).toMatchObject({ status: 'Refunded', updateDate: T0 + DAY });
    expect(balanceOf(p.state, 'gold')).toBe(100);
  });
});

describe('a refund', () => {
  test('returns the currency and takes the contents back', () => {
    const p = rich();
    const { provisionUid } = buy(p, 'sword-pack');
    const refunded = tryTransact(p, 'refund', provisionUid);
    expect(moved(refunded).data).toMatchObject({
      returned: { amount: 100 },
      removed: [{ uid: 'sword' }, { uid: 'shield' }],
    });
    expect([balanceOf(p.state, 'gold'), balanceOf(p.state, 'sword'), balanceOf(p.state, 'shield')]).toEqual([
      300, 0, 0,
    ]);
  });

  test('of contents already spent is 9011 and changes nothing', () => {
    const p = rich();
    const first = buy(p, 'sword-pack');
    // The player's only swords: the pack's one is given away by a second account of the same item.
    p.given({
      type: 'ProvisionRefunded',
      data: {
        playerId: PLAYER,
        provisionUid: 'elsewhere',
        refundedAt: T0,
        returned: { deliverableUid: null, label: null, amount: 0 },
        removed: [],
        powerupsRemoved: [],
        effects: {
          points: 0,
          balances: [{ deliverableUid: 'sword', amount: -1 }],
          powerupsGranted: [],
          powerupsRemoved: [],
          powerupUses: [],
        },
      },
    });
    const before = p.recorded.length;
    expect(failureOf(tryTransact(p, 'refund', first.provisionUid))).toMatchObject({ code: 9011 });
    expect(p.recorded.length).toBe(before);
    expect(status(p, first.provisionUid).status).toBe('Completed');
  });

  test('takes back the powerup instances the bundle created; 9011 when one is gone', () => {
    const p = rich();
    const purchase = buy(p, 'boosts');
    const refunded = tryTransact(p, 'refund', purchase.provisionUid);
    const event = moved(refunded);
    expect(event.type === 'ProvisionRefunded' && event.data.powerupsRemoved).toHaveLength(2);
    expect(p.state.powerups.size).toBe(0);

    const q = rich();
    const again = buy(q, 'boosts');
    const gone = again.effects.powerupsGranted[0].uid;
    q.given({
      type: 'ProvisionRefunded',
      data: {
        playerId: PLAYER,
        provisionUid: 'elsewhere',
        refundedAt: T0,
        returned: { deliverableUid: null, label: null, amount: 0 },
        removed: [],
        powerupsRemoved: [gone],
        effects: { points: 0, balances: [], powerupsGranted: [], powerupsRemoved: [gone], powerupUses: [] },
      },
    });
    expect(failureOf(tryTransact(q, 'refund', again.provisionUid))).toMatchObject({ code: 9011 });
  });
});
