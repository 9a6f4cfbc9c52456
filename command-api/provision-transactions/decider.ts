import { addAmounts } from '../../domain/amount';
import { indexCatalog } from '../../domain/catalog/catalog-index';
import { noEffects, type Grant } from '../../domain/events/common';
import { mutableCopy, type DeepReadonly } from '../../domain/deep-readonly';
import type {
  ProvisionCompleted,
  ProvisionCost,
  ProvisionFailed,
  ProvisionRefunded,
} from '../../domain/events/provision-events';
import { balanceOf, type PlayerState, type PlayerView, type ProvisionState } from '../../domain/player/state';
import { PROVISION_FOLD, transactionView, type ProvisionRecord, type Transaction } from '../../domain/provisions';
import { ok, type Result } from '../../domain/result';
import { addBalance, effectsOfGrants, giveBack } from '../../domain/rules/grants';
import { currencyExpiryJobs } from '../currency-expiry/decider';
import { lotsTakenBack, negated } from '../../domain/rules/lots';
import { BUNDLE_STOCK, playerStream, provisionStream, stockStream } from '../../domain/streams';
import {
  decision,
  type DecideEnv,
  type Decider,
  type Decision,
  type ScheduledJob,
  type StreamWrite,
} from '../decision';
import { folded, type Reads, type UseCase } from '../use-case';
import { playerOf } from '../player-reads';
import { ERRORS, refuse } from '../../domain/errors';

/** What a client may do to a provision; its timeout is the job's (decideTimeout). */
export type TransactionOperation = 'complete' | 'cancel' | 'refund';

export interface TransactionState {
  /** The provision's own record (whose it is, its status). */
  record: ProvisionRecord;
  /** Its player, whose stream holds what the provision charged and granted. */
  player: PlayerState;
}

/** A client's move of a provision. */
export interface TransactionCommand {
  op: TransactionOperation;
}

/** The timeout job's command: the provision it names. */
export interface TransactionTimeout {
  provisionUid: string;
}

type PlayerProvisionEvent =
  | { type: 'ProvisionCompleted'; data: ProvisionCompleted }
  | { type: 'ProvisionFailed'; data: ProvisionFailed }
  | { type: 'ProvisionRefunded'; data: ProvisionRefunded };

/**
 * The transaction state table: Pending -> Completed (complete) or Failed (cancel, timeout);
 * Completed store purchase -> Refunded (refund). Any operation on a Failed one is 9003.
 */
export const decideTransaction: Decider<TransactionCommand, TransactionState, Transaction> = (cmd, state, env) => {
  const p = state.player.provisions.get(state.record.opened.provisionUid);
  if (!p) return refuse(ERRORS.TRANSACTION_NOT_FOUND);
  if (p.status === 'Failed') return refuse(ERRORS.TRANSACTION_FAILED);
  if (cmd.op === 'refund') {
    if (p.referenceType !== 'Store') return refuse(ERRORS.REFUND_NOT_STORE);
    if (p.status === 'Refunded') return refuse(ERRORS.TRANSACTION_REFUNDED);
    if (p.status !== 'Completed') return refuse(ERRORS.REFUND_NOT_COMPLETED);
    const refunded = refund(p, state.player, env);
    return refunded.ok ? ok(moved(state, p, refunded.value, env)) : refunded;
  }
  if (p.status === 'Refunded') return refuse(ERRORS.TRANSACTION_REFUNDED);
  if (p.status === 'Completed') return refuse(ERRORS.TRANSACTION_COMPLETED);
  if (cmd.op === 'complete') {
    const clock = { timestamp: env.now, timeZone: state.player.timeZone ?? env.catalog.settings.timezone };
    const effects = effectsOfGrants(env.catalog, p.contents, env, noEffects(), clock);
    if (!effects.ok) return effects;
    return ok(
      moved(
        state,
        p,
        {
          type: 'ProvisionCompleted',
          data: {
            playerId: state.player.playerId,
            provisionUid: p.uid,
            completedAt: env.now,
            contents: mutableCopy<Grant[]>(p.contents),
            effects: effects.value,
          },
        },
        env,
      ),
    );
  }
  return ok(moved(state, p, failure(state.player, p, 'Cancelled', env), env));
};

/**
 * The timeout job's decision: a Pending provision past its `pendingUntil` fails (TimedOut),
 * returning currency and stock; one not yet due says when it is; anything else needs nothing.
 */
export const decideTimeout: Decider<TransactionTimeout, TransactionState, { dueAt: number | null }> = (
  _cmd,
  state,
  env,
) => {
  const p = state.player.provisions.get(state.record.opened.provisionUid);
  if (!p || p.status !== 'Pending' || p.pendingUntil === null) return ok(decision({ dueAt: null }, []));
  if (env.now < p.pendingUntil) return ok(decision({ dueAt: p.pendingUntil }, []));
  return ok({ ...moved(state, p, failure(state.player, p, 'TimedOut', env), env), answer: { dueAt: null } });
};

function failure(
  player: PlayerView,
  p: DeepReadonly<ProvisionState>,
  reason: 'Cancelled' | 'TimedOut',
  env: DecideEnv,
): PlayerProvisionEvent {
  const effects = noEffects();
  giveBack(effects, p.cost, env.now);
  return {
    type: 'ProvisionFailed',
    data: {
      playerId: player.playerId,
      provisionUid: p.uid,
      reason,
      failedAt: env.now,
      returned: mutableCopy<ProvisionCost>(p.cost),
      effects,
    },
  };
}

