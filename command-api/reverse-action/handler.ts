import { playerEventOf } from '../../shared/domain/events';
import { evolveReference, type ReferenceRecord } from '../../shared/domain/reference';
import type { ActionProcessed, ActionReversed } from '../../shared/domain/events/player-events';
import { referenceStream } from '../../shared/domain/streams';
import { runCommand, type CommandResult } from '../command';
import { decisionEnv, type CommandDeps, type CommandOrigin } from '../deps';
import { decideReverseAction, type ReverseActionCommand } from './decider';

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
  const env = decisionEnv(deps);
  return runCommand(
    deps,
    origin.metadata,
    async (read) => {
      const reference = (await read.stream(referenceStream(cmd.referenceId))).reduce<ReferenceRecord | null>(
        evolveReference,
        null,
      );
      const { state: player } = await read.player(cmd.playerId);
      let original: ActionProcessed | null = null;
      if (reference?.playerId === cmd.playerId) {
        const event = await deps.players.eventAt(cmd.playerId, reference.playerRevision);
        const typed = event && playerEventOf(event);
        // A recompute that decided it differently: that decision is the one taken back.
        if (typed?.type === 'ActionProcessed') original = player.recomputedActions.get(cmd.referenceId) ?? typed.data;
      }
      return decideReverseAction(cmd, { reference, player, original }, env);
    },
    origin.idempotency,
  );
}
