/** complete, cancel, refund: the command pipeline over the provision's stream and its player's. */
import type { Transaction } from '../../domain/provisions';
import { runUseCase, type CommandResult } from '../command';
import type { CommandDeps, CommandOrigin } from '../deps';
import { transactionDecider, type TransactionOperation } from './decider';

/** Reads the provision and its player, decides, appends the move (player, provision, stock) at once. */
export function transact(
  op: TransactionOperation,
  provisionUid: string,
  origin: CommandOrigin,
  deps: CommandDeps,
): Promise<CommandResult<Transaction>> {
  return runUseCase(deps, transactionDecider, { op, provisionUid }, origin);
}
