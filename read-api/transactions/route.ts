import { EVERY_TIER } from '../../shared/adapters/auth/access';
import type { EventStore } from '../../shared/adapters/event-store/port';
import { defineRoute } from '../../shared/adapters/http/route';
import { parseProvisionUid, transactionBody, TRANSACTION_ERRORS } from '../../shared/adapters/http/transaction-body';
import { transactionShape } from '../../shared/adapters/http/wire-shapes';
import { provisionRecordOf, transactionView } from '../../domain/provisions';
import { ok } from '../../domain/result';
import { provisionStream } from '../../domain/streams';
import { documented, ERRORS, refuse } from '../../domain/errors';

/** POST /v1/store/transaction-status (every tier): the provision as its own stream records it, so a write is visible at once. */
export const transactionStatusRoute = (deps: { events: EventStore }) =>
  defineRoute({
    method: 'POST',
    path: '/v1/store/transaction-status',
    tiers: EVERY_TIER,
    doc: {
      operationId: 'transactionStatus',
      summary: 'The current status of a provision',
      body: transactionBody,
      response: transactionShape,
      errors: {
        1001: TRANSACTION_ERRORS[1001],
        1002: TRANSACTION_ERRORS[1002],
        ...documented(ERRORS.TRANSACTION_NOT_FOUND),
      },
    },
    parse: parseProvisionUid,
    async handle({ provisionUid }) {
      const record = provisionRecordOf(await deps.events.readStream(provisionStream(provisionUid)));
      return record ? ok(transactionView(record)) : refuse(ERRORS.TRANSACTION_NOT_FOUND);
    },
  });
