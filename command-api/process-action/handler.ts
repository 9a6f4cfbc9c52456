import type { ActionResult } from '../../shared/domain/events/player-events';
import { referenceStream, TRIGGER_ACTIVATIONS } from '../../shared/domain/streams';
import { runCommand, type CommandResult } from '../command';
import { decisionEnv, type CommandDeps, type CommandOrigin } from '../deps';
import { decideProcessAction, limitedTriggersOf, type ProcessActionCommand } from './decider';

/**
 * Processes one action, as every command: read the player, the referenceId's record and the
 * activations of the limited triggers the action can award; decide; append the player's events,
 * the reference, the activations taken and the cost's provision in one atomic write; on a
 * conflict, read and decide again. A concurrent duplicate loses on the reference stream and,
 * decided again, answers 2601.
 *
 * A referenceId is nearly always new, so the first attempt does not read its record: an action
 * that is applied appends the reference expecting no stream, so a referenceId taken after all
 * (by another player: the player's own are in its state) fails the append and is read by the
 * next attempt. Only a refusal reads it first, to answer 2601 before any other refusal.
 */
export function processAction(
  cmd: ProcessActionCommand,
  origin: CommandOrigin,
  deps: CommandDeps,
): Promise<CommandResult<ActionResult>> {
  const env = decisionEnv(deps);
  const reference = referenceStream(cmd.referenceId);
  let attempts = 0;
  return runCommand(
    deps,
    origin.metadata,
    async (read) => {
      const { catalog } = deps.catalog();
      const player = await read.player(cmd.playerId);
      const activationsTaken = new Map<string, number>();
      for (const trigger of limitedTriggersOf(catalog, cmd.name))
        activationsTaken.set(trigger.uid, (await read.stock(TRIGGER_ACTIVATIONS, trigger.uid)).taken);
      const decide = (referenceTaken: boolean) =>
        decideProcessAction(
          cmd,
          { player: player.state, playerRevision: player.revision, referenceTaken, activationsTaken },
          { ...env, catalog },
        );
      if ((attempts += 1) === 1) {
        read.assumeNew(reference);
        const decided = decide(false);
        if (decided.ok) return decided;
      }
      return decide((await read.stream(reference)).length > 0);
    },
    origin.idempotency,
  );
}
