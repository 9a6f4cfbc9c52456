/**
 * What one long export costs everyone else (issue 45, point 5): one player's history of `events`
 * events is made by the real decider and written straight into the store (as figure 5's), the
 * service under test (bench/server.ts, as `npm start` runs it) is started over it; then `GET
 * /v1/admin/players/{playerId}/export` is asked `rounds` times while a second connection asks
 * `/health` one request after another: the export's time and size, and how long /health waited
 * meanwhile (p50, p99, max over all rounds).
 * `npx tsx bench/export-health.ts [events=45000] [rounds=5] [data dir]`: with a data directory, the
 * history is seeded there and kept (its player's id in `player`), and a next run over it seeds nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChild } from './ipc';
import { newAgent, percentile, send, sortedOf } from './load';
import { BENCH_CATALOG_FILE, playerId, runTag, SERVER_KEY, writeKeysFile } from './workload';

const HEADERS = { AuthKey: SERVER_KEY };

async function main(): Promise<void> {
  const events = Number(process.argv[2] ?? 45_000);
  const rounds = Number(process.argv[3] ?? 5);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-health-'));
  const dataDir = process.argv[4] ? path.resolve(process.argv[4]) : path.join(dir, 'data');
  const playerFile = path.join(dataDir, 'player');
  let player: string;
  if (fs.existsSync(playerFile)) player = fs.readFileSync(playerFile, 'utf8');
  else {
    player = playerId(runTag(), 1);
    const worker = await startChild(path.join(__dirname, 'worker.ts'), { logFile: path.join(dir, 'worker.log') });
    try {
      await worker.ask('seed-history', { dataDir, catalogFile: BENCH_CATALOG_FILE, player, events });
    } finally {
      await worker.stop();
    }
    fs.writeFileSync(playerFile, player);
  }
  const child = await startChild(path.join(__dirname, 'server.ts'), {
    env: { BENCH_DATA_DIR: dataDir, BENCH_CATALOG: BENCH_CATALOG_FILE, BENCH_KEYS: writeKeysFile(dir) },
    logFile: path.join(dir, 'server.log'),
  });
  const port = child.ready.port as number;
  const say = (line: string) => process.stdout.write(`${line}\n`);
  try {
    const healthMs: number[] = [];
    let cutOff = 0;
    const exportMs: number[] = [];
    let bytes = 0;
    let actions = 0;
    for (let round = 0; round < rounds; round++) {
      // Fresh connections each round: a kept-alive one may have been closed by the server meanwhile.
      const exportAgent = newAgent(1);
      const healthAgent = newAgent(1);
      let exporting = true;
      const health = (async () => {
        while (exporting) {
          const t0 = performance.now();
          // A request the server cut off (its headers timed out while the event loop was held) is counted, and waited the same.
          await send(healthAgent, port, { method: 'GET', path: '/health' }).catch(() => cutOff++);
          healthMs.push(performance.now() - t0);
        }
      })();
      const t0 = performance.now();
      const answer = await send(exportAgent, port, {
        method: 'GET',
        path: `/v1/admin/players/${player}/export`,
        headers: HEADERS,
      });
      exportMs.push(performance.now() - t0);
      exporting = false;
      await health;
      if (answer.status !== 200) throw new Error(`export answered ${answer.status}: ${answer.body.slice(0, 200)}`);
      actions = (JSON.parse(answer.body) as { data: { actions: unknown[] } }).data.actions.length;
      bytes = Buffer.byteLength(answer.body);
      exportAgent.destroy();
      healthAgent.destroy();
    }
    const sortedHealth = sortedOf(healthMs);
    const sortedExport = sortedOf(exportMs);
    say(
      `export of ${actions} actions (${events} events): ${(bytes / 1e6).toFixed(1)} MB, p50 ${percentile(sortedExport, 50).toFixed(0)} ms over ${rounds} rounds`,
    );
    say(
      `/health meanwhile (${healthMs.length} requests): p50 ${percentile(sortedHealth, 50).toFixed(1)} ms, p99 ${percentile(sortedHealth, 99).toFixed(1)} ms, max ${sortedHealth[sortedHealth.length - 1].toFixed(1)} ms, ${cutOff} cut off by the server`,
    );
  } finally {
    await child.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
