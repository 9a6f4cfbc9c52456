import { availableBalance, nextLots } from '../../domain/rules/lots';
import { playerStream, provisionStream, referenceStream } from '../../domain/streams';
import { catalogOf, DAY, failureOf, PLAYER, playerSpec, T0, type PlayerSpec } from '../../test/support/player-spec';
import { noEffects } from '../../domain/events/common';
import { deciderSpec, readPlayer } from '../../test/support/decider-spec';
import { buyBundleDecider } from '../buy-bundle/decider';
import { transactionDecider } from '../provision-transactions/decider';
import { currencyExpiryJobId, EXPIRE_CURRENCY, expireCurrencyDecider } from './decider';

// T0 is 2026-06-01T00:00Z. Stars granted on a day expire at the end of the second day after it.
const catalog = catalogOf(`
  version: 1
  deliverables:
    - { uid: stars, label: Stars, type: Prize, kind: Currency, expiry: { afterDays: 2 } }
    - { uid: tokens, label: Tokens, type: Prize, kind: Currency, expiry: { endOf: Month } }
    - { uid: gold, label: Gold, type: Prize, kind: Currency }
  actions:
    - { identifier: earn, deliverables: [{ deliverable: stars, amount: 10 }] }
    - { identifier: spend, cost: 15, costDeliverable: stars }
    - { identifier: monthly, deliverables: [{ deliverable: tokens, amount: 5 }] }
  stores:
    - { uid: shop, label: Shop, bundles: [{ uid: pack, label: Pack, cost: 15, costDeliverable: stars, contents: [{ deliverable: tokens, amount: 5 }] }] }
`);

const HOUR = 3_600_000;
const lotsOf = (p: PlayerSpec, uid = 'stars') => p.state.lots.get(uid) ?? [];
/** The currency expiry job, by its decider object. */
const expiring = deciderSpec(expireCurrencyDecider);
/** The expiry job at the spec's clock, for then-events; what it writes is recorded. */
const runExpiry = (p: PlayerSpec) => p.deciding(expiring, { playerId: PLAYER }, { ...p.env, catalog });

type Lot = { deliverableUid: string; expiresAt: number; amount: number };
/**
 * The CurrencyExpired the job writes: the lots expired (each as much as the balance still held of
 * it), the balances taken, and every lot expired off the record in full.
 */
const currencyExpired = (at: number, lots: Lot[], balances = lots, recordLots = lots) => ({
  [playerStream(PLAYER)]: [
    {
      type: 'CurrencyExpired',
      data: {
        playerId: PLAYER,
        lots,
        expiredAt: at,
        effects: {
          ...noEffects(),
          balances: balances.map((l) => ({ deliverableUid: l.deliverableUid, amount: -l.amount })),
          lots: recordLots.map((l) => ({ ...l, amount: -l.amount })),
        },
      },
    },
  ],
});

