import { indexCatalog } from '../../shared/catalog/catalog-index';
import type { Catalog } from '../../shared/catalog/schema';
import { noEffects } from '../../shared/events/common';
import type { BundlePurchased } from '../../shared/events/provision-events';
import { fail, ok, type Result } from '../../shared/http/envelope';
import { localIsoToEpochMs } from '../../shared/time/local-time';
import { addBalance, effectsOfGrants, grantOf, type DecisionEnv } from '../player/grants';
import { balanceOf, type PlayerState } from '../player/state';

export interface BuyBundleCommand {
  /** Canonical lowercase dashed uuid. */
  playerId: string;
  bundleUid: string;
}

export interface BuyBundleEnv extends DecisionEnv {
  catalog: Catalog;
  /** Chosen once per request, so a re-decision after a conflict keeps it. */
  provisionUid: string;
}

/**
 * A purchase: the cost is charged and, unless the bundle requires fulfillment, the contents
 * granted in the same event. Stock is not the player's to decide: the handler takes it from
 * the bundle's stock stream before this event is appended.
 */
export function decideBuyBundle(cmd: BuyBundleCommand, state: PlayerState, env: BuyBundleEnv): Result<BundlePurchased> {
  const { catalog } = env;
  const index = indexCatalog(catalog);
  const found = index.bundleByUid.get(cmd.bundleUid);
  if (!found) return fail(9008, 'Bundle does not exist');
  const { bundle, store } = found;
  if (!store.isActive) return fail(9008, 'Bundle does not exist: its store is inactive');
  const tz = catalog.settings.timezone;
  if ((store.startDate && env.now < localIsoToEpochMs(store.startDate, tz)) || (store.endDate && env.now > localIsoToEpochMs(store.endDate, tz))) {
    return fail(9008, 'Bundle does not exist: its store is not open now');
  }
  if (!state.registered) return fail(1002, 'Invalid player: no player with this playerId');

  const currency = bundle.costDeliverable ? index.deliverableByUid.get(bundle.costDeliverable)! : null;
  if (bundle.cost > 0 && currency && balanceOf(state, currency.uid) < bundle.cost) {
    return fail(9001, `Insufficient funds: the bundle costs ${bundle.cost} ${currency.label}, the player has ${balanceOf(state, currency.uid)}`);
  }
  const contents = bundle.contents.map((c) => grantOf(index.deliverableByUid.get(c.deliverable)!, c.amount));
  const effects = bundle.requiresFulfillment ? noEffects() : effectsOfGrants(catalog, contents, env);
  if (bundle.cost > 0 && currency) addBalance(effects, currency.uid, -bundle.cost);
  return ok({
    playerId: cmd.playerId,
    provisionUid: env.provisionUid,
    storeUid: store.uid,
    bundleUid: bundle.uid,
    bundleLabel: bundle.label,
    cost: { deliverableUid: currency?.uid ?? null, label: currency?.label ?? null, amount: bundle.cost },
    stockTaken: bundle.initialStock > 0,
    status: bundle.requiresFulfillment ? 'Pending' : 'Completed',
    contents,
    pendingUntil: bundle.requiresFulfillment ? env.now + catalog.settings.pendingTimeoutSeconds * 1000 : null,
    purchasedAt: env.now,
    effects,
  });
}
