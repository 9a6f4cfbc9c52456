/** POST /v1/store/buy. */
import { z } from 'zod';
import { WRITERS } from '../../shared/adapters/auth/access';
import { ok } from '../../domain/result';
import { text, PLAYER_ID_DOC } from '../../shared/adapters/http/fields';
import { nullableString } from '../../shared/adapters/http/wire-shapes';
import { defineRoute, parseBody } from '../../shared/adapters/http/route';
import { canonicalPlayerId } from '../../domain/ids';
import { replyOf, requestOrigin } from '../http';
import type { CommandDeps } from '../deps';
import { buyBundle } from './handler';
import { documented, ERRORS, refuse } from '../../domain/errors';

const buyResultShape = z.object({
  playerId: z.string(),
  provisionUid: z.string(),
  cost: z.number(),
  costLabel: nullableString,
  costDeliverableUid: nullableString,
  status: z.enum(['Pending', 'Completed']),
  updateDate: z.number().int().describe('Unix ms'),
  deliverables: z.array(
    z.object({
      amount: z.number(),
      label: z.string(),
      type: z.number().int(),
      imageName: nullableString,
      details: z.array(z.object({ label: z.string(), value: z.string() })).nullable(),
    }),
  ),
});

const buyBody = z.object({ playerId: text().meta(PLAYER_ID_DOC), referenceId: text() });

/** POST /v1/store/buy: `referenceId` is the bundle's uid. */
export const buyBundleRoute = (deps: CommandDeps) =>
  defineRoute({
    method: 'POST',
    idempotent: true,
    path: '/v1/store/buy',
    tiers: WRITERS,
    doc: {
      operationId: 'buyBundle',
      summary: 'Buy a store bundle (referenceId is the bundle uid)',
      body: buyBody,
      response: buyResultShape,
      errors: {
        1001: 'Payload is null, a field is missing, or the contents would take a balance out of range',
        1002: 'Invalid player (not a UUID, or unknown)',
        ...documented(ERRORS.INSUFFICIENT_FUNDS),
        9008: 'Bundle does not exist (unknown, store inactive or closed)',
        ...documented(ERRORS.BUNDLE_OUT_OF_STOCK),
      },
    },
    parse(input) {
      const parsed = parseBody(buyBody)(input);
      if (!parsed.ok) return parsed;
      const playerId = canonicalPlayerId(parsed.value.playerId);
      return playerId ? ok({ playerId, bundleUid: parsed.value.referenceId }) : refuse(ERRORS.INVALID_PLAYER_ID);
    },
    async handle(cmd, ctx) {
      return replyOf(await buyBundle(cmd, requestOrigin(ctx, deps), deps), (purchase) => ({
        playerId: purchase.playerId,
        provisionUid: purchase.provisionUid,
        cost: purchase.cost.amount,
        costLabel: purchase.cost.label,
        costDeliverableUid: purchase.cost.deliverableUid,
        status: purchase.status,
        updateDate: purchase.purchasedAt,
        deliverables: purchase.contents.map((g) => ({
          amount: g.amount,
          label: g.label,
          type: g.type,
          imageName: g.imageName,
          details: g.details,
        })),
      }));
    },
  });