/** Returns the currency and takes the contents back; none of it if the player already spent them. */
function refund(p: DeepReadonly<ProvisionState>, player: PlayerView, env: DecideEnv): Result<PlayerProvisionEvent> {
  const deliverables = indexCatalog(env.catalog).deliverableByUid;
  const effects = noEffects();
  giveBack(effects, p.cost, env.now);
  for (const g of p.contents) if (deliverables.get(g.uid)?.kind !== 'Powerup') addBalance(effects, g.uid, -g.amount);
  for (const g of p.contents)
    if (deliverables.get(g.uid)?.expiry) (effects.lots ??= []).push(...negated(lotsTakenBack(player, g.uid, g.amount)));
  for (const b of effects.balances) {
    if (addAmounts(balanceOf(player, b.deliverableUid), b.amount) < 0)
      return refuse(ERRORS.REFUND_NEGATIVE_BALANCE, `${b.deliverableUid} was already spent`);
  }
  if (p.powerupUids.some((uid) => !player.powerups.has(uid)))
    return refuse(ERRORS.REFUND_NEGATIVE_BALANCE, 'a powerup of this bundle is no longer owned');
  effects.powerupsRemoved = [...p.powerupUids];
  effects.balances = effects.balances.filter((b) => b.amount !== 0);
  return ok({
    type: 'ProvisionRefunded',
    data: {
      playerId: player.playerId,
      provisionUid: p.uid,
      refundedAt: env.now,
      returned: mutableCopy<ProvisionCost>(p.cost),
      removed: mutableCopy<Grant[]>(p.contents),
      powerupsRemoved: [...p.powerupUids],
      effects,
    },
  });
}

/**
 * The move written at once: the player's event, the provision's new status, and, for a purchase
 * that failed or was refunded, its unit of the bundle's stock given back.
 */
function moved(
  state: DeepReadonly<TransactionState>,
  p: DeepReadonly<ProvisionState>,
  event: PlayerProvisionEvent,
  env: DecideEnv,
): Decision<Transaction> {
  const status =
    event.type === 'ProvisionCompleted' ? 'Completed' : event.type === 'ProvisionFailed' ? 'Failed' : 'Refunded';
  const failureReason = event.type === 'ProvisionFailed' ? event.data.reason : null;
  const { playerId } = state.player;
  const writes: StreamWrite[] = [
    { stream: playerStream(playerId), events: [event] },
    {
      stream: provisionStream(p.uid),
      events: [
        {
          type: 'ProvisionStatusChanged',
          data: { provisionUid: p.uid, playerId, status, failureReason, updateDate: env.now },
        },
      ],
    },
  ];
  if (status !== 'Completed' && p.stockTaken && p.bundleUid) {
    // A return can never exceed the stock: it needs no revision.
    writes.push({
      stream: stockStream(BUNDLE_STOCK, p.bundleUid),
      events: [{ type: BUNDLE_STOCK.returned, data: { resourceUid: p.bundleUid, holder: p.uid, playerId, units: 1 } }],
      expectedRevision: 'any',
    });
  }
  return decision(
    transactionView({ ...state.record, status, failureReason, updateDate: env.now }),
    writes,
    currencyExpiryJobs(playerId, event.data.effects.lots),
  );
}

/**
 * `provision-timeout`: a Pending provision not completed within the catalog's
 * `pendingTimeoutSeconds` fails (TimedOut), its currency and stock returned. The purchase
 * schedules it before its append, so no Pending provision is ever without it.
 */
export const PROVISION_TIMEOUT = 'provision-timeout';
export const timeoutJobId = (provisionUid: string): string => `provision-timeout-${provisionUid}`;

/**
 * How long after its decision a purchase may still be on its way to the store (its retries on
 * contention, a store's timeouts), by far: a job that finds no provision looks again until then.
 */
export const PURCHASE_WRITE_WINDOW_MS = 5 * 60_000;
/** How soon a job that found no provision yet looks again. */
export const NOT_YET_WRITTEN_RETRY_MS = 1000;

/** `writtenBy`: the time after which a provision still missing was never written. */
export const provisionTimeout = (provisionUid: string, runAt: number, writtenBy: number): ScheduledJob => ({
  type: PROVISION_TIMEOUT,
  id: timeoutJobId(provisionUid),
  runAt,
  payload: { provisionUid, writtenBy },
});

/** A provision's record and its player, as a move of it decides on them; null for a uid with no provision stream. */
function* transactionOf(provisionUid: string): Reads<TransactionState | null> {
  const { state: record } = yield* folded(provisionStream(provisionUid), PROVISION_FOLD);
  if (!record) return null;
  return { record, player: yield* playerOf(record.opened.playerId) };
}

/** A client's move (complete, cancel, refund) of the provision it names. */
export const transactionDecider: UseCase<
  TransactionCommand & { provisionUid: string },
  TransactionState | null,
  Transaction
> = {
  read: (cmd) => transactionOf(cmd.provisionUid),
  decide: (cmd, state, env) => (state ? decideTransaction(cmd, state, env) : refuse(ERRORS.TRANSACTION_NOT_FOUND)),
};

/** The timeout job of the provision it names. */
export const timeoutDecider: UseCase<TransactionTimeout, TransactionState | null, { dueAt: number | null }> = {
  read: (cmd) => transactionOf(cmd.provisionUid),
  decide: (cmd, state, env) => (state ? decideTimeout(cmd, state, env) : refuse(ERRORS.TRANSACTION_NOT_FOUND)),
};
