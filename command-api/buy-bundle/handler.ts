import type { BundlePurchased } from '../../domain/events/provision-events';
import { runUseCase, type CommandResult } from '../command';
import type { CommandDeps, CommandOrigin } from '../deps';
import { buyBundleDecider, type BuyBundleCommand } from './decider';

/** Buys a bundle: read the player and a limited bundle's stock, decide, append the purchase, the stock taken and the provision at once. */
export function buyBundle(
  cmd: BuyBundleCommand,
  origin: CommandOrigin,
  deps: CommandDeps,
): Promise<CommandResult<BundlePurchased>> {
  return runUseCase(deps, buyBundleDecider, cmd, origin);
}
