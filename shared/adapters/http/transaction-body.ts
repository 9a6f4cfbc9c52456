import { z } from 'zod';
import { fail, ok } from '../../../domain/result';
import { text } from './fields';
import { parseBody, type RawInput } from './route';
import { documented, ERRORS } from '../../../domain/errors';

const PROVISION_UID_PATTERN = '^[0-9a-fA-F]{32}$';
const PROVISION_UID = new RegExp(PROVISION_UID_PATTERN);

/** The body every transaction endpoint takes: `{provisionUid}`, 32 hexadecimal characters (else 1002, documented by the pattern). */
export const transactionBody = z.object({ provisionUid: text().meta({ pattern: PROVISION_UID_PATTERN }) });

export const TRANSACTION_ERRORS = {
  1001: 'Payload is null, provisionUid is missing, or the move would take a balance out of range',
  1002: 'Invalid transaction id',
  ...documented(ERRORS.TRANSACTION_NOT_FOUND),
  9002: 'Transaction already completed (cannot re-complete or cancel)',
  ...documented(ERRORS.TRANSACTION_FAILED),
  ...documented(ERRORS.TRANSACTION_REFUNDED),
};

export function parseProvisionUid(input: RawInput) {
  const parsed = parseBody(transactionBody)(input);
  if (!parsed.ok) return parsed;
  const uid = parsed.value.provisionUid;
  return PROVISION_UID.test(uid)
    ? ok({ provisionUid: uid.toLowerCase() })
    : fail(1002, 'Invalid transaction id: provisionUid must be 32 hexadecimal characters');
}
