import type { PlayerAdjusted } from '../../shared/domain/events/player-events';
import { runCommand, type CommandResult } from '../command';
import { decisionEnv, type CommandDeps, type CommandOrigin } from '../deps';
import { decideAdjustPlayer, type AdjustPlayerCommand } from './decider';

/** Adjusts a player: read their stream, decide, append the PlayerAdjusted. */
export function adjustPlayer(
  cmd: AdjustPlayerCommand,
  origin: CommandOrigin,
  deps: CommandDeps,
): Promise<CommandResult<PlayerAdjusted>> {
  const env = decisionEnv(deps);
  return runCommand(
    deps,
    origin.metadata,
    async (read) => decideAdjustPlayer(cmd, (await read.player(cmd.playerId)).state, env),
    origin.idempotency,
  );
}
