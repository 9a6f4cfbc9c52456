/** Activate and deactivate: the command pipeline over the player's stream. */
import type { PowerupActivated, PowerupDeactivated } from '../../domain/events/inventory-events';
import { runUseCase, type CommandResult } from '../command';
import type { CommandDeps, CommandOrigin } from '../deps';
import { activatePowerupDecider, deactivatePowerupDecider, type PowerupCommand } from './decider';

export function activatePowerup(
  cmd: PowerupCommand,
  origin: CommandOrigin,
  deps: CommandDeps,
): Promise<CommandResult<PowerupActivated>> {
  return runUseCase(deps, activatePowerupDecider, cmd, origin);
}

export function deactivatePowerup(
  cmd: PowerupCommand,
  origin: CommandOrigin,
  deps: CommandDeps,
): Promise<CommandResult<PowerupDeactivated>> {
  return runUseCase(deps, deactivatePowerupDecider, cmd, origin);
}
