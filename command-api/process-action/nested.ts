import type { Result } from '../../shared/http/envelope';

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
