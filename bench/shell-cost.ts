/**
 * The HTTP shell's CPU per request, two checkouts side by side: `POST /v1/action/process` with a
 * body refused after authentication and the rate limit (1001: no decision, no append), so what is
 * measured is headers, CORS, the request id and log line, metrics, body reading, dispatch,
 * authentication, validation and the envelope. Each checkout's own bench server child (the
 * service as `npm start` runs it) is loaded in turn, alternating, over the same connections count.
 *
 * `npx tsx bench/shell-cost.ts OTHER_CHECKOUT [rounds] [seconds]` (default 6 rounds of 4 s):
 * OTHER_CHECKOUT is a directory holding another version of the repository (e.g. made with
 * `git archive <commit> | tar -x -C DIR` and a node_modules link); prints us of server CPU per
 * request of each round and the medians.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChild, type Child } from './ipc';
import { closedLoop } from './load';
import { BENCH_CATALOG_FILE, SERVER_KEY, writeKeysFile } from './workload';

const REFUSED_BODY = JSON.stringify({ name: 'login', referenceId: 'shell-cost' });

async function main(): Promise<void> {
  const [other, roundsArg = '6', secondsArg = '4'] = process.argv.slice(2);
  if (!other) throw new Error('usage: npx tsx bench/shell-cost.ts OTHER_CHECKOUT [rounds] [seconds]');
  const checkouts: Record<string, string> = { other: path.resolve(other), this: path.resolve(__dirname, '..') };
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shell-cost-'));
  const children: Record<string, Child> = {};
  const perRequest: Record<string, number[]> = { other: [], this: [] };
  try {
    for (const [name, root] of Object.entries(checkouts)) {
      children[name] = await startChild(path.join(root, 'bench/server.ts'), {
        env: {
          BENCH_DATA_DIR: fs.mkdtempSync(path.join(tmp, `${name}-`)),
          BENCH_CATALOG: BENCH_CATALOG_FILE,
          BENCH_KEYS: writeKeysFile(tmp),
          BENCH_LOG_LEVEL: 'info',
        },
        logFile: path.join(tmp, `${name}.log`),
      });
    }
    for (let round = 0; round < Number(roundsArg); round++) {
      for (const name of round % 2 ? ['this', 'other'] : ['other', 'this']) {
        const child = children[name];
        const asked: Promise<number>[] = [];
        const result = await closedLoop({
          port: child.ready.port as number,
          connections: 20,
          warmupMs: 1000,
          durationMs: Number(secondsArg) * 1000,
          next: () => ({
            method: 'POST',
            path: '/v1/action/process',
            body: REFUSED_BODY,
            headers: { AuthKey: SERVER_KEY },
          }),
          onWindow: () => void asked.push(child.ask<number>('cpu')),
        });
        // The window's end timer is cleared if the connections finish first: then the end is now.
        if (asked.length < 2) asked.push(child.ask<number>('cpu'));
        const [start, end] = await Promise.all(asked);
        const us = (end - start) / result.requests;
        perRequest[name].push(us);
        console.log(
          `round ${round} ${name}: ${result.requests} answers ${JSON.stringify(result.statuses)}, ${us.toFixed(1)} us CPU each`,
        );
      }
    }
  } finally {
    for (const child of Object.values(children)) await child.stop();
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(
    `median us of server CPU per request: other ${median(perRequest.other).toFixed(1)}, this ${median(perRequest.this).toFixed(1)}; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
