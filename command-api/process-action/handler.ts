import type { ActionResult } from '../../shared/events/player-events';
import type { Result } from '../../shared/result';
import { referenceStream, TRIGGER_ACTIVATIONS } from '../../shared/streams';
import { runCommand, type CommandOrigin, type Decided } from '../command';
import { decisionEnv, type CommandDeps } from '../deps';
import { decideProcessAction, limitedTriggersOf, type ProcessActionCommand } from './decider';

/**
 * Processes one action, as every command: read the player, the referenceId's record and the
 * activations of the limited triggers the action can award; decide; append the player's events,
 * the reference, the activations taken and the cost's provision in one atomic write; on a
 * conflict, read and decide again. A concurrent duplicate loses on the reference stream and,
 * decided again, answers 2601.
 */
export function processAction(cmd: ProcessActionCommand, origin: CommandOrigin, deps: CommandDeps): Promise<Result<Decided<ActionResult>>> {
  const env = decisionEnv(deps);
  return runCommand(deps, origin.metadata, async (read) => {
    const { catalog } = deps.catalog();
    const player = await read.player(cmd.playerId);
    const reference = await read.stream(referenceStream(cmd.referenceId));
    const activationsTaken = new Map<string, number>();
    for (const trigger of limitedTriggersOf(catalog, cmd.name)) activationsTaken.set(trigger.uid, (await read.stock(TRIGGER_ACTIVATIONS, trigger.uid)).taken);
    return decideProcessAction(cmd, { player: player.state, playerRevision: player.revision, referenceTaken: reference.length > 0, activationsTaken }, { ...env, catalog });
  }, origin.idempotency);
}
