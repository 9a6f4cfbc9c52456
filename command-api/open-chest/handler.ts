import type { ChestOpened } from '../../domain/events/inventory-events';
import { runUseCase, type CommandResult } from '../command';
import type { CommandDeps, CommandOrigin } from '../deps';
import { openChestDecider, type OpenChestCommand } from './decider';

/** Opens a chest: the player and the stocks of the chest's limited prizes are read, the draw decided, all of it appended at once. */
export function openChest(
  cmd: OpenChestCommand,
  origin: CommandOrigin,
  deps: CommandDeps,
): Promise<CommandResult<ChestOpened>> {
  return runUseCase(deps, openChestDecider, cmd, origin);
}