describe('lots', () => {
  test('a grant is a lot expiring at the midnight ending the afterDays-th day after it, with its expiry job', () => {
    const p = playerSpec(catalog);
    const decided = p.tryProcess('earn', { at: T0 + 5 * HOUR });
    if (!decided.ok) throw new Error('processed');
    expect(lotsOf(p)).toEqual([[T0 + 3 * DAY, 10]]);
    expect(decided.value.jobs).toEqual([
      {
        type: EXPIRE_CURRENCY,
        id: currencyExpiryJobId(PLAYER, T0 + 3 * DAY),
        runAt: T0 + 3 * DAY,
        payload: { playerId: PLAYER, expiresAt: T0 + 3 * DAY },
      },
    ]);
  });

  test('spending takes the lots that expire first, whatever order they were granted in', () => {
    const p = playerSpec(catalog, { now: T0 + DAY + HOUR });
    p.process('earn', { at: T0 + DAY }); // expires T0 + 4 days
    p.process('earn', { at: T0 }); // backdated: expires T0 + 3 days
    const spent = p.process('spend');
    expect(spent.cost!.lots).toEqual([
      { deliverableUid: 'stars', expiresAt: T0 + 3 * DAY, amount: 10 },
      { deliverableUid: 'stars', expiresAt: T0 + 4 * DAY, amount: 5 },
    ]);
    expect(spent.effects.balances).toEqual([{ deliverableUid: 'stars', amount: -15 }]);
    expect(lotsOf(p)).toEqual([[T0 + 4 * DAY, 5]]);
    expect(availableBalance(p.state, 'stars', p.env.now)).toBe(5);
  });

  test('an expired lot cannot be spent, even before its expiry is recorded', () => {
    const p = playerSpec(catalog);
    p.process('earn', { at: T0 });
    p.process('earn', { at: T0 + DAY });
    p.env.now = T0 + 3 * DAY; // the first lot has just expired
    expect(availableBalance(p.state, 'stars', p.env.now)).toBe(10);
    expect(failureOf(p.tryProcess('spend')).code).toBe(9001);
  });

  test('the job records CurrencyExpired for the lots expired by now, once', () => {
    const p = playerSpec(catalog);
    p.process('earn', { at: T0 });
    p.process('earn', { at: T0 + DAY });
    p.env.now = T0 + 3 * DAY - 1;
    runExpiry(p).thenWrites({}); // early: nothing yet
    p.env.now = T0 + 3 * DAY;
    runExpiry(p).thenWrites(
      currencyExpired(T0 + 3 * DAY, [{ deliverableUid: 'stars', expiresAt: T0 + 3 * DAY, amount: 10 }]),
    );
    expect(p.state.balances.get('stars')).toBe(10);
    expect(lotsOf(p)).toEqual([[T0 + 4 * DAY, 10]]);
    runExpiry(p).thenWrites({}); // a rerun finds nothing
  });

  test('an expiry never takes a balance below zero: a lot the balance no longer holds in full is cut, and leaves the record', () => {
    const p = playerSpec(catalog);
    p.process('earn', { at: T0 });
    // A reversal cascade can take a grant off the balance without a lot on record: 4 of the lot's 10 left.
    const takenOff = {
      type: 'ProvisionRefunded',
      data: {
        playerId: PLAYER,
        provisionUid: 'elsewhere',
        refundedAt: T0,
        returned: { deliverableUid: null, label: null, amount: 0 },
        removed: [],
        powerupsRemoved: [],
        effects: { ...noEffects(), balances: [{ deliverableUid: 'stars', amount: -6 }] },
      },
    };
    const given = { [playerStream(PLAYER)]: [...p.recorded, takenOff] };
    const state = readPlayer(given, PLAYER);
    expect(state.balances.get('stars')).toBe(4);
    const cut = [{ deliverableUid: 'stars', expiresAt: T0 + 3 * DAY, amount: 4 }];
    expiring
      .given(given)
      .when({ playerId: PLAYER }, { ...p.env, now: T0 + 3 * DAY, catalog })
      .thenWrites(
        currencyExpired(T0 + 3 * DAY, cut, cut, [{ deliverableUid: 'stars', expiresAt: T0 + 3 * DAY, amount: 10 }]),
      );
    expect(availableBalance(state, 'stars', T0 + 3 * DAY)).toBe(0);
  });

  test('a grant dated long ago arrives expired: recorded and listed, expiring at once', () => {
    const p = playerSpec(catalog, { now: T0 + 10 * DAY });
    const decided = p.tryProcess('earn', { at: T0 });
    if (!decided.ok) throw new Error('processed');
    const processed = decided.value.writes[0].events.find((e) => e.type === 'ActionProcessed');
    expect(processed?.type === 'ActionProcessed' && processed.data.result.deliverables).toEqual([
      expect.objectContaining({ uid: 'stars', amount: 10 }),
    ]);
    expect(decided.value.jobs.map((j) => j.runAt)).toEqual([T0 + 3 * DAY]); // in the past: runs at once
    expect(availableBalance(p.state, 'stars', p.env.now)).toBe(0);
    expect(nextLots(p.state, p.env.now, 10)).toEqual([]);
    runExpiry(p).thenWrites(
      currencyExpired(T0 + 10 * DAY, [{ deliverableUid: 'stars', expiresAt: T0 + 3 * DAY, amount: 10 }]),
    );
    expect(p.state.balances.get('stars')).toBe(0);
    expect(lotsOf(p)).toEqual([]);
  });

  test("endOf Month counts the month of the player's zone", () => {
    const p = playerSpec(catalog);
    p.process('earn', { at: T0 }); // registers the player
    p.given({
      type: 'PlayerUpdated',
      data: {
        playerId: PLAYER,
        username: PLAYER,
        imageName: null,
        timeZone: 'America/New_York',
        updatedAt: T0,
        effects: { points: 0, balances: [], powerupsGranted: [], powerupsRemoved: [], powerupUses: [] },
      },
    });
    // 2026-06-30T23:30 in New York is already July in UTC.
    p.process('monthly', { at: Date.UTC(2026, 6, 1, 3, 30) });
    expect(lotsOf(p, 'tokens')).toEqual([[Date.UTC(2026, 6, 1, 4, 0), 5]]); // July 1st, midnight in New York
    expect(nextLots(p.state, T0, 10)).toEqual([
      { deliverableUid: 'stars', expiresAt: T0 + 3 * DAY, amount: 10 },
      { deliverableUid: 'tokens', expiresAt: Date.UTC(2026, 6, 1, 4, 0), amount: 5 },
    ]);
  });
});

