/** Register a player: the command pipeline over the player's stream. */
import type { PlayerRegistered } from '../../shared/domain/events/player-events';
import { runCommand, unlessErasedSince, type CommandResult } from '../command';
import { decisionEnv, type CommandDeps, type CommandOrigin } from '../deps';
import { decideRegisterPlayer, type RegisterPlayerCommand } from './decider';

export async function registerPlayer(
  cmd: RegisterPlayerCommand,
  origin: CommandOrigin,
  deps: CommandDeps,
): Promise<CommandResult<PlayerRegistered>> {
  const env = decisionEnv(deps);
  const decided = await runCommand(
    deps,
    origin.metadata,
    async (read) => {
      const { state } = await read.player(cmd.playerId);
      return decideRegisterPlayer(cmd, state, env);
    },
    origin.idempotency,
  );
  return unlessErasedSince(decided, cmd.playerId, deps);
}
