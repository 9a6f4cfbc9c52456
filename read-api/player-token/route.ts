/**
 * POST /v1/players/token: a short-lived token of one player, for the operator's back end (Server
 * keys) to hand to its web page, whose Client key may then read that player's own views
 * (X-Player-Token; shared/adapters/auth/player-tokens.ts). Nothing is recorded: the token carries
 * its player and expiry, signed.
 */
import { z } from 'zod';
import {
  DEFAULT_TOKEN_TTL_SECONDS,
  MAX_TOKEN_TTL_SECONDS,
  type PlayerTokens,
} from '../../shared/adapters/auth/player-tokens';
import { PLAYER_ID_DOC, text } from '../../shared/adapters/http/fields';
import { defineRoute, parseBody } from '../../shared/adapters/http/route';
import { documented, ERRORS, refuse } from '../../domain/errors';
import { canonicalPlayerId } from '../../domain/ids';
import { ok } from '../../domain/result';

const tokenBody = z.object({
  playerId: text().meta(PLAYER_ID_DOC),
  ttlSeconds: z
    .number({ error: 'must be a whole number of seconds' })
    .int('must be a whole number of seconds')
    .min(1, 'must be at least 1')
    .max(MAX_TOKEN_TTL_SECONDS, `must be at most ${MAX_TOKEN_TTL_SECONDS} (a day)`)
    .optional()
    .describe(`how long the token is accepted, in seconds; default ${DEFAULT_TOKEN_TTL_SECONDS}`),
});

const tokenShape = z.object({
  token: z.string().describe('send it as X-Player-Token with a Client key'),
  playerId: z.string().describe('the player it reads, canonical'),
  expiresAt: z.number().int().describe('Unix ms; from then on it answers 4006'),
});

export const playerTokenRoute = (deps: { tokens: PlayerTokens; now: () => number }) =>
  defineRoute({
    method: 'POST',
    path: '/v1/players/token',
    tiers: ['Server'],
    doc: {
      operationId: 'playerToken',
      summary: "A short-lived token with which a Client key reads one player's own views (X-Player-Token)",
      body: tokenBody,
      response: tokenShape,
      errors: {
        1001: 'Payload is null, or playerId is missing, or ttlSeconds is not a whole number from 1 to 86400',
        ...documented(ERRORS.INVALID_PLAYER_ID),
      },
    },
    parse(input) {
      const parsed = parseBody(tokenBody)(input);
      if (!parsed.ok) return parsed;
      const playerId = canonicalPlayerId(parsed.value.playerId);
      if (!playerId) return refuse(ERRORS.INVALID_PLAYER_ID);
      return ok({ playerId, ttlSeconds: parsed.value.ttlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS });
    },
    async handle({ playerId, ttlSeconds }) {
      return ok(deps.tokens.issue(playerId, ttlSeconds, deps.now()));
    },
  });
