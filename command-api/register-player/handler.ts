/** Register a player: the command pipeline over the player's stream. */
import type { PlayerRegistered } from '../../domain/events/player-events';
import { runUseCase, type CommandResult } from '../command';
import type { CommandDeps, CommandOrigin } from '../deps';
import { unlessErasedSince } from '../player-answers';
import { registerPlayerDecider, type RegisterPlayerCommand } from './decider';

export async function registerPlayer(
  cmd: RegisterPlayerCommand,
  origin: CommandOrigin,
  deps: CommandDeps,
): Promise<CommandResult<PlayerRegistered>> {
  return unlessErasedSince(await runUseCase(deps, registerPlayerDecider, cmd, origin), cmd.playerId, deps);
}
