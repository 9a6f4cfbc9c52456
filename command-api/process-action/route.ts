/** POST /v1/action/process, with nested actions; the action body is shared with /v1/action/delete. */
import { z } from 'zod';
import { WRITERS } from '../../shared/adapters/auth/access';
import {
  DEFAULT_MAX_MULTIPLIER,
  DEFAULT_MAX_TIMESTAMP_AGE_SECONDS,
  type ApiKey,
} from '../../shared/adapters/auth/keys';
import { MAX_AMOUNT } from '../../domain/amount';
import { fail, ok, type Result } from '../../domain/result';
import { decimal, details, FUTURE_TOLERANCE_MS, text, PLAYER_ID_DOC } from '../../shared/adapters/http/fields';
import { defineRoute, parseWith, requireObject, type RawInput } from '../../shared/adapters/http/route';
import { actionResultShape } from '../../shared/adapters/http/wire-shapes';
import { canonicalPlayerId } from '../../domain/ids';
import { replyOf, requestOrigin } from '../http';
import type { CommandDeps } from '../deps';
import type { ProcessActionCommand } from './decider';
import { processAction } from './handler';
import { runWithNested } from './nested';
import { documented, ERRORS, refuse } from '../../domain/errors';

export const actionBody = z.object({
  name: text(),
  referenceId: text(),
  playerId: z
    .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') })
    .meta(PLAYER_ID_DOC),
  timestamp: z
    .number({ error: 'must be Unix milliseconds' })
    .int('must be Unix milliseconds')
    .nonnegative('must be Unix milliseconds')
    .meta({
      description: `The time the rules use (Unix ms); default now, at most 5 minutes ahead, and at most the key's maxTimestampAgeSeconds in the past (default ${Object.entries(
        DEFAULT_MAX_TIMESTAMP_AGE_SECONDS,
      )
        .filter(([tier]) => tier !== 'Auditor')
        .map(([tier, age]) => `${tier} ${age === null ? 'unlimited' : `${age} s`}`)
        .join(', ')}).`,
    })
    .optional(),
  multiplier: decimal()
    .refine((m) => m > 0, 'must be greater than 0')
    .meta({
      anyOf: [
        { type: 'number', exclusiveMinimum: 0, maximum: MAX_AMOUNT },
        { type: 'string', pattern: '^(?:\\d*[1-9]\\d*(?:\\.\\d+)?|\\d+\\.\\d*[1-9]\\d*)$' },
      ],
      description: `Multiplies the action's points and grants; default 1. At most the key's maxMultiplier (default ${Object.entries(
        DEFAULT_MAX_MULTIPLIER,
      )
        .filter(([, max]) => max > 0)
        .map(([tier, max]) => `${tier} ${max}`)
        .join(', ')}), never above ${MAX_AMOUNT}.`,
    })
    .optional(),
  details: details().optional(),
});

/** The outer action may carry further actions, applied after it in order, each with its own result. */
export const actionBodyWithNested = actionBody.extend({ actions: z.array(actionBody).optional() });

/** Validates one action body (outer or nested) into a command; `now` is the default timestamp. */
export function parseActionBody(body: unknown, now: number): Result<ProcessActionCommand> {
  const object = requireObject(body);
  if (!object.ok) return object;
  const parsed = parseWith(actionBody, object.value);
  if (!parsed.ok) return parsed;
  const playerId = canonicalPlayerId(parsed.value.playerId);
  if (!playerId) return refuse(ERRORS.INVALID_PLAYER_ID);
  const timestamp = parsed.value.timestamp ?? now;
  if (timestamp > now + FUTURE_TOLERANCE_MS)
    return fail(1001, 'timestamp: must not be more than 5 minutes in the future');
  return ok({
    playerId,
    referenceId: parsed.value.referenceId,
    name: parsed.value.name,
    timestamp,
    multiplier: parsed.value.multiplier ?? 1,
    details: parsed.value.details ?? [],
  });
}

