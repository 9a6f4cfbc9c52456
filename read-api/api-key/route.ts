/** GET /v1/auth/key: the key the request came with, as the service knows it (its name and tier). */
import { z } from 'zod';
import { EVERY_TIER } from '../../shared/adapters/auth/access';
import { defineRoute } from '../../shared/adapters/http/route';
import { ok } from '../../domain/result';

const keyShape = z.object({
  name: z.string().describe("the key's name in the keys file"),
  tier: z.enum(['Server', 'Mobile', 'Client', 'Auditor']),
});

/** What a client (the console's sign-in) asks to learn whether a key is accepted, and with which tier, changing nothing. */
export const apiKeyRoute = () =>
  defineRoute({
    method: 'GET',
    path: '/v1/auth/key',
    tiers: EVERY_TIER,
    doc: {
      operationId: 'apiKey',
      summary: 'The key of the request: its name and tier (a check that a key is accepted)',
      response: keyShape,
      errors: {},
    },
    parse: () => ok({}),
    async handle(_input, ctx) {
      return ok({ name: ctx.key.name, tier: ctx.key.tier });
    },
  });
