import { playerEventOf, referenceEventOf } from '../../shared/domain/events';
import type { ActionProcessed, ActionReversed } from '../../shared/domain/events/player-events';
import { referenceStream } from '../../shared/domain/streams';
import { runCommand, type CommandResult } from '../command';
import { decisionEnv, type CommandDeps, type CommandOrigin } from '../deps';
import { decideReverseAction, type ReverseActionCommand, type ReverseActionState } from './decider';

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
      let reference: ReverseActionState['reference'] = null;
      let originalAt: number | null = null;
      for (const recorded of await read.stream(referenceStream(cmd.referenceId))) {
        const e = referenceEventOf(recorded);
        if (e?.type === 'ReferenceRecorded') {
          reference = { playerId: e.data.playerId, reversed: false };
          originalAt = e.data.playerRevision;
        } else if (e?.type === 'ReferenceReversed' && reference) reference.reversed = true;
      }
      const { state: player } = await read.player(cmd.playerId);
      let original: ActionProcessed | null = null;
      if (reference?.playerId === cmd.playerId && originalAt !== null) {
        const event = await deps.players.eventAt(cmd.playerId, originalAt);
        const typed = event && playerEventOf(event);
        // A recompute that decided it differently: that decision is the one taken back.
        if (typed?.type === 'ActionProcessed') original = player.recomputedActions.get(cmd.referenceId) ?? typed.data;
      }
      return decideReverseAction(cmd, { reference, player, original }, env);
    },
    origin.idempotency,
  );
}
