/** GET /v1/admin/players?username=<prefix>: finding a player by name, for operators (the console). */
import { z } from 'zod';
import { OPERATORS } from '../../shared/adapters/auth/access';
import { defineRoute, parseWith } from '../../shared/adapters/http/route';
import { PLAYERS_COLLECTION, type PlayerDoc } from '../../shared/read-models/players';
import type { ReadStore } from '../../shared/adapters/read-store/port';
import { STARTS_WITH } from '../../shared/adapters/read-store/prefix';
import { ok } from '../../domain/result';

export const DEFAULT_PLAYERS_TOP = 20;
export const MAX_PLAYERS_TOP = 100;

const searchQuery = z.object({
  username: z
    .string({ error: 'required' })
    .min(1, 'must not be empty')
    .max(200, 'must be at most 200 characters')
    .meta({ description: 'the start of a username, in any case' }),
  top: z
    .string()
    .regex(/^\d+$/, `must be a whole number from 1 to ${MAX_PLAYERS_TOP}`)
    .transform(Number)
    .pipe(
      z
        .number()
        .min(1, `must be a whole number from 1 to ${MAX_PLAYERS_TOP}`)
        .max(MAX_PLAYERS_TOP, `must be a whole number from 1 to ${MAX_PLAYERS_TOP}`),
    )
    .optional(),
});

const playerFoundShape = z.object({ playerId: z.string(), username: z.string() });

export const playerSearchRoute = (deps: { store: ReadStore }) =>
  defineRoute({
    method: 'GET',
    path: '/v1/admin/players',
    tiers: OPERATORS,
    doc: {
      operationId: 'searchPlayers',
      summary:
        'Registered players whose username starts with the given text (any case), by username; at most top (default 20, at most 100)',
      query: searchQuery,
      response: z.array(playerFoundShape),
      errors: { 1001: 'username missing or empty, or top not a whole number from 1 to 100' },
    },
    parse: ({ query }) => parseWith(searchQuery, query),
    async handle({ username, top }) {
      // Each store answers the prefix as a range of the names index in its own string order.
      const docs = await deps.store
        .collection<PlayerDoc>(PLAYERS_COLLECTION)
        .find(
          { name: { [STARTS_WITH]: username.toLowerCase() } },
          { sort: { name: 1, _id: 1 }, limit: top ?? DEFAULT_PLAYERS_TOP },
        );
      return ok(docs.map((d) => ({ playerId: d._id, username: d.username })));
    },
  });
