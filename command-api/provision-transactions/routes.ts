import { z } from 'zod';
import { ALL_TIERS, SERVER_MOBILE } from '../../shared/auth/access';
import { fail, ok } from '../../shared/http/envelope';
import { text } from '../../shared/http/fields';
import { transactionShape } from '../../shared/http/wire-shapes';
import { defineRoute, parseBody, type RawInput } from '../../shared/http/route';
import { requestMetadata, type CommandDeps } from '../deps';
import { transactAndSettle, transactionStatus } from './handler';

const PROVISION_UID = /^[0-9a-f]{32}$/i;

const transactionBody = z.object({ provisionUid: text() });
const TRANSACTION_ERRORS = {
  1001: 'Payload is null, or provisionUid is missing',
  1002: 'Invalid transaction id',
  9004: 'Transaction does not exist',
  9002: 'Transaction already completed (cannot re-complete or cancel)',
  9003: 'Transaction already failed',
  9010: 'Transaction already refunded',
};

function parseProvisionUid(input: RawInput) {
  const parsed = parseBody(transactionBody)(input);
  if (!parsed.ok) return parsed;
  const uid = parsed.value.provisionUid;
  return PROVISION_UID.test(uid) ? ok({ provisionUid: uid.toLowerCase() }) : fail(1002, 'Invalid transaction id: provisionUid must be 32 hexadecimal characters');
}

const moves: [path: string, op: 'complete' | 'cancel' | 'refund', summary: string, errors: Record<number, string>][] = [
  ['/v1/store/complete-transaction', 'complete', 'Mark a Pending provision Completed, granting its contents', {}],
  ['/v1/store/cancel-transaction', 'cancel', 'Cancel a Pending provision: Failed, currency and stock returned', {}],
  [
    '/v1/store/refund-transaction',
    'refund',
    'Refund a Completed store purchase: currency and stock back, contents taken back',
    { 9008: 'Only completed transactions can be refunded', 9009: 'Only store transactions can be refunded', 9011: 'Refund would make a balance negative' },
  ],
];

/** transaction-status (every tier) and the three moves of the Transaction state table (Server, Mobile). */
export const provisionTransactionRoutes = (deps: CommandDeps) => [
  defineRoute({
    method: 'POST',
    path: '/v1/store/transaction-status',
    tiers: ALL_TIERS,
    doc: { summary: 'The current status of a provision', body: transactionBody, response: transactionShape, errors: { 1001: TRANSACTION_ERRORS[1001], 1002: TRANSACTION_ERRORS[1002], 9004: TRANSACTION_ERRORS[9004] } },
    parse: parseProvisionUid,
    handle: ({ provisionUid }) => transactionStatus(provisionUid, deps),
  }),
  ...moves.map(([path, op, summary, errors]) =>
    defineRoute({
      method: 'POST',
      path,
      tiers: SERVER_MOBILE,
      doc: { summary, body: transactionBody, response: transactionShape, errors: { ...TRANSACTION_ERRORS, ...errors } },
      parse: parseProvisionUid,
      async handle({ provisionUid }, ctx) {
        const outcome = await transactAndSettle(op, provisionUid, requestMetadata(ctx, deps), deps);
        return outcome.ok ? { ok: true, value: outcome.value.transaction, position: outcome.value.position } : outcome;
      },
    }),
  ),
];
