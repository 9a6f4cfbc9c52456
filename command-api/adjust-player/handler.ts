/** A support adjustment: the command pipeline over the player's stream. */
import type { PlayerAdjusted } from '../../domain/events/player-events';
import { runUseCase, type CommandResult } from '../command';
import type { CommandDeps, CommandOrigin } from '../deps';
import { adjustPlayerDecider, type AdjustPlayerCommand } from './decider';

export function adjustPlayer(
  cmd: AdjustPlayerCommand,
  origin: CommandOrigin,
  deps: CommandDeps,
): Promise<CommandResult<PlayerAdjusted>> {
  return runUseCase(deps, adjustPlayerDecider, cmd, origin);
}
