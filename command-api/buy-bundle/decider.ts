/** Buying a store bundle: the rules of a purchase (availability, price, stock, fulfillment). */
import { indexCatalog } from '../../domain/catalog/catalog-index';
import { noEffects } from '../../domain/events/common';
import type { BundlePurchased } from '../../domain/events/provision-events';
import { ok } from '../../domain/result';
import { localIsoToEpochMs } from '../../domain/time/local-time';
import { addBalance, effectsOfGrants, grantOf } from '../../domain/rules/grants';
import type { PlayerState } from '../../domain/player/state';
import { availableBalance, lotsDrawn, negated } from '../../domain/rules/lots';
import { currencyExpiryJobs } from '../currency-expiry/decider';
import { BUNDLE_STOCK, playerStream, provisionStream, stockStream } from '../../domain/streams';
import { decision, type Decider, type StreamWrite } from '../decision';
import { provisionTimeout, PURCHASE_WRITE_WINDOW_MS } from '../provision-transactions/decider';
import { folded, type Reads, type UseCase } from '../use-case';
import { playerOf } from '../player-reads';
import { STOCK_FOLD } from '../../domain/stock/stock';
import type { Catalog } from '../../domain/catalog/schema';
import { ERRORS, refuse } from '../../domain/errors';

export interface BuyBundleCommand {
  /** Canonical lowercase dashed uuid. */
  playerId: string;
  bundleUid: string;
}

export interface BuyBundleState {
  player: PlayerState;
  /** Units of the bundle's stock held by purchases; null for an unlimited bundle (no stock to read). */
  stockTaken: number | null;
}

/**
 * A purchase: the cost is charged and, unless the bundle requires fulfillment, the contents
 * granted in the same event. Written with it, in one append: one unit of a limited bundle's
 * stock (at the revision read, so it is never oversold) and the provision's record. A Pending
 * purchase needs its timeout job, scheduled before the append.
 */
export const decideBuyBundle: Decider<BuyBundleCommand, BuyBundleState, BundlePurchased> = (cmd, state, env) => {
  const { catalog } = env;
  const { player } = state;
  const index = indexCatalog(catalog);
  const found = index.bundleByUid.get(cmd.bundleUid);
  if (!found) return refuse(ERRORS.BUNDLE_NOT_FOUND);
  const { bundle, store } = found;
  if (!store.isActive) return refuse(ERRORS.BUNDLE_NOT_FOUND, 'its store is inactive');
  const tz = catalog.settings.timezone;
  if (
    (store.startDate && env.now < localIsoToEpochMs(store.startDate, tz)) ||
    (store.endDate && env.now > localIsoToEpochMs(store.endDate, tz))
  ) {
    return refuse(ERRORS.BUNDLE_NOT_FOUND, 'its store is not open now');
  }
  if (!player.registered) return refuse(ERRORS.UNKNOWN_PLAYER);

  const currency = bundle.costDeliverable ? index.deliverableByUid.get(bundle.costDeliverable)! : null;
  const funds = currency ? availableBalance(player, currency.uid, env.now) : 0;
  if (bundle.cost > 0 && currency && funds < bundle.cost) {
    return refuse(
      ERRORS.INSUFFICIENT_FUNDS,
      `the bundle costs ${bundle.cost} ${currency.label}, the player has ${funds}`,
    );
  }
  // initialStock 0 means unlimited.
  const limited = bundle.initialStock > 0;
  if (limited && (state.stockTaken ?? bundle.initialStock) >= bundle.initialStock)
    return refuse(ERRORS.BUNDLE_OUT_OF_STOCK);

  const contents = bundle.contents.map((c) => grantOf(index.deliverableByUid.get(c.deliverable)!, c.amount));
  const clock = { timestamp: env.now, timeZone: player.timeZone ?? tz };
  const granted = bundle.requiresFulfillment
    ? ok(noEffects())
    : effectsOfGrants(catalog, contents, env, noEffects(), clock);
  if (!granted.ok) return granted;
  const effects = granted.value;
  const drawn = bundle.cost > 0 && currency ? lotsDrawn(player, currency.uid, bundle.cost, env.now) : [];
  if (bundle.cost > 0 && currency) addBalance(effects, currency.uid, -bundle.cost);
  if (drawn.length) effects.lots = [...negated(drawn), ...(effects.lots ?? [])];
  const purchase: BundlePurchased = {
    playerId: cmd.playerId,
    provisionUid: env.newUid(),
    storeUid: store.uid,
    bundleUid: bundle.uid,
    bundleLabel: bundle.label,
    cost: {
      deliverableUid: currency?.uid ?? null,
      label: currency?.label ?? null,
      amount: bundle.cost,
      ...(drawn.length ? { lots: drawn } : {}),
    },
    stockTaken: limited,
    status: bundle.requiresFulfillment ? 'Pending' : 'Completed',
    contents,
    pendingUntil: bundle.requiresFulfillment ? env.now + catalog.settings.pendingTimeoutSeconds * 1000 : null,
    purchasedAt: env.now,
    effects,
  };
  const { provisionUid } = purchase;
  const opened = {
    provisionUid,
    playerId: cmd.playerId,
    referenceType: 'Store' as const,
    bundleUid: bundle.uid,
    referenceId: null,
    cost: purchase.cost,
    status: purchase.status,
    createDate: env.now,
  };
  const writes: StreamWrite[] = [
    { stream: playerStream(cmd.playerId), events: [{ type: 'BundlePurchased', data: purchase }] },
    {
      stream: provisionStream(provisionUid),
      events: [{ type: 'ProvisionOpened', data: opened }],
      expectedRevision: 'no_stream',
    },
  ];
  if (limited)
    writes.push({
      stream: stockStream(BUNDLE_STOCK, bundle.uid),
      events: [
        {
          type: BUNDLE_STOCK.taken,
          data: { resourceUid: bundle.uid, holder: provisionUid, playerId: cmd.playerId, units: 1 },
        },
      ],
    });
  return ok(
    decision(purchase, writes, [
      ...(purchase.pendingUntil === null
        ? []
        : [provisionTimeout(provisionUid, purchase.pendingUntil, env.now + PURCHASE_WRITE_WINDOW_MS)]),
      ...currencyExpiryJobs(cmd.playerId, effects.lots),
    ]),
  );
};

/** The player and, for a limited bundle, its stock. */
function* purchaseOf(cmd: BuyBundleCommand, catalog: Catalog): Reads<BuyBundleState> {
  const player = yield* playerOf(cmd.playerId);
  const limited = (indexCatalog(catalog).bundleByUid.get(cmd.bundleUid)?.bundle.initialStock ?? 0) > 0;
  const stock = limited ? yield* folded(stockStream(BUNDLE_STOCK, cmd.bundleUid), STOCK_FOLD) : null;
  return { player, stockTaken: stock && stock.state.taken };
}

/** A purchase: decided on the player and the bundle's stock. */
export const buyBundleDecider: UseCase<BuyBundleCommand, BuyBundleState, BundlePurchased> = {
  read: (cmd, env) => purchaseOf(cmd, env.catalog),
  decide: decideBuyBundle,
};
