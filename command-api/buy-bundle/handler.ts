import { indexCatalog } from '../../shared/catalog/catalog-index';
import { WrongExpectedVersionError, type EventMetadata } from '../../shared/event-store/port';
import type { BundlePurchased } from '../../shared/events/provision-events';
import { fail, ok, TOO_MANY_CONCURRENT_CHANGES, type Result } from '../../shared/http/envelope';
import { decisionEnv, type CommandDeps } from '../deps';
import { BUNDLE_STOCK, returnStock, takeStock } from '../limited-stock/stock-stream';
import { scheduleSettlement, settleJobId } from '../provision-transactions/handler';
import { openProvision } from '../provisions/provision-stream';
import { decideBuyBundle, type BuyBundleCommand } from './decider';

const MAX_ATTEMPTS = 50;

/**
 * A purchase is a short process over three streams: the provision record, the bundle's stock
 * (when limited) and the player. Before stock is taken a settlement job is scheduled, so if the
 * process dies before the player stream has the purchase, the stock goes back; if the player
 * append is rejected, the stock goes back at once. Never a charge without goods, never goods
 * without a charge, never an oversell.
 */
export async function buyBundle(cmd: BuyBundleCommand, metadata: EventMetadata, deps: CommandDeps): Promise<Result<{ purchase: BundlePurchased; position: number }>> {
  const provisionUid = deps.newUid();
  const startedAt = deps.now();
  let opened = false;
  let settlementScheduled = false;
  let stockHeld = false;
  const abandon = async <T>(outcome: Result<T>): Promise<Result<T>> => {
    if (stockHeld) await returnStock(deps.events, BUNDLE_STOCK, cmd.bundleUid, provisionUid, cmd.playerId, metadata);
    if (settlementScheduled) await deps.jobs.cancel(settleJobId(provisionUid));
    return outcome;
  };

  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const { state, revision } = await deps.players.load(cmd.playerId);
    const { catalog } = deps.catalog();
    const decision = decideBuyBundle(cmd, state, { ...decisionEnv(deps), catalog, provisionUid });
    if (!decision.ok) return abandon(decision);
    const purchase = decision.value;
    if (!opened) {
      // The job first: should the job queue be down, the purchase stops (503) before anything is written.
      // A job that finds no provision record has nothing to do.
      if (purchase.stockTaken || purchase.status === 'Pending') {
        await scheduleSettlement(provisionUid, Math.min(startedAt + deps.staleReservationMs, purchase.pendingUntil ?? Infinity), deps);
        settlementScheduled = true;
      }
      await openProvision(deps.events, { provisionUid, playerId: cmd.playerId, referenceType: 'Store', bundleUid: purchase.bundleUid, openedAt: startedAt }, metadata);
      opened = true;
    }
    if (purchase.stockTaken && !stockHeld) {
      const { bundle } = indexCatalog(catalog).bundleByUid.get(purchase.bundleUid)!;
      if (!(await takeStock(deps.events, BUNDLE_STOCK, purchase.bundleUid, bundle.initialStock, provisionUid, cmd.playerId, metadata))) return abandon(fail(9009, 'Bundle out of stock'));
      stockHeld = true;
    }
    // Past this point the settlement job may already be returning the stock of a purchase it takes for dead.
    if (stockHeld && deps.now() - startedAt >= deps.staleReservationMs / 2) return abandon(fail(503, 'The purchase took too long; nothing was charged, retry later'));
    let position: number;
    try {
      position = (await deps.players.append(cmd.playerId, [{ type: 'BundlePurchased', data: purchase }], revision, metadata)).position;
    } catch (e) {
      if (!(e instanceof WrongExpectedVersionError)) throw e;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 * attempt)));
      continue;
    }
    if (purchase.status === 'Completed' && settlementScheduled) await deps.jobs.cancel(settleJobId(provisionUid));
    return ok({ purchase, position });
  }
  return abandon(fail(503, TOO_MANY_CONCURRENT_CHANGES));
}
