/** Activate and deactivate: the command pipeline over the player's stream. */
import type { PowerupActivated, PowerupDeactivated } from '../../shared/domain/events/inventory-events';
import { runCommand, type CommandResult } from '../command';
import { decisionEnv, type CommandDeps, type CommandOrigin } from '../deps';
import { decideActivatePowerup, decideDeactivatePowerup, type PowerupCommand } from './decider';

export function activatePowerup(
  cmd: PowerupCommand,
  origin: CommandOrigin,
  deps: CommandDeps,
): Promise<CommandResult<PowerupActivated>> {
  const env = decisionEnv(deps);
  return runCommand(
    deps,
    origin.metadata,
    async (read) => decideActivatePowerup(cmd, (await read.player(cmd.playerId)).state, env),
    origin.idempotency,
  );
}

export function deactivatePowerup(
  cmd: PowerupCommand,
  origin: CommandOrigin,
  deps: CommandDeps,
): Promise<CommandResult<PowerupDeactivated>> {
  const env = decisionEnv(deps);
  return runCommand(
    deps,
    origin.metadata,
    async (read) => decideDeactivatePowerup(cmd, (await read.player(cmd.playerId)).state, env),
    origin.idempotency,
  );
}
