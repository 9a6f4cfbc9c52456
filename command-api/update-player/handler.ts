/** Update a player: the command pipeline over the player's stream. */
import type { PlayerUpdated } from '../../shared/domain/events/player-events';
import { runCommand, unlessErasedSince, type CommandResult } from '../command';
import { decisionEnv, type CommandDeps, type CommandOrigin } from '../deps';
import { decideUpdatePlayer, type UpdatePlayerCommand } from './decider';

export async function updatePlayer(
  cmd: UpdatePlayerCommand,
  origin: CommandOrigin,
  deps: CommandDeps,
): Promise<CommandResult<PlayerUpdated>> {
  const env = decisionEnv(deps);
  const decided = await runCommand(
    deps,
    origin.metadata,
    async (read) => {
      const { state } = await read.player(cmd.playerId);
      return decideUpdatePlayer(cmd, state, env);
    },
    origin.idempotency,
  );
  return unlessErasedSince(decided, cmd.playerId, deps);
}
