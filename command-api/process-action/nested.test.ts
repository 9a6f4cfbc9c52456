import { fail, ok } from '../../domain/result';
import { runNested } from './nested';

describe('runNested', () => {
  it("keeps each player's actions in request order, runs players side by side, and answers in request order", async () => {
    const log: string[] = [];
    let running = 0;
    let most = 0;
    const bodies = [
      { playerId: 'a', n: 1 },
      { playerId: 'b', n: 2 },
      'not an action',
      { playerId: 'a', n: 3 },
      { playerId: 'b', n: 4 },
    ];
    const results = await runNested(
      bodies,
      (body) =>
        typeof body === 'object' ? ok(body as { playerId: string; n: number }) : fail(1001, 'Payload is null'),
      async (cmd) => {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 10));
        log.push(`${cmd.playerId}${cmd.n}`);
        running--;
        return ok(cmd.n * 10);
      },
    );
    expect(results).toEqual([ok(10), ok(20), fail(1001, 'Payload is null'), ok(30), ok(40)]);
    expect(log.filter((x) => x.startsWith('a'))).toEqual(['a1', 'a3']);
    expect(log.filter((x) => x.startsWith('b'))).toEqual(['b2', 'b4']);
    expect(most).toBe(2);
  });
});
