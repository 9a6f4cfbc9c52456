/**
 * /health while a pathological draft is simulated (issue 45): writes a log of `events` player
 * events (default 146,000) as figure 4 does, starts the service over it in a child, then for each
 * draft asks `POST /v1/audit/simulate` (the client gives up after CLIENT_TIMEOUT_S, default 60)
 * while a second client asks `GET /health` one request after another, and prints the answer,
 * /health's latency (p50, p99, max) until the service is idle again, and the child's peak heap
 * and RSS, and the service's simulations_total. A draft is the bench catalog plus one of:
 *   ranked:BADGESxRANKS     Ranked badges on `purchase`, over one rank set of RANKS ranks
 *   boards:N                all-time points boards
 *   missions:NxSTEPS        missions of STEPS steps on `purchase` and `play`
 * `npx tsx bench/simulate-health.ts [events] [draft ...]` (default: ranked:500x1000 boards:1000
 * missions:500x20). The service's settings come from the environment (SIMULATE_MAX_HEAP_MB).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { startChild, type Child } from './ipc';
import { BENCH_CATALOG_FILE, SERVER_KEY, writeKeysFile } from './workload';

const CLIENT_TIMEOUT_MS = Number(process.env.CLIENT_TIMEOUT_S ?? 60) * 1000;
/** How long /health is followed after the simulation's answer, or after the client gave up. */
const AFTER_MS = 15_000;

type Catalog = Record<string, unknown[] | unknown>;

function draftOf(base: Catalog, spec: string): Catalog {
  const [kind, size = ''] = spec.split(':');
  const [n, m] = size.split('x').map(Number);
  const list = (key: string) => base[key] as unknown[];
  const times = (count: number) => Array.from({ length: count }, (_, i) => i);
  switch (kind) {
    case 'ranked':
      return {
        ...base,
        rankSets: [
          ...list('rankSets'),
          {
            uid: 'rs-many',
            label: 'Many',
            ranks: times(m).map((i) => ({ rank: i + 1, label: `R${i}`, times: i + 1 })),
          },
        ],
        badges: [
          ...list('badges'),
          ...times(n).map((i) => ({
            uid: `b-ranked-${i}`,
            label: `Ranked ${i}`,
            type: 'Ranked',
            rankSet: 'rs-many',
            conditions: [{ action: 'purchase' }],
          })),
        ],
      };
    case 'boards':
      return {
        ...base,
        leaderboards: [
          ...list('leaderboards'),
          ...times(n).map((i) => ({ uid: `lb-many-${i}`, label: `Board ${i}`, type: 0 })),
        ],
      };
    case 'missions':
      return {
        ...base,
        missions: times(n).map((i) => ({
          uid: `m-${i}`,
          label: `Mission ${i}`,
          steps: times(m).map((s) => ({
            uid: `s-${s}`,
            label: `Step ${s}`,
            condition: { action: s % 2 ? 'play' : 'purchase', challenge: { times: s + 1 } },
          })),
        })),
      };
    default:
      throw new Error(`unknown draft ${spec}: ranked:BADGESxRANKS, boards:N or missions:NxSTEPS`);
  }
}

interface Stats {
  heapUsedBytes: number;
  rssBytes: number;
}

async function simulateWithHealth(service: Child, base: string, draft: Catalog): Promise<void> {
  const latencies: number[] = [];
  let peakHeap = 0;
  let peakRss = 0;
  let answered: string | null = null;
  let idleAt = Number.POSITIVE_INFINITY;
  let answeredAt = Number.NaN;
  const started = performance.now();
  const body = JSON.stringify({ catalog: draft, top: 10 });
  const client = new AbortController();
  const giveUp = setTimeout(() => client.abort(), CLIENT_TIMEOUT_MS);
  const request = fetch(`${base}/v1/audit/simulate`, {
    method: 'POST',
    headers: { AuthKey: SERVER_KEY, 'Content-Type': 'application/json' },
    body,
    signal: client.signal,
  })
    .then(async (res) => {
      const text = await res.text();
      answered = `HTTP ${res.status} ${text.slice(0, 160)}`;
      answeredAt = performance.now();
    })
    .catch((error: Error) => {
      answeredAt = performance.now();
      answered = `no answer (${error.name === 'AbortError' ? `client gave up after ${CLIENT_TIMEOUT_MS / 1000} s` : error.message})`;
    })
    .finally(() => {
      clearTimeout(giveUp);
      idleAt = performance.now() + AFTER_MS;
    });
  let alive = true;
  const meter = (async () => {
    while (performance.now() < idleAt && alive) {
      const t0 = performance.now();
      try {
        await fetch(`${base}/health`, { signal: AbortSignal.timeout(120_000) }).then((r) => r.text());
        latencies.push(performance.now() - t0);
        const s = await service.ask<Stats>('stats', {}, 120_000);
        peakHeap = Math.max(peakHeap, s.heapUsedBytes);
        peakRss = Math.max(peakRss, s.rssBytes);
      } catch (error) {
        // Unanswered for two minutes, or the service is gone: counted as waited for.
        latencies.push(performance.now() - t0);
        alive = false;
        answered ??= `/health or the service stopped answering (${(error as Error).message.split('\n')[0]})`;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  await Promise.all([request, meter]);
  const metrics = alive
    ? (await (await fetch(`${base}/metrics`, { headers: { AuthKey: SERVER_KEY } })).text())
        .split('\n')
        .filter((line) => line.startsWith('simulations_total{'))
        .join(', ')
    : '';
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  const mib = (b: number) => `${Math.round(b / 1024 ** 2)} MiB`;
  console.log(`  ${answered}, after ${((answeredAt - started) / 1000).toFixed(1)} s${metrics && `; ${metrics}`}`);
  console.log(
    `  /health: ${latencies.length} answers, p50 ${at(50).toFixed(1)} ms, p99 ${at(99).toFixed(1)} ms, max ${at(100).toFixed(1)} ms; peak heap ${mib(peakHeap)}, peak RSS ${mib(peakRss)}`,
  );
}

async function main(): Promise<void> {
  const events = Number(process.argv[2] ?? 146_000);
  const specs = process.argv.slice(3).length
    ? process.argv.slice(3)
    : ['ranked:500x1000', 'boards:1000', 'missions:500x20'];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'simulate-health-'));
  const worker = await startChild(path.join(__dirname, 'worker.ts'), { logFile: path.join(dir, 'worker.log') });
  try {
    await worker.ask(
      'generate',
      { file: path.join(dir, 'events.sqlite'), catalogFile: BENCH_CATALOG_FILE, events },
      3_600_000,
    );
  } finally {
    await worker.stop();
  }
  const base = parse(fs.readFileSync(BENCH_CATALOG_FILE, 'utf8')) as Catalog;
  try {
    for (const spec of specs) {
      const service = await startChild(path.join(__dirname, 'server.ts'), {
        env: {
          BENCH_DATA_DIR: dir,
          BENCH_CATALOG: BENCH_CATALOG_FILE,
          BENCH_KEYS: writeKeysFile(dir),
          BENCH_LOG_LEVEL: 'warn',
        },
        logFile: path.join(dir, 'server.log'),
        readyTimeoutMs: 600_000,
      });
      console.log(`${spec} over ${events.toLocaleString('en-US')} events:`);
      try {
        await simulateWithHealth(service, `http://127.0.0.1:${Number(service.ready.port)}`, draftOf(base, spec));
      } finally {
        await service.stop().catch(() => undefined);
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
