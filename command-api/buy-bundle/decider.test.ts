/** Buying a bundle (the moves of its provision: command-api/provision-transactions/decider.test.ts). */
import { balanceOf } from '../../domain/player/state';
import { BUNDLE_STOCK, provisionStream, stockStream } from '../../domain/streams';
import { OTHER_PLAYER, PLAYER, playerSpec, T0 } from '../../test/support/player-spec';
import {
  balance,
  boost,
  buy,
  catalog,
  effectsOf,
  gold,
  grant,
  noCost,
  PLAYER_STREAM,
  purchased,
  rareSword,
  rich,
  shields,
  shipped,
  status,
  sword,
  swordPack,
  tryBuy,
  uid,
} from '../../test/support/store-spec';
import { PURCHASE_WRITE_WINDOW_MS } from '../provision-transactions/decider';

describe('buying a bundle', () => {
  test('charges the cost and grants the contents in one Completed purchase', () => {
    const p = rich();
    tryBuy(p, 'sword-pack').thenWrites(swordPack());
    expect(balanceOf(p.state, 'gold')).toBe(200);
    expect(balanceOf(p.state, 'sword')).toBe(1);
    expect(balanceOf(p.state, 'shield')).toBe(2);
    expect(status(p, uid(1))).toEqual({
      playerId: PLAYER,
      provisionUid: uid(1),
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
    tryBuy(exact, 'sword-pack').thenWrites(swordPack());
    expect(balanceOf(exact.state, 'gold')).toBe(0);
    const broke = rich(100);
    buy(broke, 'rare'); // 50 left
    tryBuy(broke, 'sword-pack').thenFails(9001);
    expect(balanceOf(broke.state, 'gold')).toBe(50);
  });

  test('a limited bundle takes stock; an unlimited one does not', () => {
    const p = rich();
    tryBuy(p, 'rare').thenWrites(rareSword(1));
    tryBuy(p, 'sword-pack').thenWrites(swordPack(2));
  });

  test('a free bundle needs no currency', () => {
    const p = rich(100);
    tryBuy(p, 'free').thenWrites(
      purchased({
        provisionUid: uid(1),
        bundleUid: 'free',
        bundleLabel: 'Free shield',
        cost: noCost,
        contents: [shields(1)],
        effects: effectsOf({ balances: [balance('shield', 1)] }),
      }),
    );
    expect(balanceOf(p.state, 'shield')).toBe(1);
  });

  test('9008 for an unknown bundle, an inactive store, and outside the store dates', () => {
    const p = rich();
    tryBuy(p, 'nope').thenFails(9008, 'Bundle does not exist');
    tryBuy(p, 'closed-pack').thenFails(9008);
    tryBuy(p, 'later-pack').thenFails(9008);
    tryBuy(p, 'over-pack').thenFails(9008);
    p.env.now = Date.UTC(2026, 6, 1); // the later store opens at its startDate, to the millisecond
    const writes = purchased({
      provisionUid: uid(1),
      bundleUid: 'later-pack',
      bundleLabel: 'Later pack',
      cost: gold(1),
      contents: [sword],
      effects: effectsOf({ balances: [balance('sword', 1), balance('gold', -1)] }),
      at: Date.UTC(2026, 6, 1),
      storeUid: 'later',
    });
    tryBuy(p, 'later-pack').thenWrites(writes);
  });

  test('an unknown player is 1002', () => {
    const p = playerSpec(catalog);
    tryBuy(p, 'free').thenFails(1002);
  });

  test('powerups in a bundle become owned instances', () => {
    const p = rich();
    // The instances' uids are minted before the provision's.
    tryBuy(p, 'boosts').thenWrites(
      purchased({
        provisionUid: uid(3),
        bundleUid: 'boosts',
        bundleLabel: 'Boosts',
        cost: gold(10),
        contents: [grant('boost', 'Boost', 2)],
        effects: effectsOf({ balances: [balance('gold', -10)], powerupsGranted: [boost(1), boost(2)] }),
      }),
    );
    expect(p.state.powerups.size).toBe(2);
    expect(p.state.provisions.get(uid(3))!.powerupUids).toEqual([uid(1), uid(2)]);
  });
});

describe('a bundle that requires fulfillment', () => {
  test('is Pending: charged, contents not yet granted, due by pendingTimeoutSeconds', () => {
    const p = rich();
    tryBuy(p, 'shipped').thenWrites(shipped());
    expect(balanceOf(p.state, 'gold')).toBe(270);
    expect(balanceOf(p.state, 'shield')).toBe(0);
  });

  test('a Pending purchase schedules its timeout with the purchase; a completed one needs none', () => {
    const p = rich();
    const pending = tryBuy(p, 'shipped').thenWrites(shipped(1));
    const completed = tryBuy(p, 'sword-pack').thenWrites(swordPack(2));
    expect(pending.jobs).toEqual([
      {
        type: 'provision-timeout',
        id: `provision-timeout-${uid(1)}`,
        runAt: T0 + 60_000,
        payload: { provisionUid: uid(1), writtenBy: T0 + PURCHASE_WRITE_WINDOW_MS },
      },
    ]);
    expect(completed.jobs).toEqual([]);
  });
});

describe('what a purchase and a move write, in one append', () => {
  test('a purchase: the player event, the provision record (expected new), a limited unit taken at the revision read', () => {
    const p = rich();
    const bought = tryBuy(p, 'rare').thenWrites(rareSword(1));
    expect(bought.writes.map((w) => [w.stream, w.expectedRevision])).toEqual([
      [PLAYER_STREAM, undefined],
      [provisionStream(uid(1)), 'no_stream'],
      [stockStream(BUNDLE_STOCK, 'rare'), undefined],
    ]);
  });

  test('9009 once the stock is all taken, whoever took it, with nothing recorded', () => {
    const p = rich(1000);
    const takenElsewhere = Array.from({ length: 3 }, (_, i) => ({
      type: BUNDLE_STOCK.taken,
      data: { resourceUid: 'rare', holder: `elsewhere-${i}`, playerId: OTHER_PLAYER, units: 1 },
    }));
    p.streams.set(stockStream(BUNDLE_STOCK, 'rare'), takenElsewhere);
    tryBuy(p, 'rare').thenWrites(rareSword(1));
    tryBuy(p, 'rare').thenWrites(rareSword(2)); // 5 of 5 taken
    tryBuy(p, 'rare').thenFails(9009, 'Bundle out of stock');
  });
});
