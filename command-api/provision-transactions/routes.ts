import { z } from 'zod';
import { ALL_TIERS, SERVER_MOBILE } from '../../shared/auth/access';
import { fail, ok } from '../../shared/http/envelope';
import { text } from '../../shared/http/fields';
import { defineRoute, parseBody, type RawInput } from '../../shared/http/route';
import { requestMetadata, type CommandDeps } from '../deps';
import { transactAndSettle, transactionStatus } from './handler';

const PROVISION_UID = /^[0-9a-f]{32}$/i;

function parseProvisionUid(input: RawInput) {
  const parsed = parseBody(z.object({ provisionUid: text() }))(input);
  if (!parsed.ok) return parsed;
  const uid = parsed.value.provisionUid;
  return PROVISION_UID.test(uid) ? ok({ provisionUid: uid.toLowerCase() }) : fail(1002, 'Invalid transaction id: provisionUid must be 32 hexadecimal characters');
}

const moves = [
  ['/v1/store/complete-transaction', 'complete'],
  ['/v1/store/cancel-transaction', 'cancel'],
  ['/v1/store/refund-transaction', 'refund'],
] as const;

/** transaction-status (every tier) and the three moves of the Transaction state table (Server, Mobile). */
export const provisionTransactionRoutes = (deps: CommandDeps) => [
  defineRoute({
    method: 'POST',
    path: '/v1/store/transaction-status',
    tiers: ALL_TIERS,
    parse: parseProvisionUid,
    handle: ({ provisionUid }) => transactionStatus(provisionUid, deps),
  }),
  ...moves.map(([path, op]) =>
    defineRoute({
      method: 'POST',
      path,
      tiers: SERVER_MOBILE,
      parse: parseProvisionUid,
      async handle({ provisionUid }, ctx) {
        const outcome = await transactAndSettle(op, provisionUid, requestMetadata(ctx, deps), deps);
        return outcome.ok ? { ok: true, value: outcome.value.transaction, position: outcome.value.position } : outcome;
      },
    }),
  ),
];
