import type { ActionResult } from '../../domain/events/player-events';
import { referenceStream } from '../../domain/streams';
import { runCommand, type CommandResult } from '../command';
import { decisionEnv, type CommandDeps, type CommandOrigin } from '../deps';
import { answerReads, type ReadRequest } from '../use-case';
import { processActionDecider, type ProcessActionCommand } from './decider';

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
  const { read: reads, decide } = processActionDecider;
  let attempts = 0;
  let inForce = deps.catalog();
  return runCommand(
    deps,
    () => ({ ...origin.metadata, catalogVersion: inForce.version }),
    async (read) => {
      // The catalog in force at this attempt, read once for the decision and the version its events name.
      inForce = deps.catalog();
      const attemptEnv = { ...env, catalog: inForce.catalog };
      if ((attempts += 1) === 1) {
        const assumingNew = (request: ReadRequest): Promise<unknown> => {
          if (request.kind !== 'fold' || request.stream !== reference) return read.answer(request);
          read.assumeNew(reference);
          return Promise.resolve({ state: null, revision: -1 });
        };
        const decided = decide(cmd, await answerReads(reads(cmd, attemptEnv), assumingNew), attemptEnv);
        if (decided.ok) return decided;
      }
      return decide(cmd, await read.run(reads(cmd, attemptEnv)), attemptEnv);
    },
    origin.idempotency,
  );
}
