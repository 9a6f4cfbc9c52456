import { WrongExpectedVersionError, type EventMetadata } from '../../shared/event-store/port';
import { fail, ok, TOO_MANY_CONCURRENT_CHANGES, type Result } from '../../shared/http/envelope';
import { decisionEnv, jobMetadata, type CommandDeps } from '../deps';
import { BUNDLE_STOCK, returnStock } from '../limited-stock/stock-stream';
import { findProvision } from '../provisions/provision-stream';
import { decideTransaction, findTransaction, transactionView, type Transaction, type TransactionOperation } from './decider';

const MAX_ATTEMPTS = 50;

/**
 * `settle-provision` makes a store provision's bundle stock agree with its status, and times out a
 * Pending one. It is scheduled before any step whose follow-up a crash could cut off: a purchase
 * that took stock, a Pending purchase, a cancel or refund that must return stock.
 */
export const SETTLE_PROVISION = 'settle-provision';
export const settleJobId = (provisionUid: string): string => `settle-provision-${provisionUid}`;

export async function scheduleSettlement(provisionUid: string, runAt: number, deps: CommandDeps): Promise<void> {
  await deps.jobs.schedule(SETTLE_PROVISION, settleJobId(provisionUid), runAt, { provisionUid });
}

/** The provision as the transaction endpoints show it. */
export async function transactionStatus(provisionUid: string, deps: CommandDeps): Promise<Result<Transaction>> {
  const opened = await findProvision(deps.events, provisionUid);
  if (!opened) return fail(9004, 'Transaction does not exist');
  const { state } = await deps.players.load(opened.playerId);
  const found = findTransaction(state, provisionUid);
  return found.ok ? ok(transactionView(opened.playerId, found.value)) : found;
}

/** complete, cancel, refund (and the job's timeout): decide on the player's state, append, then return stock. */
export async function transact(op: TransactionOperation, provisionUid: string, metadata: EventMetadata, deps: CommandDeps): Promise<Result<{ transaction: Transaction; position: number }>> {
  const opened = await findProvision(deps.events, provisionUid);
  if (!opened) return fail(9004, 'Transaction does not exist');
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const { state, revision } = await deps.players.load(opened.playerId);
    const { catalog } = deps.catalog();
    const decision = decideTransaction(op, provisionUid, state, { ...decisionEnv(deps), catalog });
    if (!decision.ok) return decision;
    const returnsStock = decision.value.type !== 'ProvisionCompleted' && opened.bundleUid !== null && state.provisions.get(provisionUid)!.stockTaken;
    // Should the process stop between the two appends, the job returns the stock.
    if (returnsStock) await scheduleSettlement(provisionUid, deps.now() + deps.staleReservationMs, deps);
    let position: number;
    try {
      position = (await deps.players.append(opened.playerId, [decision.value], revision, metadata)).position;
    } catch (e) {
      if (!(e instanceof WrongExpectedVersionError)) throw e;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 * attempt)));
      continue;
    }
    if (returnsStock) await returnStock(deps.events, BUNDLE_STOCK, opened.bundleUid!, provisionUid, opened.playerId, metadata);
    const after = await deps.players.load(opened.playerId);
    return ok({ transaction: transactionView(opened.playerId, after.state.provisions.get(provisionUid)!), position });
  }
  return fail(503, TOO_MANY_CONCURRENT_CHANGES);
}

/** A request moved the provision out of Pending and returned its stock: the job has nothing left to do. */
export async function transactAndSettle(op: Exclude<TransactionOperation, 'timeout'>, provisionUid: string, metadata: EventMetadata, deps: CommandDeps) {
  const outcome = await transact(op, provisionUid, metadata, deps);
  if (outcome.ok) await deps.jobs.cancel(settleJobId(provisionUid));
  return outcome;
}

/** The job: finish what an interrupted step left, and time out an overdue Pending provision. */
export async function settleProvision(provisionUid: string, deps: CommandDeps): Promise<void> {
  const opened = await findProvision(deps.events, provisionUid);
  if (!opened || !opened.bundleUid) return;
  const metadata = jobMetadata(settleJobId(provisionUid), deps);
  const now = deps.now();
  const { state } = await deps.players.load(opened.playerId);
  const p = state.provisions.get(provisionUid);
  if (!p) {
    // The purchase never reached the player: once it cannot still be in flight, its stock goes back.
    if (now < opened.openedAt + deps.staleReservationMs) return scheduleSettlement(provisionUid, opened.openedAt + deps.staleReservationMs, deps);
    return returnStock(deps.events, BUNDLE_STOCK, opened.bundleUid, provisionUid, opened.playerId, metadata);
  }
  if (p.status === 'Pending') {
    if (now < p.pendingUntil!) return scheduleSettlement(provisionUid, p.pendingUntil!, deps);
    const outcome = await transact('timeout', provisionUid, metadata, deps);
    // Completed or cancelled meanwhile: nothing to time out.
    if (!outcome.ok && ![9002, 9003, 9010].includes(outcome.failure.code)) throw new Error(`settling ${provisionUid}: ${outcome.failure.message}`);
    return;
  }
  if (p.status === 'Failed' || p.status === 'Refunded') await returnStock(deps.events, BUNDLE_STOCK, opened.bundleUid, provisionUid, opened.playerId, metadata);
}

export function registerProvisionJobs(deps: CommandDeps): void {
  deps.jobs.handle(SETTLE_PROVISION, async (payload) => settleProvision(payload.provisionUid as string, deps));
}

