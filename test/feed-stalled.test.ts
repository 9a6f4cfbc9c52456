/**
 * The live feed under clients that never read (docs/feed-and-webhooks.md, "Event feed"): each stream writes its
 * next message only once the last has left the process, so 50 stalled clients on a 25 MiB log
 * hold little memory and leave /health answering; a client that reads nothing for LIVE_STALL_MS
 * is dropped with a log line; a key holds at most MAX_LIVE_STREAMS_PER_KEY streams at once.
 * The service runs in its own process, so that its resident memory is measured alone.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { STORE_FORMAT } from '../app/store-format';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { LIVE_STALL_MS, MAX_LIVE_STREAMS_PER_KEY } from '../shared/adapters/http/route';
import { idempotencyStream, STORE_FORMAT_STREAM } from '../domain/streams';
import { eventually, startServerProcess, stopProcess, type ChildServer } from './support/process';
import { tempDir } from './support/service';

const CLIENTS = 50;
const KEYS = Array.from({ length: CLIENTS / MAX_LIVE_STREAMS_PER_KEY }, (_, i) => `stall-key-${i}-0123456789abcdef`);
const LOG_BYTES = 25 * 1024 * 1024;
const metadata = { correlationId: 'fill', causationId: 'fill', keyName: 'backend', catalogVersion: 1 };

/** A log of about `bytes`: recorded answers of ~1 KiB, which no projector reads. */
async function fillLog(dataDir: string, bytes: number): Promise<void> {
  const store = new SqliteEventStore(path.join(dataDir, 'events.sqlite'));
  await store.appendToStreams([
    {
      stream: STORE_FORMAT_STREAM,
      events: [{ id: randomUUID(), type: 'StoreFormatDeclared', data: { version: STORE_FORMAT }, metadata }],
      expectedRevision: 'no_stream',
    },
  ]);
  const answer = 'x'.repeat(1000);
  const perStream = 200;
  for (let written = 0, n = 0; written < bytes; n++) {
    const events = Array.from({ length: perStream }, () => ({
      id: randomUUID(),
      type: 'IdempotentRequestRecorded',
      data: {
        keyName: 'backend',
        idempotencyKey: `k-${n}`,
        fingerprint: 'f',
        outcome: { ok: true, answer },
        recordedAt: 0,
      },
      metadata,
    }));
    await store.appendToStreams([{ stream: idempotencyStream('backend', `k-${n}`), events, expectedRevision: 'any' }]);
    written += perStream * 1100;
  }
  await store.close();
}

const rssMiB = (pid: number): number =>
  Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function healthMs(url: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(60_000) });
  expect(res.status).toBe(200);
  return performance.now() - started;
}

/** A client that asks for the whole log live and then reads nothing (its socket buffer fills, then the server's). */
function stalledClient(port: number, key: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`GET /v1/feed/live?after=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthKey: ${key}\r\n\r\n`);
      resolve(socket);
    });
    socket.on('error', reject);
    socket.pause();
  });
}

/** The status line of the answer to a live request; the connection is then closed. */
function statusOf(port: number, key: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.write(`GET /v1/feed/live?after=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthKey: ${key}\r\n\r\n`),
    );
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      text += d;
      if (!text.includes('\r\n')) return;
      resolve(text.split('\r\n')[0]);
      socket.destroy();
    });
    socket.on('error', reject);
  });
}

describe('the live feed with clients that never read', () => {
  let service: ChildServer;
  const sockets: net.Socket[] = [];
  beforeAll(async () => {
    const dataDir = tempDir();
    await fillLog(dataDir, LOG_BYTES);
    const keysFile = path.join(dataDir, 'keys.yaml');
    fs.writeFileSync(
      keysFile,
      `keys:\n${KEYS.map((key, i) => `  - { name: analyst-${i}, tier: Server, key: "${key}" }`).join('\n')}\n`,
    );
    service = await startServerProcess({ DATA_DIR: dataDir, API_KEYS_FILE: keysFile });
  }, 180_000);
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    if (service) await stopProcess(service.child);
  });

  it(
    `${CLIENTS} stalled clients on a 25 MiB log hold little memory, /health keeps answering, and each is dropped after it read nothing for a while`,
    async () => {
      // Settled: the projectors have caught up with the log (a read at its head answers), then the
      // resident memory before the clients come.
      const auth = { AuthKey: KEYS[0] };
      const head = (
        (await (await fetch(`${service.url}/v1/feed/events?limit=1`, { headers: auth })).json()) as {
          data: { head: number };
        }
      ).data.head;
      await eventually(
        async () => {
          const res = await fetch(`${service.url}/v1/admin/actions`, {
            headers: { ...auth, 'X-Min-Position': String(head) },
          });
          if (res.status !== 200) throw new Error(`read models behind position ${head}`);
        },
        120_000,
        500,
      );
      for (let i = 0; i < 5; i++) await healthMs(service.url);
      const before = rssMiB(service.child.pid!);
      for (const key of KEYS)
        for (let i = 0; i < MAX_LIVE_STREAMS_PER_KEY; i++) sockets.push(await stalledClient(service.port, key));
      // One more stream for a key that holds its share is refused.
      expect(await statusOf(service.port, KEYS[0])).toBe('HTTP/1.1 429 Too Many Requests');

      // While they stall: sample memory and /health for a while.
      let peak = before;
      const health: number[] = [];
      const watchUntil = Date.now() + 10_000;
      while (Date.now() < watchUntil) {
        health.push(await healthMs(service.url));
        peak = Math.max(peak, rssMiB(service.child.pid!));
        // The sampling interval of a 10 s window being measured, not a wait for a condition
        // (listed in test/no-fixed-sleeps.test.ts).
        await new Promise((r) => setTimeout(r, 200)); // fixed on purpose: the sampling interval
      }
      health.sort((a, b) => a - b);
      const median = health[Math.floor(health.length / 2)];
      console.log(
        `live feed, ${CLIENTS} stalled clients on a ${LOG_BYTES / 1024 / 1024} MiB log: RSS ${before.toFixed(0)} -> peak ${peak.toFixed(0)} MiB (+${(peak - before).toFixed(0)}), /health p50 ${median.toFixed(1)} ms, max ${health[health.length - 1].toFixed(1)} ms`,
      );
      // The target is +100 MiB and /health < 100 ms (measured as printed above); the bounds here leave room for a loaded machine.
      expect(peak - before).toBeLessThan(150);
      expect(median).toBeLessThan(1_000);

      // Each stalled client is dropped, with a log line, once it has read nothing for LIVE_STALL_MS.
      await eventually(
        async () => {
          const dropped = service
            .output()
            .split('\n')
            .filter((line) => line.includes('live stream dropped')).length;
          if (dropped < CLIENTS) throw new Error(`${dropped} of ${CLIENTS} dropped`);
        },
        LIVE_STALL_MS + 60_000,
        500,
      );
      // Their streams are closed: the keys may open new ones.
      expect(await statusOf(service.port, KEYS[0])).toBe('HTTP/1.1 200 OK');
    },
    LIVE_STALL_MS + 150_000,
  );
});
