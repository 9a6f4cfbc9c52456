/** What the answers of commands about a player's own data owe to the player's erasure. */
import { ERRORS, refuse } from '../domain/errors';
import { PLAYER_FOLD } from '../domain/player/fold';
import { playerStream } from '../domain/streams';
import type { CommandResult } from './command';
import type { CommandDeps } from './deps';

/**
 * A recorded answer that is the player's own data (player/create and player/update answer the
 * player's fields) is not replayed once the player is erased: the retry answers as every request
 * naming an erased player does, 5003.
 */
export async function unlessErasedSince<Answer>(
  result: CommandResult<Answer>,
  playerId: string,
  deps: CommandDeps,
): Promise<CommandResult<Answer>> {
  if (!result.ok || !result.value.replayed) return result;
  const { state } = await deps.states.load(playerStream(playerId), PLAYER_FOLD);
  return state.erased ? refuse(ERRORS.PLAYER_DOES_NOT_EXIST) : result;
}
