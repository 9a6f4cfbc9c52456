import { z } from 'zod';
import { SERVER_MOBILE } from '../../shared/auth/access';
import { fail, ok } from '../../shared/http/envelope';
import { MAX_STRING } from '../../shared/http/fields';
import { defineRoute, parseBody } from '../../shared/http/route';
import { canonicalPlayerId } from '../../shared/ids';
import { decisionEnv, requestMetadata, type CommandDeps } from '../deps';
import { registration } from '../process-action/decider';
import { retryOnConflict } from '../retry';
import { registeredShape } from '../../shared/http/wire-shapes';

const registerBody = z.object({
  playerId: z.string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') }),
  username: z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(MAX_STRING, `must be at most ${MAX_STRING} characters`).optional(),
  imageName: z.string({ error: 'must be a string' }).max(MAX_STRING, `must be at most ${MAX_STRING} characters`).nullable().optional(),
});

/** POST /v1/player/create: registers a player ahead of their first action (decisions.md §5). */
export const registerPlayerRoute = (deps: CommandDeps) =>
  defineRoute({
    method: 'POST',
    path: '/v1/player/create',
    tiers: SERVER_MOBILE,
    doc: { summary: 'Register a player ahead of their first action', body: registerBody, response: registeredShape, errors: { 1001: 'Payload is null, or a field is invalid', 1002: 'Invalid player: playerId must be a UUID', 5002: 'PlayerId already exists (HTTP 200)' } },
    parse: (input) => {
      const parsed = parseBody(registerBody)(input);
      if (!parsed.ok) return parsed;
      const playerId = canonicalPlayerId(parsed.value.playerId);
      return playerId ? ok({ ...parsed.value, playerId }) : fail(1002, 'Invalid player: playerId must be a UUID');
    },
    async handle(cmd, ctx) {
      const metadata = requestMetadata(ctx, deps);
      return retryOnConflict(async () => {
        const { state, revision } = await deps.players.load(cmd.playerId);
        if (state.registered) return fail(5002, 'PlayerId already exists');
        const event = registration(deps.catalog().catalog, state, cmd.playerId, decisionEnv(deps), cmd.username, cmd.imageName);
        const appended = await deps.players.append(cmd.playerId, [event], revision, metadata);
        return { ok: true, value: { playerId: cmd.playerId, username: event.data.username, imageName: event.data.imageName }, position: appended.position };
      });
    },
  });
