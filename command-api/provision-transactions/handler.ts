import { provisionRecordOf, type Transaction } from '../../shared/domain/provisions';
import { provisionStream } from '../../shared/domain/streams';
import { runCommand, type CommandResult } from '../command';
import type { StreamReads } from '../reads';
import { decisionEnv, type CommandDeps, type CommandOrigin } from '../deps';
import { decideTransaction, type TransactionOperation, type TransactionState } from './decider';
import { ERRORS, refuse } from '../../shared/domain/errors';

/** The provision's record and its player's state, as a transaction decides on them; null for an unknown uid. */
export async function readTransaction(read: StreamReads, provisionUid: string): Promise<TransactionState | null> {
  const record = provisionRecordOf(await read.stream(provisionStream(provisionUid)));
  if (!record) return null;
  const { state: player } = await read.player(record.opened.playerId);
  return { record, player };
}

/** complete, cancel, refund: read the provision and its player, decide, append the move (player, provision, stock) at once. */
export function transact(
  op: TransactionOperation,
  provisionUid: string,
  origin: CommandOrigin,
  deps: CommandDeps,
): Promise<CommandResult<Transaction>> {
  const env = decisionEnv(deps);
  return runCommand(
    deps,
    origin.metadata,
    async (read) => {
      const state = await readTransaction(read, provisionUid);
      return state ? decideTransaction({ op }, state, env) : refuse(ERRORS.TRANSACTION_NOT_FOUND);
    },
    origin.idempotency,
  );
}
