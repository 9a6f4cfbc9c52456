/** The moves of a bundle's provision (complete, cancel, refund) and its timeout, on purchases of command-api/buy-bundle. */
import { balanceOf } from '../../domain/player/state';
import { BUNDLE_STOCK, provisionStream, stockStream } from '../../domain/streams';
import { DAY, PLAYER, T0 } from '../../test/support/player-spec';
import {
  balance,
  buy,
  effectsOf,
  failed,
  gold,
  grant,
  PLAYER_STREAM,
  refunded,
  rich,
  shields,
  status,
  statusChanged,
  stockTaken,
  sword,
  swordPackRefunded,
  transact,
  uid,
} from '../../test/support/store-spec';
import type { TransactionOperation } from './decider';

describe('a bundle that requires fulfillment', () => {
  test('complete grants the contents and moves it to Completed', () => {
    const p = rich();
    const { provisionUid } = buy(p, 'shipped');
    p.env.now = T0 + 5000;
    transact(p, 'complete', provisionUid).thenWrites({
      [PLAYER_STREAM]: [
        {
          type: 'ProvisionCompleted',
          data: {
            playerId: PLAYER,
            provisionUid,
            completedAt: T0 + 5000,
            contents: [shields(1)],
            effects: effectsOf({ balances: [balance('shield', 1)] }),
          },
        },
      ],
      ...statusChanged(provisionUid, 'Completed', T0 + 5000),
    });
    expect(balanceOf(p.state, 'shield')).toBe(1);
    expect(status(p, provisionUid)).toMatchObject({ status: 'Completed', createDate: T0, updateDate: T0 + 5000 });
  });

  test('cancel fails it with reason Cancelled and returns the currency', () => {
    const p = rich();
    const { provisionUid } = buy(p, 'shipped');
    transact(p, 'cancel', provisionUid).thenWrites(failed(provisionUid, 'Cancelled', T0));
    expect(balanceOf(p.state, 'gold')).toBe(300);
    expect(status(p, provisionUid)).toMatchObject({ status: 'Failed', failureReason: 'Cancelled' });
  });

  test('the timeout fails it with reason TimedOut and returns the currency, once due', () => {
    const p = rich();
    const { provisionUid, pendingUntil } = buy(p, 'shipped');
    p.env.now = pendingUntil! - 1;
    expect(transact(p, 'timeout', provisionUid).thenWrites({}).answer).toEqual({ dueAt: pendingUntil });
    p.env.now = pendingUntil!;
    const timedOut = transact(p, 'timeout', provisionUid).thenWrites(failed(provisionUid, 'TimedOut', pendingUntil!));
    expect(timedOut.answer).toEqual({ dueAt: null });
    expect(status(p, provisionUid)).toMatchObject({
      status: 'Failed',
      failureReason: 'TimedOut',
      updateDate: pendingUntil,
    });
    expect(balanceOf(p.state, 'gold')).toBe(300);
    // Run again (a job delivered twice): nothing left to do.
    const again = transact(p, 'timeout', provisionUid).thenWrites({});
    expect([again.answer, again.jobs]).toEqual([{ dueAt: null }, []]);
  });
});

describe('what a refund writes, in one append', () => {
  test('a refund gives the unit back (any revision) and records the status on the provision', () => {
    const p = rich();
    const { provisionUid } = buy(p, 'rare');
    p.env.now = T0 + DAY;
    const refund = transact(p, 'refund', provisionUid).thenWrites({
      ...refunded(
        provisionUid,
        {
          returned: gold(50),
          removed: [sword],
          effects: effectsOf({ balances: [balance('gold', 50), balance('sword', -1)] }),
        },
        T0 + DAY,
      ),
      [stockStream(BUNDLE_STOCK, 'rare')]: [
        {
          type: BUNDLE_STOCK.returned,
          data: { resourceUid: 'rare', holder: provisionUid, playerId: PLAYER, units: 1 },
        },
      ],
    });
    expect(refund.writes.map((w) => [w.stream, w.expectedRevision])).toEqual([
      [PLAYER_STREAM, undefined],
      [provisionStream(provisionUid), undefined],
      [stockStream(BUNDLE_STOCK, 'rare'), 'any'],
    ]);
    expect(stockTaken(p, 'rare')).toBe(0);
    expect(status(p, provisionUid)).toMatchObject({ status: 'Refunded', updateDate: T0 + DAY });
  });
});

describe('the transaction state table', () => {
  const ops: TransactionOperation[] = ['complete', 'cancel', 'refund'];

  test('9004 for a provision the player does not have', () => {
    const p = rich();
    for (const op of ops) transact(p, op, 'unknown').thenFails(9004);
  });

  test('Completed: complete and cancel are 9002; refund moves it to Refunded', () => {
    const p = rich();
    const { provisionUid } = buy(p, 'sword-pack');
    transact(p, 'complete', provisionUid).thenFails(9002);
    transact(p, 'cancel', provisionUid).thenFails(9002);
    transact(p, 'refund', provisionUid).thenWrites(swordPackRefunded(1));
    expect(status(p, provisionUid).status).toBe('Refunded');
  });

  test('Failed: every operation is 9003, refund included; its timeout has nothing to do', () => {
    const p = rich();
    const { provisionUid } = buy(p, 'shipped');
    transact(p, 'cancel', provisionUid).thenWrites(failed(provisionUid, 'Cancelled', T0));
    for (const op of ops) transact(p, op, provisionUid).thenFails(9003);
    expect(transact(p, 'timeout', provisionUid).thenWrites({}).answer).toEqual({ dueAt: null });
  });

  test('Refunded: every operation is 9010', () => {
    const p = rich();
    const { provisionUid } = buy(p, 'sword-pack');
    transact(p, 'refund', provisionUid).thenWrites(swordPackRefunded(1));
    for (const op of ops) transact(p, op, provisionUid).thenFails(9010);
  });

  test('Pending: refund is 9008 (only completed transactions)', () => {
    const p = rich();
    const { provisionUid } = buy(p, 'shipped');
    transact(p, 'refund', provisionUid).thenFails(9008);
  });

  test("an action's cost is a Completed provision of referenceType Action; refunding it is 9009", () => {
    const p = rich(100);
    const fight = p.process('fight');
    const provisionUid = fight.result.provisionUid!;
    expect(status(p, provisionUid)).toMatchObject({
      referenceType: 'Action',
      status: 'Completed',
      cost: 10,
      costDeliverableUid: 'gold',
    });
    transact(p, 'refund', provisionUid).thenFails(9009);
    transact(p, 'complete', provisionUid).thenFails(9002);
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
    transact(p, 'refund', provisionUid).thenWrites(swordPackRefunded(1));
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
    transact(p, 'refund', first.provisionUid).thenFails(
      9011,
      'Refund would make a balance negative: sword was already spent',
    );
    expect(status(p, first.provisionUid).status).toBe('Completed');
  });

  test('takes back the powerup instances the bundle created; 9011 when one is gone', () => {
    const p = rich();
    buy(p, 'boosts');
    transact(p, 'refund', uid(3)).thenWrites(
      refunded(uid(3), {
        returned: gold(10),
        removed: [grant('boost', 'Boost', 2)],
        effects: effectsOf({ balances: [balance('gold', 10)], powerupsRemoved: [uid(1), uid(2)] }),
      }),
    );
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
    transact(q, 'refund', again.provisionUid).thenFails(9011);
  });
});
