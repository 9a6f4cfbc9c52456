import { indexCatalog } from '../../shared/domain/catalog/catalog-index';
import type { BundlePurchased } from '../../shared/domain/events/provision-events';
import { BUNDLE_STOCK } from '../../shared/domain/streams';
import { runCommand, type CommandResult } from '../command';
import { decisionEnv, type CommandDeps, type CommandOrigin } from '../deps';
import { decideBuyBundle, type BuyBundleCommand } from './decider';

/** Buys a bundle: read the player and a limited bundle's stock, decide, append the purchase, the stock taken and the provision at once. */
export function buyBundle(
  cmd: BuyBundleCommand,
  origin: CommandOrigin,
  deps: CommandDeps,
): Promise<CommandResult<BundlePurchased>> {
  const env = decisionEnv(deps);
  return runCommand(
    deps,
    origin.metadata,
    async (read) => {
      const { catalog } = deps.catalog();
      const { state: player } = await read.player(cmd.playerId);
      const limited = (indexCatalog(catalog).bundleByUid.get(cmd.bundleUid)?.bundle.initialStock ?? 0) > 0;
      const stockTaken = limited ? (await read.stock(BUNDLE_STOCK, cmd.bundleUid)).taken : null;
      return decideBuyBundle(cmd, { player, stockTaken }, { ...env, catalog });
    },
    origin.idempotency,
  );
}
