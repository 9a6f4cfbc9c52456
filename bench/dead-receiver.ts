/**
 * What a dead webhook receiver with a large backlog costs the service (issue 35, point 5): the
 * service under test (bench/server.ts, as `npm start` runs it) has one webhook taking
 * ActionProcessed. The script measures the service's CPU time over an idle window with nothing
 * waiting; then queues `deliveries` waiting deliveries, the receiver refusing each (503) but
 * for one canary player's, whose event every request carries (so the receiver is not taken for
 * dead while the backlog builds, and each other player is a lane of its own); then closes the
 * receiver's port, and measures the idle CPU again, and the throughput of actions.
 * `npx tsx bench/dead-receiver.ts [deliveries=10000] [idle seconds=30]`
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { startChild, type Child } from './ipc';
import { closedLoop, newAgent, runAll, send, type RequestSpec } from './load';
import { actionBody, BENCH_CATALOG_FILE, playerId, prng, runTag, SERVER_KEY, writeKeysFile } from './workload';

const HEADERS = { AuthKey: SERVER_KEY };
const THROUGHPUT_SECONDS = 10;
/** The service's bound on the waiting deliveries of a webhook (webhooks/dispatcher.ts). */
const MAX_WAITING = 10_000;

/** Takes the canary's deliveries (204), refuses every other (503). */
async function canaryReceiver(canary: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () =>
      res.writeHead((JSON.parse(body) as { data: { playerId: string } }).data.playerId === canary ? 204 : 503).end(),
    );
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

async function get(port: number, p: string): Promise<string> {
  const agent = newAgent(1);
  try {
    return (await send(agent, port, { method: 'GET', path: p, headers: HEADERS })).body;
  } finally {
    agent.destroy();
  }
}

/** Attempts refused so far (webhook_deliveries_total, outcomes retried and failed). */
async function refused(port: number): Promise<number> {
  const metrics = await get(port, '/metrics');
  let sum = 0;
  for (const m of metrics.matchAll(/^webhook_deliveries_total\{hook="dead",outcome="(?:retried|failed)"\} (\d+)/gm))
    sum += Number(m[1]);
  return sum;
}

async function view(port: number): Promise<{ waiting: number; cursor: number; head: number }> {
  return (
    JSON.parse(await get(port, '/v1/admin/webhooks')) as { data: { waiting: number; cursor: number; head: number }[] }
  ).data[0];
}

/** Idle CPU of the service (percent of one core) and the attempts it made, over `seconds`. */
async function idle(child: Child, port: number, seconds: number): Promise<{ cpuPercent: number; attempts: number }> {
  const cpu0 = await child.ask<number>('cpu');
  const attempts0 = await refused(port);
  const t0 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const cpu1 = await child.ask<number>('cpu');
  const elapsedMs = performance.now() - t0;
  return { cpuPercent: ((cpu1 - cpu0) / 1000 / elapsedMs) * 100, attempts: (await refused(port)) - attempts0 };
}

/** Actions of players of their own (the receiver being dead, each may add a waiting delivery). */
async function throughput(port: number, tag: string): Promise<number> {
  const random = prng(7);
  let n = 0;
  const result = await closedLoop({
    port,
    connections: 10,
    warmupMs: 1000,
    durationMs: THROUGHPUT_SECONDS * 1000,
    next: () => ({
      method: 'POST',
      path: '/v1/action/process',
      body: JSON.stringify(actionBody(playerId(tag, 1_000_000 + n), `${tag}-t${n++}`, random, 'play')),
      headers: HEADERS,
    }),
  });
  return result.requests / THROUGHPUT_SECONDS;
}

async function main(): Promise<void> {
  const deliveries = Number(process.argv[2] ?? MAX_WAITING);
  const seconds = Number(process.argv[3] ?? 30);
  const tag = runTag();
  const canary = playerId(tag, 999_999_999);
  const receiver = await canaryReceiver(canary);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dead-receiver-'));
  const webhooks = path.join(dir, 'webhooks.yaml');
  fs.writeFileSync(
    webhooks,
    YAML.stringify({
      webhooks: [
        {
          name: 'dead',
          url: receiver.url,
          secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
          events: ['ActionProcessed'],
        },
      ],
    }),
  );
  const child = await startChild(path.join(__dirname, 'server.ts'), {
    env: {
      BENCH_DATA_DIR: path.join(dir, 'data'),
      BENCH_CATALOG: BENCH_CATALOG_FILE,
      BENCH_KEYS: writeKeysFile(dir),
      BENCH_WEBHOOKS: webhooks,
    },
    logFile: path.join(dir, 'server.log'),
  });
  const port = child.ready.port as number;
  const say = (line: string) => process.stdout.write(`${line}\n`);
  try {
    const before = await idle(child, port, seconds);
    say(`nothing waiting: idle CPU ${before.cpuPercent.toFixed(1)} % over ${seconds} s, ${before.attempts} attempts`);

    const random = prng(42);
    let n = 0;
    // Each request: a new player's action, and the canary's in the same append.
    const next = (): RequestSpec | null =>
      n < deliveries
        ? {
            method: 'POST',
            path: '/v1/action/process',
            body: JSON.stringify({
              ...actionBody(playerId(tag, n), `${tag}-r${n}`, random, 'play'),
              actions: [actionBody(canary, `${tag}-c${n++}`, random, 'play')],
            }),
            headers: HEADERS,
          }
        : null;
    await runAll({ port, connections: 10, next });
    const deadline = Date.now() + 10 * 60_000;
    for (
      let v = await view(port);
      v.cursor < v.head || v.waiting < Math.min(deliveries, MAX_WAITING);
      v = await view(port)
    ) {
      if (Date.now() > deadline)
        throw new Error(
          `backlog not queued after 10 minutes: ${JSON.stringify({ cursor: v.cursor, head: v.head, waiting: v.waiting })}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // The receiver dies: its port is closed.
    await receiver.close();
    const { cursor, head, waiting } = await view(port);
    say(`queued: ${waiting} deliveries waiting, cursor ${cursor} of head ${head}; receiver's port closed`);
    const after = await idle(child, port, seconds);
    say(`backlog waiting: idle CPU ${after.cpuPercent.toFixed(1)} % over ${seconds} s, ${after.attempts} attempts`);
    say(
      `backlog waiting: ${(await throughput(port, tag)).toFixed(0)} actions/s (10 connections, ${THROUGHPUT_SECONDS} s)`,
    );
  } finally {
    await child.stop();
    await receiver.close().catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
