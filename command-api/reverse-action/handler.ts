import type { ActionReversed } from '../../domain/events/player-events';
import { runUseCase, type CommandResult } from '../command';
import type { CommandDeps, CommandOrigin } from '../deps';
import { reverseActionDecider, type ReverseActionCommand } from './decider';

/**
 * Reverses a processed action: read the referenceId's record, the player and the original
 * ActionProcessed; decide the compensation; append it with the reference's reversal mark, the
 * limited activations given back and the cost's refund in one atomic write.
 */
export function reverseAction(
  cmd: ReverseActionCommand,
  origin: CommandOrigin,
  deps: CommandDeps,
): Promise<CommandResult<ActionReversed>> {
  return runUseCase(deps, reverseActionDecider, cmd, origin);
}
