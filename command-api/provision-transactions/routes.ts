/** POST /v1/store/complete-transaction, cancel-transaction and refund-transaction. */
import { SERVER_MOBILE } from '../../shared/adapters/auth/access';
import { transactionBody, parseProvisionUid, TRANSACTION_ERRORS } from '../../shared/adapters/http/transaction-body';
import { transactionShape } from '../../shared/adapters/http/wire-shapes';
import { defineRoute } from '../../shared/adapters/http/route';
import { replyOf, requestOrigin } from '../http';
import type { CommandDeps } from '../deps';
import { transact } from './handler';
import { documented, ERRORS } from '../../domain/errors';

const moves: [
  path: string,
  op: 'complete' | 'cancel' | 'refund',
  operationId: string,
  summary: string,
  errors: Record<number, string>,
][] = [
  [
    '/v1/store/complete-transaction',
    'complete',
    'completeTransaction',
    'Mark a Pending provision Completed, granting its contents',
    {},
  ],
  [
    '/v1/store/cancel-transaction',
    'cancel',
    'cancelTransaction',
    'Cancel a Pending provision: Failed, currency and stock returned',
    {},
  ],
  [
    '/v1/store/refund-transaction',
    'refund',
    'refundTransaction',
    'Refund a Completed store purchase: currency and stock back, contents taken back',
    {
      ...documented(ERRORS.REFUND_NOT_COMPLETED),
      ...documented(ERRORS.REFUND_NOT_STORE),
      ...documented(ERRORS.REFUND_NEGATIVE_BALANCE),
    },
  ],
];

/** The three moves of the transaction state table (Server, Mobile). */
export const provisionTransactionRoutes = (deps: CommandDeps) =>
  moves.map(([path, op, operationId, summary, errors]) =>
    defineRoute({
      method: 'POST',
      idempotent: true,
      path,
      tiers: SERVER_MOBILE,
      doc: {
        operationId,
        summary,
        body: transactionBody,
        response: transactionShape,
        errors: { ...TRANSACTION_ERRORS, ...errors },
      },
      parse: parseProvisionUid,
      async handle({ provisionUid }, ctx) {
        return replyOf(await transact(op, provisionUid, requestOrigin(ctx, deps), deps), (transaction) => transaction);
      },
    }),
  );
