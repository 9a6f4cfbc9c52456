/** Erase a player: the command pipeline over the player's stream, then their key deleted. */
import type { PlayerKeys } from '../../shared/adapters/player-keys/port';
import type { PlayerErased } from '../../domain/events/player-events';
import { runCommand, type CommandResult } from '../command';
import { decisionEnv, type CommandDeps, type CommandOrigin } from '../deps';
import { erasePlayerDecider, type ErasePlayerCommand } from './decider';

/**
 * The erasure is appended at the player's stream revision it read, as every command: an action
 * decided before it but appended after it conflicts, and is decided again on the erased player
 * (5003). The event first, then the key: the other order could leave a deleted key and a player the
 * service still serves. A crash between the two leaves an erased player whose key is kept: the
 * restart's projections read the PlayerErased and delete it (PersonalDataCodec), before their
 * checkpoint passes it; a retry of the erase (answered as first, or 5003) deletes it too.
 *
 * Every process keeps the keys it read for at most `keysCachedMs` (CachedPlayerKeys): the answer
 * waits that long after the delete, so that when it says the player is erased, no process of the
 * deployment can still read their personal fields.
 */
export async function erasePlayer(
  cmd: ErasePlayerCommand,
  origin: CommandOrigin,
  deps: CommandDeps,
  keys: PlayerKeys,
  keysCachedMs: number,
): Promise<CommandResult<PlayerErased>> {
  let erased = false;
  const decided = await runCommand(
    deps,
    origin.metadata,
    async (read) => {
      const env = decisionEnv(deps);
      const state = await read.run(erasePlayerDecider.read(cmd, env));
      erased = state.erased;
      // The clock of each attempt: an action appended while an attempt was decided makes it conflict,
      // so the attempt that appends is later than every action the player was given (erasedAt).
      return erasePlayerDecider.decide(cmd, state, env);
    },
    origin.idempotency,
  );
  if (decided.ok || erased) {
    await keys.delete(cmd.playerId);
    await new Promise((resolve) => setTimeout(resolve, keysCachedMs));
  }
  return decided;
}
