import { z } from 'zod';
import { ALL_TIERS } from '../../shared/auth/access';
import { fail, ok, type Result } from '../../shared/http/envelope';
import { decimal, details, FUTURE_TOLERANCE_MS, text } from '../../shared/http/fields';
import { defineRoute, parseWith, requireObject, type RawInput } from '../../shared/http/route';
import { processResultShape } from '../../shared/http/wire-shapes';
import { canonicalPlayerId } from '../../shared/ids';
import { requestMetadata, type CommandDeps } from '../deps';
import type { ProcessActionCommand } from './decider';
import { processAction } from './handler';
import { runNested } from './nested';

export const actionBody = z.object({
  name: text(),
  referenceId: text(),
  playerId: z.string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') }),
  timestamp: z.number({ error: 'must be Unix milliseconds' }).int('must be Unix milliseconds').nonnegative('must be Unix milliseconds').optional(),
  multiplier: decimal().refine((m) => m > 0, 'must be greater than 0').optional(),
  details: details().optional(),
});

/** The outer action may carry further actions, applied after it (decisions.md §3). */
export const actionBodyWithNested = actionBody.extend({ actions: z.array(actionBody).optional() });

/** Validates one action body (outer or nested) into a command; `now` is the default timestamp. */
export function parseActionBody(body: unknown, now: number): Result<ProcessActionCommand> {
  const object = requireObject(body);
  if (!object.ok) return object;
  const parsed = parseWith(actionBody, object.value);
  if (!parsed.ok) return parsed;
  const playerId = canonicalPlayerId(parsed.value.playerId);
  if (!playerId) return fail(1002, 'Invalid player: playerId must be a UUID');
  const timestamp = parsed.value.timestamp ?? now;
  if (timestamp > now + FUTURE_TOLERANCE_MS) return fail(1001, 'timestamp: must not be more than 5 minutes in the future');
  return ok({ playerId, referenceId: parsed.value.referenceId, name: parsed.value.name, timestamp, multiplier: parsed.value.multiplier ?? 1, details: parsed.value.details ?? [] });
}

/** The outer action, and the nested `actions` applied after it in order (decisions.md §3). */
export function parseWithNested(input: RawInput, now: number): Result<{ outer: ProcessActionCommand; nested: unknown[] }> {
  const object = requireObject(input.body);
  if (!object.ok) return object;
  const outer = parseActionBody(object.value, now);
  if (!outer.ok) return outer;
  const nested = object.value.actions;
  if (nested !== undefined && !Array.isArray(nested)) return fail(1001, 'actions: must be an array of action bodies');
  return ok({ outer: outer.value, nested: (nested as unknown[] | undefined) ?? [] });
}

export const processActionRoute = (deps: CommandDeps) =>
  defineRoute({
    method: 'POST',
    path: '/v1/action/process',
    tiers: ALL_TIERS,
    acceptsNestedActions: true,
    rateLimited: true,
    doc: { summary: 'Process a player action', body: actionBodyWithNested, response: processResultShape, errors: { 1001: 'Payload is null, or a field is missing or invalid (the message names it)', 1002: 'Invalid player: playerId must be a UUID', 2601: 'Duplicate action (referenceId already used)', 5003: 'PlayerId does not exist (settings.autoRegisterPlayers false)', 5004: 'Action does not exist or is inactive', 9001: 'Insufficient funds for the action cost' } },
    parse: (input) => parseWithNested(input, deps.now()),
    async handle({ outer, nested }, ctx) {
      const metadata = requestMetadata(ctx, deps);
      const first = await processAction(outer, metadata, deps);
      if (!first.ok) return first;
      if (!nested.length) return { ok: true, value: first.value.result, position: first.value.position };
      const outcomes = await runNested(nested, (body) => parseActionBody(body, deps.now()), (cmd) => processAction(cmd, metadata, deps));
      const position = Math.max(first.value.position, ...outcomes.map((r) => (r.ok ? r.value.position : 0)));
      const results = outcomes.map((r) => (r.ok ? r.value.result : { code: r.failure.code, data: r.failure.message }));
      return { ok: true, value: { ...first.value.result, nested: results }, position };
    },
  });
