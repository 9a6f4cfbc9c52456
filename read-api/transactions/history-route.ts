/** POST /v1/store/transactions: a player's provisions, newest first, for the player's own clients. */
import { z } from 'zod';
import { EVERY_TIER } from '../../shared/adapters/auth/access';
import { text, PLAYER_ID_DOC } from '../../shared/adapters/http/fields';
import { defineRoute, parseWith, requireObject } from '../../shared/adapters/http/route';
import { transactionHistoryShape } from '../../shared/adapters/http/wire-shapes';
import { canonicalPlayerId } from '../../domain/ids';
import type { ProvisionState } from '../../domain/player/state';
import { ok, type Result } from '../../domain/result';
import type { StreamReadDeps } from '../deps';
import { documented, ERRORS, refuse } from '../../domain/errors';

export const DEFAULT_HISTORY_PAGE = 20;
export const MAX_HISTORY_PAGE = 100;

const historyBody = z.object({
  playerId: text().meta(PLAYER_ID_DOC),
  top: z
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(MAX_HISTORY_PAGE, `must be at most ${MAX_HISTORY_PAGE}`)
    .optional(),
  before: text()
    .optional()
    .describe('the provisionUid the previous page ended with: this page lists the ones older than it'),
});

/** One provision as the history lists it (the export lists them all). */
export const transactionItem = (playerId: string, p: ProvisionState) => ({
  playerId,
  provisionUid: p.uid,
  cost: p.cost.amount,
  costDeliverableUid: p.cost.deliverableUid,
  costLabel: p.cost.label,
  referenceType: p.referenceType,
  status: p.status,
  failureReason: p.failureReason,
  bundleUid: p.bundleUid,
  bundleLabel: p.bundleLabel,
  referenceId: p.referenceId,
  contents: p.contents.map((g) => ({ deliverableUid: g.uid, label: g.label, type: g.type, amount: g.amount })),
  createDate: p.createDate,
  updateDate: p.updateDate,
});

/**
 * Every provision of a player (store purchases and actions' costs) in the order they were made,
 * newest first, a page at a time: a client without a Server key finds out what happened to a
 * purchase whose answer it lost. Read from the player's stream, so a write is visible at once.
 */
export const transactionHistoryRoute = (deps: Pick<StreamReadDeps, 'players'>) =>
  defineRoute({
    method: 'POST',
    path: '/v1/store/transactions',
    tiers: EVERY_TIER,
    doc: {
      operationId: 'transactionHistory',
      summary: "A player's transactions (purchases and actions' costs), newest first, paged with `top` and `before`",
      body: historyBody,
      response: z.array(transactionHistoryShape),
      errors: {
        1001: 'Payload is null, or top is not an integer in 1..100',
        1002: 'Missing playerId, or not a UUID',
        9004: 'before: no transaction of this player has that provisionUid',
        ...documented(ERRORS.PLAYER_NOT_FOUND),
      },
    },
    parse(input): Result<{ playerId: string; top: number; before: string | null }> {
      const object = requireObject(input.body);
      if (!object.ok) return object;
      const required = parseWith(historyBody.pick({ playerId: true }), object.value, 1002);
      if (!required.ok) return required;
      const parsed = parseWith(historyBody, object.value);
      if (!parsed.ok) return parsed;
      const playerId = canonicalPlayerId(parsed.value.playerId);
      if (!playerId) return refuse(ERRORS.INVALID_PLAYER_ID);
      return ok({
        playerId,
        top: parsed.value.top ?? DEFAULT_HISTORY_PAGE,
        before: parsed.value.before?.toLowerCase() ?? null,
      });
    },
    async handle({ playerId, top, before }) {
      const { state } = await deps.players.load(playerId);
      if (!state.registered) return refuse(ERRORS.PLAYER_NOT_FOUND);
      const newestFirst = [...state.provisions.values()].reverse();
      const start = before === null ? 0 : newestFirst.findIndex((p) => p.uid === before) + 1;
      if (start === 0 && before !== null)
        return refuse(ERRORS.TRANSACTION_NOT_FOUND, 'before names no transaction of this player');
      return ok(newestFirst.slice(start, start + top).map((p) => transactionItem(playerId, p)));
    },
  });