const STARS = { uid: 'stars', label: 'Stars', type: 1, imageName: null, amount: 10, details: null };
const lot = (expiresAt: number, amount: number) => ({ deliverableUid: 'stars', expiresAt, amount });
/** The provision of a cost, Refunded at `at`. */
const provisionRefunded = (provisionUid: string, at: number) => ({
  [provisionStream(provisionUid)]: [
    {
      type: 'ProvisionStatusChanged',
      data: { provisionUid, playerId: PLAYER, status: 'Refunded', failureReason: null, updateDate: at },
    },
  ],
});
/** What a reversal writes: its ActionReversed (nothing but `fields` and `effects` taken back) and the reference's mark. */
const reversal = (
  referenceId: string,
  o: { actionName: string; timestamp: number; at: number },
  fields: Record<string, unknown>,
  effects: Record<string, unknown>,
) => ({
  [playerStream(PLAYER)]: [
    {
      type: 'ActionReversed',
      data: {
        playerId: PLAYER,
        referenceId,
        actionName: o.actionName,
        timestamp: o.timestamp,
        reversedAt: o.at,
        actionPoints: 0,
        actionGrants: [],
        revokedAwards: [],
        revokedLevels: [],
        refund: null,
        ...fields,
        effects: { ...noEffects(), ...effects },
      },
    },
  ],
  [referenceStream(referenceId)]: [
    { type: 'ReferenceReversed', data: { referenceId, playerId: PLAYER, reversedAt: o.at } },
  ],
});

