/** POST /v1/admin/players/adjust. */
import { z } from 'zod';
import { isAmountInRange, MAX_AMOUNT_TEXT, roundAmount } from '../../domain/amount';
import { decimal, PLAYER_ID_DOC, text } from '../../shared/adapters/http/fields';
import { defineRoute, parseBody } from '../../shared/adapters/http/route';
import { canonicalPlayerId } from '../../domain/ids';
import { fail, ok } from '../../domain/result';
import { documented, ERRORS, refuse } from '../../domain/errors';
import { replyOf, requestOrigin } from '../http';
import type { CommandDeps } from '../deps';
import { adjustPlayer } from './handler';

/** The longest reason an adjustment keeps (docs/api.md, "Support adjustments"). */
export const MAX_REASON = 500;
/** The most deliverables one adjustment names. */
export const MAX_ADJUSTED_DELIVERABLES = 100;

const signedAmount = () =>
  decimal()
    .refine(isAmountInRange, `must be between -${MAX_AMOUNT_TEXT} and ${MAX_AMOUNT_TEXT}`)
    .transform(roundAmount);

const adjustBody = z.object({
  playerId: z
    .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') })
    .meta(PLAYER_ID_DOC),
  reason: z
    .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') })
    .trim()
    .min(1, 'must not be empty')
    .max(MAX_REASON, `must be at most ${MAX_REASON} characters`)
    .meta({ description: 'Why: shown with the adjustment in traces, exports, the feed and webhooks' }),
  points: signedAmount().optional().meta({ description: 'Points to grant (positive) or take back (negative)' }),
  deliverables: z
    .array(z.object({ deliverable: text(), amount: signedAmount() }), {
      error: 'must be an array of {deliverable, amount}',
    })
    .max(MAX_ADJUSTED_DELIVERABLES, `at most ${MAX_ADJUSTED_DELIVERABLES} items`)
    .optional()
    .meta({ description: 'Catalog deliverables to grant (positive amount) or take back (negative), each once' }),
});

const adjustedShape = z.object({
  playerId: z.string(),
  adjustmentUid: z.string(),
  reason: z.string(),
  keyName: z.string(),
  points: z.number(),
  deliverables: z.array(z.object({ uid: z.string(), label: z.string(), amount: z.number() })),
  levels: z.array(z.object({ uid: z.string(), label: z.string(), level: z.number() })),
  adjustedAt: z.number().int().describe('Unix ms'),
});

/** POST /v1/admin/players/adjust: a support adjustment of one player's points and deliverables, Server keys only. */
export const adjustPlayerRoute = (deps: CommandDeps) =>
  defineRoute({
    method: 'POST',
    idempotent: true,
    path: '/v1/admin/players/adjust',
    tiers: ['Server'],
    doc: {
      operationId: 'adjustPlayer',
      summary:
        'Grant or take back points and deliverables of one player, with a reason: never below zero; the event names the reason and the key',
      body: adjustBody,
      response: adjustedShape,
      errors: {
        1001: `Payload is null; reason missing, empty or over ${MAX_REASON} characters; an amount not a number or out of range; no non-zero points or amount; a deliverable named twice; a deliverable that does not exist; a powerup taken back; or a balance that would go out of range`,
        ...documented(ERRORS.INVALID_PLAYER_ID),
        ...documented(ERRORS.PLAYER_DOES_NOT_EXIST),
        ...documented(ERRORS.ADJUSTMENT_NEGATIVE_BALANCE),
      },
    },
    parse: (input) => {
      const parsed = parseBody(adjustBody)(input);
      if (!parsed.ok) return parsed;
      const { reason, points = 0 } = parsed.value;
      const deliverables = (parsed.value.deliverables ?? []).filter((x) => x.amount !== 0);
      if (new Set(deliverables.map((x) => x.deliverable)).size !== deliverables.length)
        return fail(1001, 'deliverables: name each deliverable once');
      if (points === 0 && deliverables.length === 0)
        return fail(1001, 'Nothing to adjust: give non-zero points or a deliverable with a non-zero amount');
      const playerId = canonicalPlayerId(parsed.value.playerId);
      return playerId ? ok({ playerId, reason, points, deliverables }) : refuse(ERRORS.INVALID_PLAYER_ID);
    },
    async handle(body, ctx) {
      const cmd = { ...body, keyName: ctx.key.name };
      return replyOf(await adjustPlayer(cmd, requestOrigin(ctx, deps), deps), (a) => ({
        playerId: a.playerId,
        adjustmentUid: a.adjustmentUid,
        reason: a.reason,
        keyName: a.keyName,
        points: a.points,
        deliverables: a.deliverables.map((g) => ({ uid: g.uid, label: g.label, amount: g.amount })),
        levels: a.levels.map((l) => ({ uid: l.uid, label: l.label, level: l.level })),
        adjustedAt: a.adjustedAt,
      }));
    },
  });
