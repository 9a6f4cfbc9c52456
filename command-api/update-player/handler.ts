/** Update a player: the command pipeline over the player's stream. */
import type { PlayerUpdated } from '../../domain/events/player-events';
import { runUseCase, type CommandResult } from '../command';
import type { CommandDeps, CommandOrigin } from '../deps';
import { unlessErasedSince } from '../player-answers';
import { updatePlayerDecider, type UpdatePlayerCommand } from './decider';

export async function updatePlayer(
  cmd: UpdatePlayerCommand,
  origin: CommandOrigin,
  deps: CommandDeps,
): Promise<CommandResult<PlayerUpdated>> {
  return unlessErasedSince(await runUseCase(deps, updatePlayerDecider, cmd, origin), cmd.playerId, deps);
}
