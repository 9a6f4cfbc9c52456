/**
 * The store of the purchase and transaction specs (command-api/buy-bundle, provision-transactions):
 * a catalog with bundles of each kind, a player's purchases and the moves of their provisions
 * decided on a player-spec's streams (recorded when they succeed), and the events each writes,
 * built for then-events:
 *
 *   const p = rich();
 *   const { provisionUid } = buy(p, 'shipped');
 *   transact(p, 'cancel', provisionUid).thenWrites(failed(provisionUid, 'Cancelled', T0));
 */
import { noEffects, type Effects } from '../../domain/events/common';
import { transactionView } from '../../domain/provisions';
import { BUNDLE_STOCK, playerStream, provisionStream, stockStream } from '../../domain/streams';
import { buyBundleDecider } from '../../command-api/buy-bundle/decider';
import {
  timeoutDecider,
  transactionDecider,
  type TransactionOperation,
} from '../../command-api/provision-transactions/decider';
import { deciderSpec, readProvision, readStock } from './decider-spec';
import { catalogOf, PLAYER, playerSpec, T0, type PlayerSpec } from './player-spec';

/** T0 is 2026-06-01: the main store is open from 2026-01-01 to 2027-01-01. */
export const catalog = catalogOf(`
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

/** The purchase, a client's move of a provision and its timeout, each by its decider object. */
const buying = deciderSpec(buyBundleDecider);
const transacting = deciderSpec(transactionDecider);
const timingOut = deciderSpec(timeoutDecider);

/** A purchase for the spec's player, decided on its streams (and recorded on them when it succeeds). */
export const tryBuy = (p: PlayerSpec, bundleUid: string) => p.deciding(buying, { playerId: PLAYER, bundleUid });
/** A purchase that must succeed: what it answers. */
export function buy(p: PlayerSpec, bundleUid: string) {
  const { decided } = tryBuy(p, bundleUid);
  if (!decided.ok) throw new Error(`buy failed: ${decided.failure.code} ${decided.failure.message}`);
  return decided.value.answer;
}

/** A client's move of a provision, or its timeout job, decided on the spec's streams. */
export const transact = (p: PlayerSpec, op: TransactionOperation | 'timeout', provisionUid: string) =>
  op === 'timeout' ? p.deciding(timingOut, { provisionUid }) : p.deciding(transacting, { op, provisionUid });

/** The units taken of a bundle's stock, as the spec's streams hold them. */
export const stockTaken = (p: PlayerSpec, bundleUid: string) =>
  readStock(p.givenStreams(), stockStream(BUNDLE_STOCK, bundleUid)).taken;

export const status = (p: PlayerSpec, uid: string) =>
  transactionView(readProvision(p.givenStreams(), provisionStream(uid))!);

/** A registered player holding `gold`. */
export function rich(gold = 300): PlayerSpec {
  const p = playerSpec(catalog);
  p.repeat(gold / 100, 'earn');
  return p;
}

/** The n-th uid of a spec's env (earning mints none: a first purchase's provision is uid(1)). */
export const uid = (n: number) => n.toString(16).padStart(32, '0');

export const PLAYER_STREAM = playerStream(PLAYER);
export const grant = (
  uid: string,
  label: string,
  amount: number,
  details: { label: string; value: string }[] | null = null,
) => ({
  uid,
  label,
  type: 1,
  imageName: null,
  amount,
  details,
});
export const sword = grant('sword', 'Sword', 1, [{ label: 'rarity', value: 'rare' }]);
export const shields = (amount: number) => grant('shield', 'Shield', amount);
export const gold = (amount: number) => ({ deliverableUid: 'gold', label: 'Gold', amount });
export const noCost = { deliverableUid: null, label: null, amount: 0 };
export const balance = (deliverableUid: string, amount: number) => ({ deliverableUid, amount });
export const effectsOf = (fields: Partial<Effects>) => ({ ...noEffects(), ...fields });

/** A boost instance a purchase grants (its uid the env's). */
export const boost = (n: number) => ({
  uid: uid(n),
  deliverableUid: 'boost',
  prizeLabel: 'Boost',
  prizeImageName: null,
  multiplier: 2,
  targetPrizes: [],
  initialUseCount: 0,
  timeoutSeconds: 600,
  neverExpires: false,
  // Its timeout runs from the purchase.
  expiresAt: T0 / 1000 + 600,
  createdAt: T0 / 1000,
});

interface Purchase {
  provisionUid: string;
  bundleUid: string;
  bundleLabel: string;
  cost: { deliverableUid: string | null; label: string | null; amount: number };
  contents: ReturnType<typeof grant>[];
  effects: ReturnType<typeof effectsOf>;
  status?: 'Completed' | 'Pending';
  /** A limited bundle: a unit of its stock taken. */
  stockTaken?: boolean;
  at?: number;
  storeUid?: string;
}

/** What a purchase writes: the player's BundlePurchased, the provision's record, a limited unit taken. */
export function purchased(o: Purchase) {
  const { provisionUid, bundleUid, cost, status = 'Completed', stockTaken = false, at = T0 } = o;
  const writes: Record<string, { type: string; data: unknown }[]> = {
    [PLAYER_STREAM]: [
      {
        type: 'BundlePurchased',
        data: {
          playerId: PLAYER,
          provisionUid,
          storeUid: o.storeUid ?? 'main',
          bundleUid,
          bundleLabel: o.bundleLabel,
          cost,
          stockTaken,
          status,
          contents: o.contents,
          pendingUntil: status === 'Pending' ? at + 60_000 : null,
          purchasedAt: at,
          effects: o.effects,
        },
      },
    ],
    [provisionStream(provisionUid)]: [
      {
        type: 'ProvisionOpened',
        data: {
          provisionUid,
          playerId: PLAYER,
          referenceType: 'Store',
          bundleUid,
          referenceId: null,
          cost,
          status,
          createDate: at,
        },
      },
    ],
  };
  if (stockTaken)
    writes[stockStream(BUNDLE_STOCK, bundleUid)] = [
      { type: BUNDLE_STOCK.taken, data: { resourceUid: bundleUid, holder: provisionUid, playerId: PLAYER, units: 1 } },
    ];
  return writes;
}

/** The provision's new status, on its own stream. */
export const statusChanged = (
  provisionUid: string,
  status: string,
  updateDate: number,
  failureReason: string | null = null,
) => ({
  [provisionStream(provisionUid)]: [
    { type: 'ProvisionStatusChanged', data: { provisionUid, playerId: PLAYER, status, failureReason, updateDate } },
  ],
});

/** A pending provision failed: the currency returned. */
export const failed = (provisionUid: string, reason: 'Cancelled' | 'TimedOut', at: number, returned = gold(30)) => ({
  [PLAYER_STREAM]: [
    {
      type: 'ProvisionFailed',
      data: {
        playerId: PLAYER,
        provisionUid,
        reason,
        failedAt: at,
        returned,
        effects: effectsOf({ balances: [balance('gold', returned.amount)] }),
      },
    },
  ],
  ...statusChanged(provisionUid, 'Failed', at, reason),
});

/** A completed store purchase refunded: the currency returned, the contents taken back. */
export const refunded = (
  provisionUid: string,
  o: { returned: ReturnType<typeof gold>; removed: ReturnType<typeof grant>[]; effects: ReturnType<typeof effectsOf> },
  at = T0,
) => ({
  [PLAYER_STREAM]: [
    {
      type: 'ProvisionRefunded',
      data: {
        playerId: PLAYER,
        provisionUid,
        refundedAt: at,
        returned: o.returned,
        removed: o.removed,
        powerupsRemoved: o.effects.powerupsRemoved,
        effects: o.effects,
      },
    },
  ],
  ...statusChanged(provisionUid, 'Refunded', at),
});

/** The sword pack bought with the spec's n-th uid. */
export const swordPack = (n = 1) =>
  purchased({
    provisionUid: uid(n),
    bundleUid: 'sword-pack',
    bundleLabel: 'Sword pack',
    cost: gold(100),
    contents: [sword, shields(2)],
    effects: effectsOf({ balances: [balance('sword', 1), balance('shield', 2), balance('gold', -100)] }),
  });
export const swordPackRefunded = (n = 1) =>
  refunded(uid(n), {
    returned: gold(100),
    removed: [sword, shields(2)],
    effects: effectsOf({ balances: [balance('gold', 100), balance('sword', -1), balance('shield', -2)] }),
  });
export const rareSword = (n = 1) =>
  purchased({
    provisionUid: uid(n),
    bundleUid: 'rare',
    bundleLabel: 'Rare sword',
    cost: gold(50),
    contents: [sword],
    effects: effectsOf({ balances: [balance('sword', 1), balance('gold', -50)] }),
    stockTaken: true,
  });
export const shipped = (n = 1) =>
  purchased({
    provisionUid: uid(n),
    bundleUid: 'shipped',
    bundleLabel: 'Shipped shield',
    cost: gold(30),
    contents: [shields(1)],
    effects: effectsOf({ balances: [balance('gold', -30)] }),
    status: 'Pending',
  });