/** The outer action, and the nested `actions` applied after it in order. */
export function parseWithNested(
  input: RawInput,
  now: number,
): Result<{ outer: ProcessActionCommand; nested: unknown[] }> {
  const object = requireObject(input.body);
  if (!object.ok) return object;
  const outer = parseActionBody(object.value, now);
  if (!outer.ok) return outer;
  const nested = object.value.actions;
  if (nested !== undefined && !Array.isArray(nested)) return fail(1001, 'actions: must be an array of action bodies');
  // Nesting is one level deep: a deeper `actions` is refused, not dropped, and nothing runs.
  const deeper = ((nested as unknown[] | undefined) ?? []).findIndex(
    (body) => isObject(body) && body.actions !== undefined,
  );
  if (deeper >= 0)
    return fail(
      1001,
      `actions[${deeper}].actions: a nested action cannot carry actions of its own (nesting is one level deep)`,
    );
  return ok({ outer: outer.value, nested: (nested as unknown[] | undefined) ?? [] });
}

/**
 * The key's policy (docs/api.md, "Key policy"): refuses (1001, never caps or re-dates) an action
 * whose multiplier is above the key's `maxMultiplier` or whose timestamp is older than its
 * `maxTimestampAgeSeconds` allows.
 */
export function withinKeyPolicy(
  cmd: Result<ProcessActionCommand>,
  key: ApiKey,
  now: number,
): Result<ProcessActionCommand> {
  if (!cmd.ok) return cmd;
  if (cmd.value.multiplier > key.maxMultiplier)
    return fail(1001, `multiplier: must be at most ${key.maxMultiplier} for this key`);
  const oldest = key.maxTimestampAgeSeconds;
  if (oldest !== null && cmd.value.timestamp < now - oldest * 1000)
    return fail(1001, `timestamp: must not be more than ${oldest} seconds in the past for this key`);
  return cmd;
}

/** The outer action's result, with its nested actions' results. */
export const processResultShape = actionResultShape.extend({
  nested: z
    .array(z.union([actionResultShape, z.object({ code: z.number().int(), data: z.string() })]))
    .optional()
    .describe('results of the nested `actions`, in order'),
});

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const processActionRoute = (deps: CommandDeps) =>
  defineRoute({
    method: 'POST',
    path: '/v1/action/process',
    tiers: WRITERS,
    acceptsNestedActions: true,
    rateLimited: true,
    idempotent: true,
    doc: {
      operationId: 'processAction',
      summary: 'Process a player action',
      body: actionBodyWithNested,
      response: processResultShape,
      errors: {
        1001: "Payload is null, a field is missing or invalid (the message names it), a multiplier above the key's maxMultiplier, a timestamp older than its maxTimestampAgeSeconds, a nested action with actions of its own, or an amount the action would take out of range",
        ...documented(ERRORS.INVALID_PLAYER_ID),
        2601: 'Duplicate action (referenceId already used)',
        5003: 'PlayerId does not exist (settings.autoRegisterPlayers false)',
        ...documented(ERRORS.ACTION_INACTIVE),
        9001: 'Insufficient funds for the action cost',
      },
    },
    parse: (input) => parseWithNested(input, deps.now()),
    async handle(request, ctx) {
      const origin = requestOrigin(ctx, deps);
      // An action outside the key's policy is bad input: refused before anything runs or is recorded.
      const outer = withinKeyPolicy(ok(request.outer), ctx.key, deps.now());
      if (!outer.ok) return outer;
      if (!request.nested.length) return replyOf(await processAction(request.outer, origin, deps), (result) => result);
      const all = await runWithNested(
        deps,
        origin,
        request,
        (body) => {
          const now = deps.now();
          return withinKeyPolicy(parseActionBody(body, now), ctx.key, now);
        },
        (cmd, each) => processAction(cmd, each, deps),
        (first, nested) => ({
          ...first,
          nested: nested.map((r) => (r.ok ? r.value.answer : { code: r.failure.code, data: r.failure.message })),
        }),
      );
      return replyOf(all, (result) => result);
    },
  });
