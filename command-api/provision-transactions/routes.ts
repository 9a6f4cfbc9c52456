/** POST /v1/store/complete-transaction, cancel-transaction and refund-transaction. */
import { SERVER_MOBILE } from '../../shared/auth/access';
import { transactionBody, parseProvisionUid, TRANSACTION_ERRORS } from '../../shared/http/transaction-body';
import { transactionShape } from '../../shared/http/wire-shapes';
import { defineRoute } from '../../shared/http/route';
import { replyOf } from '../command';
import { requestOrigin, type CommandDeps } from '../deps';
import { transact } from './handler';

const moves: [path: string, op: 'complete' | 'cancel' | 'refund', summary: string, errors: Record<number, string>][] = [
  ['/v1/store/complete-transaction', 'complete', 'Mark a Pending provision Completed, granting its contents', {}],
  ['/v1/store/cancel-transaction', 'cancel', 'Cancel a Pending provision: Failed, currency and stock returned', {}],
  [
    '/v1/store/refund-transaction',
    'refund',
    'Refund a Completed store purchase: currency and stock back, contents taken back',
    {
      9008: 'Only completed transactions can be refunded',
      9009: 'Only store transactions can be refunded',
      9011: 'Refund would make a balance negative',
    },
  ],
];

/** The three moves of the transaction state table (Server, Mobile). */
export const provisionTransactionRoutes = (deps: CommandDeps) =>
  moves.map(([path, op, summary, errors]) =>
    defineRoute({
      method: 'POST',
      idempotent: true,
      path,
      tiers: SERVER_MOBILE,
      doc: { summary, body: transactionBody, response: transactionShape, errors: { ...TRANSACTION_ERRORS, ...errors } },
      parse: parseProvisionUid,
      async handle({ provisionUid }, ctx) {
        return replyOf(await transact(op, provisionUid, requestOrigin(ctx, deps), deps), (transaction) => transaction);
      },
    }),
  );
