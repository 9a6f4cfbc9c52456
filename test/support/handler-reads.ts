/**
 * Decider specs with the reads their handlers (and jobs) make, for the tests of more than one slice:
 * a purchase, a provision's moves and its timeout, a currency expiry.
 */
import { decideBuyBundle, type BuyBundleCommand } from '../../command-api/buy-bundle/decider';
import { decideExpireCurrency } from '../../command-api/currency-expiry/decider';
import { decideTimeout, decideTransaction } from '../../command-api/provision-transactions/decider';
import { indexCatalog } from '../../shared/domain/catalog/catalog-index';
import type { ProvisionRecord } from '../../shared/domain/provisions';
import { BUNDLE_STOCK, provisionStream, stockStream } from '../../shared/domain/streams';
import { deciderSpec, readPlayer, readProvision, readStock, type GivenStreams } from './decider-spec';

/** A purchase: the player read from their stream and, for a limited bundle, its stock. */
export const buying = deciderSpec(decideBuyBundle, (given, cmd: BuyBundleCommand, { catalog }) => {
  const limited = (indexCatalog(catalog).bundleByUid.get(cmd.bundleUid)?.bundle.initialStock ?? 0) > 0;
  return {
    player: readPlayer(given, cmd.playerId),
    stockTaken: limited ? readStock(given, stockStream(BUNDLE_STOCK, cmd.bundleUid)).taken : null,
  };
});

/**
 * A provision's record and its player. A uid with no provision stream is answered 9004 by the handler
 * before deciding; here it gets a record of the player's that they do not have, so that the
 * decider's own 9004 is what is tested.
 */
const onProvision = (provisionUid: string, playerId: string) => (given: GivenStreams) => {
  const record = readProvision(given, provisionStream(provisionUid)) ?? unknownRecord(provisionUid, playerId);
  return { record, player: readPlayer(given, record.opened.playerId) };
};

/** A client's move of one provision (complete, cancel, refund). */
export const transacting = (provisionUid: string, playerId: string) =>
  deciderSpec(decideTransaction, onProvision(provisionUid, playerId));

/** The timeout job of one provision. */
export const timingOut = (provisionUid: string, playerId: string) =>
  deciderSpec(decideTimeout, onProvision(provisionUid, playerId));

/** The currency expiry job: on the player read from their stream. */
export const expiring = deciderSpec(decideExpireCurrency, (given, cmd) => readPlayer(given, cmd.playerId));

function unknownRecord(provisionUid: string, playerId: string): ProvisionRecord {
  const createDate = 0;
  return {
    opened: {
      provisionUid,
      playerId,
      referenceType: 'Store',
      bundleUid: null,
      referenceId: null,
      cost: { deliverableUid: null, label: null, amount: 0 },
      status: 'Pending',
      createDate,
    },
    status: 'Pending',
    failureReason: null,
    updateDate: createDate,
  };
}
