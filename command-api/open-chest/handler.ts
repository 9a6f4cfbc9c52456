import type { ChestOpened } from '../../shared/domain/events/inventory-events';
import { findChest, limitedSlots } from '../../shared/domain/rules/chests';
import { CHEST_STOCK } from '../../shared/domain/streams';
import { runCommand, type CommandResult } from '../command';
import { decisionEnv, type CommandDeps, type CommandOrigin } from '../deps';
import { decideOpenChest, type OpenChestCommand } from './decider';

/** Opens a chest: the player and the stocks of the chest's limited prizes are read, the draw decided, all of it appended at once. */
export function openChest(
  cmd: OpenChestCommand,
  origin: CommandOrigin,
  deps: CommandDeps,
): Promise<CommandResult<ChestOpened>> {
  const env = decisionEnv(deps);
  return runCommand(
    deps,
    origin.metadata,
    async (read) => {
      const { catalog } = deps.catalog();
      const { state: player } = await read.player(cmd.playerId);
      const chest = findChest(catalog, cmd.chestUid, env.now);
      const stockTaken = new Map<string, number>();
      for (const { stockUid } of chest.ok ? limitedSlots(chest.value) : [])
        stockTaken.set(stockUid, (await read.stock(CHEST_STOCK, stockUid)).taken);
      return decideOpenChest(cmd, { player, stockTaken }, { ...env, catalog });
    },
    origin.idempotency,
  );
}
