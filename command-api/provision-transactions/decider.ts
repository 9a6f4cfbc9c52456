import { addAmounts } from '../../shared/amount';
import { indexCatalog } from '../../shared/catalog/catalog-index';
import type { Catalog } from '../../shared/catalog/schema';
import { noEffects } from '../../shared/events/common';
import type { ProvisionCompleted, ProvisionFailed, ProvisionRefunded } from '../../shared/events/provision-events';
import { fail, ok, type Result } from '../../shared/http/envelope';
import { addBalance, effectsOfGrants, type DecisionEnv } from '../player/grants';
import { balanceOf, type PlayerState, type ProvisionState } from '../player/state';

/** `timeout` is the scheduled job's cancel: the same move, with its own reason. */
export type TransactionOperation = 'complete' | 'cancel' | 'timeout' | 'refund';

export type ProvisionEventOut =
  | { type: 'ProvisionCompleted'; data: ProvisionCompleted }
  | { type: 'ProvisionFailed'; data: ProvisionFailed }
  | { type: 'ProvisionRefunded'; data: ProvisionRefunded };

/** The Transaction object of api.md, with decisions.md §9's failureReason. */
export function transactionView(playerId: string, p: ProvisionState) {
  return {
    playerId,
    provisionUid: p.uid,
    cost: p.cost.amount,
    costDeliverableUid: p.cost.deliverableUid,
    referenceType: p.referenceType,
    status: p.status,
    failureReason: p.failureReason,
    createDate: p.createDate,
    updateDate: p.updateDate,
  };
}
export type Transaction = ReturnType<typeof transactionView>;

export function findTransaction(state: PlayerState, provisionUid: string): Result<ProvisionState> {
  const p = state.provisions.get(provisionUid);
  return p ? ok(p) : fail(9004, 'Transaction does not exist');
}

/** The state table of api.md's Transaction status, with decisions.md §9 for Failed and refunds. */
export function decideTransaction(op: TransactionOperation, provisionUid: string, state: PlayerState, env: DecisionEnv & { catalog: Catalog }): Result<ProvisionEventOut> {
  const found = findTransaction(state, provisionUid);
  if (!found.ok) return found;
  const p = found.value;
  const base = { playerId: state.playerId, provisionUid };
  if (p.status === 'Failed') return fail(9003, 'Transaction already failed');

  if (op === 'refund') {
    if (p.referenceType !== 'Store') return fail(9009, 'Only store transactions can be refunded');
    if (p.status === 'Refunded') return fail(9010, 'Transaction already refunded');
    if (p.status !== 'Completed') return fail(9008, 'Only completed transactions can be refunded');
    return refund(p, state, env, base);
  }
  if (p.status === 'Refunded') return fail(9010, 'Transaction already refunded');
  if (p.status === 'Completed') return fail(9002, 'Transaction already completed');

  if (op === 'complete') {
    const effects = effectsOfGrants(env.catalog, p.contents, env);
    return ok({ type: 'ProvisionCompleted', data: { ...base, completedAt: env.now, contents: p.contents, effects } });
  }
  const effects = noEffects();
  if (p.cost.deliverableUid && p.cost.amount > 0) addBalance(effects, p.cost.deliverableUid, p.cost.amount);
  return ok({ type: 'ProvisionFailed', data: { ...base, reason: op === 'cancel' ? 'Cancelled' : 'TimedOut', failedAt: env.now, returned: p.cost, effects } });
}

/** Returns the currency and takes the contents back; none of it if the player already spent them. */
function refund(p: ProvisionState, state: PlayerState, env: DecisionEnv & { catalog: Catalog }, base: { playerId: string; provisionUid: string }): Result<ProvisionEventOut> {
  const deliverables = indexCatalog(env.catalog).deliverableByUid;
  const effects = noEffects();
  if (p.cost.deliverableUid && p.cost.amount > 0) addBalance(effects, p.cost.deliverableUid, p.cost.amount);
  for (const g of p.contents) if (deliverables.get(g.uid)?.kind !== 'Powerup') addBalance(effects, g.uid, -g.amount);
  for (const b of effects.balances) {
    if (addAmounts(balanceOf(state, b.deliverableUid), b.amount) < 0) return fail(9011, `Refund would make a balance negative: ${b.deliverableUid} was already spent`);
  }
  if (p.powerupUids.some((uid) => !state.powerups.has(uid))) return fail(9011, 'Refund would make a balance negative: a powerup of this bundle is no longer owned');
  effects.powerupsRemoved = [...p.powerupUids];
  effects.balances = effects.balances.filter((b) => b.amount !== 0);
  return ok({
    type: 'ProvisionRefunded',
    data: { ...base, refundedAt: env.now, returned: p.cost, removed: p.contents, powerupsRemoved: p.powerupUids, effects },
  });
}