describe('giving back and taking back', () => {
  test('a refund after a lot expired gives back the other lots with their expiry, not the expired one', () => {
    const p = playerSpec(catalog, { now: T0 + 2 * DAY });
    p.process('earn', { at: T0 }); // expires T0 + 3 days
    p.process('earn', { at: T0 + 2 * DAY }); // expires T0 + 5 days
    p.process('spend', { ref: 'spend-1' }); // draws 10 + 5
    p.env.now = T0 + 3 * DAY + HOUR;
    const at = T0 + 3 * DAY + HOUR;
    p.reversal('spend-1').thenWrites({
      ...reversal(
        'spend-1',
        { actionName: 'spend', timestamp: T0 + 2 * DAY, at },
        {
          refund: {
            deliverableUid: 'stars',
            label: 'Stars',
            amount: 15,
            lots: [lot(T0 + 3 * DAY, 10), lot(T0 + 5 * DAY, 5)],
            provisionUid: '00000000000000000000000000000001',
          },
        },
        // The lot expired at T0 + 3 days is not given back.
        { balances: [{ deliverableUid: 'stars', amount: 5 }], lots: [lot(T0 + 5 * DAY, 5)] },
      ),
      ...provisionRefunded('00000000000000000000000000000001', at),
    });
    expect(lotsOf(p)).toEqual([[T0 + 5 * DAY, 10]]);
    expect(availableBalance(p.state, 'stars', p.env.now)).toBe(10);
  });

  test('a reversal takes back the lots the action granted', () => {
    const p = playerSpec(catalog);
    p.process('earn', { at: T0 });
    p.process('earn', { at: T0 + DAY, ref: 'second' });
    p.reversal('second').thenWrites(
      reversal(
        'second',
        { actionName: 'earn', timestamp: T0 + DAY, at: T0 },
        { actionGrants: [STARS] },
        { balances: [{ deliverableUid: 'stars', amount: -10 }], lots: [lot(T0 + 4 * DAY, -10)] },
      ),
    );
    expect(lotsOf(p)).toEqual([[T0 + 3 * DAY, 10]]);
  });

  test('reversing a grant whose lot expired takes nothing more from the balance', () => {
    const p = playerSpec(catalog);
    p.process('earn', { at: T0, ref: 'old' });
    p.env.now = T0 + 4 * DAY;
    runExpiry(p).thenWrites(
      currencyExpired(T0 + 4 * DAY, [{ deliverableUid: 'stars', expiresAt: T0 + 3 * DAY, amount: 10 }]),
    );
    p.reversal('old').thenWrites(
      reversal(
        'old',
        { actionName: 'earn', timestamp: T0, at: T0 + 4 * DAY },
        { actionGrants: [STARS] },
        { balances: [] },
      ),
    );
    expect(p.state.balances.get('stars')).toBe(0);
  });

  test('a store refund after a lot expired gives back the unexpired lots, and takes the contents back from their lots', () => {
    const p = playerSpec(catalog, { now: T0 + DAY });
    p.process('earn', { at: T0 }); // expires T0 + 3 days
    p.process('earn', { at: T0 + DAY }); // expires T0 + 4 days
    const bought = p.when(deciderSpec(buyBundleDecider), { playerId: PLAYER, bundleUid: 'pack' });
    if (!bought.ok) throw new Error('bought');
    const purchase = bought.value.answer;
    expect(purchase.cost.lots).toEqual([
      { deliverableUid: 'stars', expiresAt: T0 + 3 * DAY, amount: 10 },
      { deliverableUid: 'stars', expiresAt: T0 + 4 * DAY, amount: 5 },
    ]);
    expect(lotsOf(p, 'tokens')).toEqual([[Date.UTC(2026, 6, 1), 5]]);

    p.env.now = T0 + 3 * DAY + HOUR;
    const at = T0 + 3 * DAY + HOUR;
    p.deciding(deciderSpec(transactionDecider), { op: 'refund', provisionUid: purchase.provisionUid }).thenWrites({
      [playerStream(PLAYER)]: [
        {
          type: 'ProvisionRefunded',
          data: {
            playerId: PLAYER,
            provisionUid: purchase.provisionUid,
            refundedAt: at,
            returned: purchase.cost,
            removed: [{ uid: 'tokens', label: 'Tokens', type: 1, imageName: null, amount: 5, details: null }],
            powerupsRemoved: [],
            effects: {
              ...noEffects(),
              balances: [
                { deliverableUid: 'stars', amount: 5 },
                { deliverableUid: 'tokens', amount: -5 },
              ],
              // The unexpired stars given back with their expiry; the tokens taken from their lot.
              lots: [lot(T0 + 4 * DAY, 5), { deliverableUid: 'tokens', expiresAt: Date.UTC(2026, 6, 1), amount: -5 }],
            },
          },
        },
      ],
      ...provisionRefunded(purchase.provisionUid, at),
    });
    expect(lotsOf(p)).toEqual([[T0 + 4 * DAY, 10]]);
    expect(lotsOf(p, 'tokens')).toEqual([]);
    expect(availableBalance(p.state, 'stars', p.env.now)).toBe(10);
    expect(p.state.balances.get('tokens')).toBe(0);
  });
});
