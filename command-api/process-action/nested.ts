import { ok, type ConflictFailure, type Failure, type Result } from '../../domain/result';
import { recordAnswer, startRequest, type CommandResult, type Decided } from '../command';
import { refusalOf } from '../http';
import type { CommandDeps, CommandOrigin } from '../deps';

/**
 * Runs the nested actions of a request: each player's in request order, different players' at
 * the same time. Players' streams are independent, so only the order per player is observable,
 * and concurrent appends share the event store's group commits. Results keep the request order.
 */
export async function runNested<Cmd extends { playerId: string }, Out>(
  bodies: readonly unknown[],
  parse: (body: unknown) => Result<Cmd>,
  run: (cmd: Cmd) => Promise<Result<Out>>,
): Promise<Result<Out>[]> {
  const results: Result<Out>[] = new Array(bodies.length);
  const byPlayer = new Map<string, { index: number; cmd: Cmd }[]>();
  bodies.forEach((body, index) => {
    const cmd = parse(body);
    if (!cmd.ok) results[index] = cmd;
    else {
      const queue = byPlayer.get(cmd.value.playerId);
      if (queue) queue.push({ index, cmd: cmd.value });
      else byPlayer.set(cmd.value.playerId, [{ index, cmd: cmd.value }]);
    }
  });
  await Promise.all(
    [...byPlayer.values()].map(async (queue) => {
      for (const { index, cmd } of queue) results[index] = await run(cmd);
    }),
  );
  return results;
}

/**
 * A request of an outer action and nested ones (process, delete): the outer one first (if it
 * fails, the request answers that failure and runs no nested action), then the nested ones.
 * Each is its own command with its own append; the request's Idempotency-Key, if any, is checked
 * before the first and recorded with the whole answer after the last (command.ts, startRequest).
 */
export async function runWithNested<Cmd extends { playerId: string }, One, All>(
  deps: CommandDeps,
  origin: CommandOrigin,
  request: { outer: Cmd; nested: readonly unknown[] },
  parse: (body: unknown) => Result<Cmd>,
  run: (cmd: Cmd, origin: CommandOrigin) => Promise<CommandResult<One>>,
  combine: (first: One, nested: Result<Decided<One>>[]) => All,
): Promise<CommandResult<All>> {
  const earlier = await startRequest<All>(deps, origin);
  if (earlier) return earlier;
  const each: CommandOrigin = { metadata: origin.metadata, idempotency: null };
  const first = await run(request.outer, each);
  let outcome: Result<All> = first.ok ? ok(combine(first.value.answer, [])) : refused(first.failure);
  let position = first.ok ? first.value.position : undefined;
  if (first.ok) {
    const results = await runNested(request.nested, parse, async (cmd) => {
      const result = await run(cmd, each);
      return result.ok ? result : refused(result.failure);
    });
    outcome = ok(combine(first.value.answer, results));
    position = Math.max(position ?? 0, ...results.map((r) => (r.ok ? (r.value.position ?? 0) : 0)));
  }
  if (origin.idempotency) return recordAnswer(deps, origin, outcome);
  return outcome.ok ? ok({ answer: outcome.value, position }) : outcome;
}

/** Each action's failure as its client sees it: the request's answer (and its record) holds refusals only. */
const refused = (f: Failure | ConflictFailure): { ok: false; failure: Failure } => ({
  ok: false,
  failure: refusalOf(f),
});
