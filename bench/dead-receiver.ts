/**
 * What a dead webhook receiver with a large backlog costs the service (issue 35, point 5): the
 * service under test (bench/server.ts, as `npm start` runs it) has one webhook taking
 * ActionProcessed to a closed local port. The script measures the service's CPU time over an
 * idle window with nothing waiting, then again after `deliveries` actions of as many players
 * (each its own lane) have failed their first attempt and wait, and its throughput then.
 * `npx tsx bench/dead-receiver.ts [deliveries=10000] [idle seconds=30]`
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { startChild, type Child } from './ipc';
import { closedLoop, newAgent, runAll, send, type RequestSpec } from './load';
import { actionBody, BENCH_CATALOG_FILE, playerId, prng, runTag, SERVER_KEY, writeKeysFile } from './workload';

const HEADERS = { AuthKey: SERVER_KEY };
const THROUGHPUT_SECONDS = 10;

/** A local port nothing listens on: every attempt is refused at once. */
async function closedPort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function get(port: number, p: string): Promise<string> {
  const agent = newAgent(1);
  try {
    return (await send(agent, port, { method: 'GET', path: p, headers: HEADERS })).body;
  } finally {
    agent.destroy();
  }
}

/** Attempts the receiver refused so far (webhook_deliveries_total, outcomes retried and failed). */
async function refused(port: number): Promise<number> {
  const metrics = await get(port, '/metrics');
  let sum = 0;
  for (const m of metrics.matchAll(/^webhook_deliveries_total\{hook="dead",outcome="(?:retried|failed)"\} (\d+)/gm)) sum += Number(m[1]);
  return sum;
}

async function view(port: number): Promise<{ waiting: number; cursor: number; head: number }> {
  return (JSON.parse(await get(port, '/v1/admin/webhooks')) as { data: { waiting: number; cursor: number; head: number }[] }).data[0];
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

/** Actions of players of their own (the receiver being dead, each adds a waiting delivery). */
async function throughput(port: number, tag: string): Promise<number> {
  const random = prng(7);
  let n = 0;
  const result = await closedLoop({ port, connections: 10, warmupMs: 1000, durationMs: THROUGHPUT_SECONDS * 1000, next: () => ({ method: 'POST', path: '/v1/action/process', body: JSON.stringify(actionBody(playerId(tag, 1_000_000 + n), `${tag}-t${n++}`, random, 'play')), headers: HEADERS }) });
  return result.requests / THROUGHPUT_SECONDS;
}

async function main(): Promise<void> {
  const deliveries = Number(process.argv[2] ?? 10_000);
  const seconds = Number(process.argv[3] ?? 30);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dead-receiver-'));
  const webhooks = path.join(dir, 'webhooks.yaml');
  fs.writeFileSync(webhooks, YAML.stringify({ webhooks: [{ name: 'dead', url: `http://127.0.0.1:${await closedPort()}/hooks`, secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`, events: ['ActionProcessed'] }] }));
  const child = await startChild(path.join(__dirname, 'server.ts'), {
    env: { BENCH_DATA_DIR: path.join(dir, 'data'), BENCH_CATALOG: BENCH_CATALOG_FILE, BENCH_KEYS: writeKeysFile(dir), BENCH_WEBHOOKS: webhooks },
    logFile: path.join(dir, 'server.log'),
  });
  const port = child.ready.port as number;
  const tag = runTag();
  const say = (line: string) => process.stdout.write(`${line}\n`);
  try {
    const before = await idle(child, port, seconds);
    say(`nothing waiting: idle CPU ${before.cpuPercent.toFixed(1)} % over ${seconds} s, ${before.attempts} attempts`);

    const random = prng(42);
    let n = 0;
    const next = (): RequestSpec | null => (n < deliveries ? { method: 'POST', path: '/v1/action/process', body: JSON.stringify(actionBody(playerId(tag, n), `${tag}-r${n++}`, random, 'play')), headers: HEADERS } : null);
    await runAll({ port, connections: 10, next });
    // Queued once the dispatcher has caught up with the log (every lane's first attempt made),
    // reached the backlog bound, or stopped attempting (its webhook paused): nothing changes
    // between two looks 5 s apart.
    const deadline = Date.now() + 10 * 60_000;
    let last = '';
    for (;;) {
      const v = await view(port);
      const seen = `${v.cursor} ${v.waiting} ${await refused(port)}`;
      if (v.cursor >= v.head || v.waiting >= 10_000 || seen === last) break;
      if (Date.now() > deadline) throw new Error(`backlog not queued after 10 minutes: ${seen}`);
      last = seen;
      await new Promise((resolve) => setTimeout(resolve, 5000));
    }
    const { cursor, head, waiting } = await view(port);
    say(`queued ${deliveries} actions: ${waiting} deliveries waiting, cursor ${cursor} of head ${head}`);
    const after = await idle(child, port, seconds);
    say(`backlog waiting: idle CPU ${after.cpuPercent.toFixed(1)} % over ${seconds} s, ${after.attempts} attempts`);
    say(`backlog waiting: ${(await throughput(port, tag)).toFixed(0)} actions/s (10 connections, ${THROUGHPUT_SECONDS} s; each adds a waiting delivery)`);
  } finally {
    await child.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
