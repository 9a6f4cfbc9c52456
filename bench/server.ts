/**
 * Child process: the all-in-one service (startService) on the embedded adapters, as `npm start`
 * runs it, on a port of its own. Started by bench/run.ts with:
 *   BENCH_DATA_DIR, BENCH_CATALOG, BENCH_KEYS, BENCH_LOG_LEVEL, BENCH_WEBHOOKS  the service's own settings (docs/configuration.md)
 *   BENCH_PLAIN_PERSONAL_DATA=1  the personal-data codec neither encrypts nor decrypts (figure 1's
 *                      comparison, BENCH_COMPARE_ENCRYPTION); the service itself has no such setting
 *   BENCH_TRACK_LAG=1  record, for each player-stream append, the time from its commit until the
 *                      projection runner has handled it (figure 3)
 * and answers IPC requests: stats, heap-snapshot, lag-start, lag-stop, profile-start, profile-stop, stop.
 */
import type { AddressInfo } from 'node:net';
import v8 from 'node:v8';
import { readRunConfig } from '../shared/adapters/config/env';
import { PersonalDataCodec } from '../shared/adapters/event-store/personal-data';
import type { RecordedEvent } from '../shared/adapters/event-store/port';
import { createStdoutLogger } from '../shared/adapters/logging/logger';
import { startService } from '../app/service';
import { cpuMicros, serveIpc } from './ipc';
import { startCpuProfile, type CpuProfile } from './profile';

/**
 * The codec's two private steps made pass-throughs, so that only its encryption, decryption and
 * key lookups are left out; checked, so that a renamed step fails here rather than measure nothing.
 */
function plainPersonalData(): void {
  const codec = PersonalDataCodec.prototype as unknown as Record<string, unknown>;
  if (typeof codec.encrypted !== 'function' || typeof codec.decrypted !== 'function')
    throw new Error('BENCH_PLAIN_PERSONAL_DATA: the codec has no encrypted/decrypted steps any more');
  codec.encrypted = async (_type: string, data: unknown) => data;
  codec.decrypted = async (event: RecordedEvent) => event;
}

async function main(): Promise<void> {
  if (process.env.BENCH_PLAIN_PERSONAL_DATA === '1') plainPersonalData();
  // The service's other settings (PLAYER_CACHE_SIZE, ...) come from the environment, as in production.
  const config = readRunConfig({
    ...process.env,
    PORT: '0',
    DATA_DIR: process.env.BENCH_DATA_DIR,
    CATALOG_FILE: process.env.BENCH_CATALOG,
    API_KEYS_FILE: process.env.BENCH_KEYS,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'info',
    WEBHOOKS_FILE: process.env.BENCH_WEBHOOKS,
  });
  const log = createStdoutLogger(config.logLevel, 'json');
  const started = performance.now();
  const service = await startService({ config, log });
  const startupMs = performance.now() - started;
  const server = await service.listen(0);

  // Figure 3: commit -> projected, per player-stream append. The runner has no hook for this, so
  // the bench wraps this process's EventStore instance and uses the runner's public waitFor.
  let lags: number[] | null = null;
  let lagPending = 0;
  if (process.env.BENCH_TRACK_LAG === '1') {
    const events = service.events;
    const append = events.appendToStreams.bind(events);
    events.appendToStreams = async (appends) => {
      const result = await append(appends);
      if (lags && appends.some((a) => a.stream.startsWith('player-'))) {
        const committed = performance.now();
        const into = lags;
        lagPending++;
        void service.projections.waitFor(result.position, 60_000).then((projected) => {
          lagPending--;
          into.push(projected ? performance.now() - committed : Number.POSITIVE_INFINITY);
        });
      }
      return result;
    };
  }

  // BENCH_TRACE_STORE=1: time spent in the EventStore per operation and stream kind.
  const storeTrace: Record<string, { calls: number; ms: number; events: number }> = {};
  if (process.env.BENCH_TRACE_STORE === '1') {
    const events = service.events as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const kindOf = (stream: string) => stream.replace(/-[^]*$/, '');
    for (const op of ['appendToStreams', 'readStream', 'streamRevision', 'readAll', 'headPosition']) {
      const original = events[op].bind(service.events);
      events[op] = async (...args: unknown[]) => {
        const appends = op === 'appendToStreams' ? (args[0] as { stream: string; events: unknown[] }[]) : [];
        // An atomic append is named by the kinds of the streams it writes together.
        const streams =
          op === 'appendToStreams'
            ? appends.map((a) => kindOf(a.stream)).join('+')
            : typeof args[0] === 'string'
              ? kindOf(args[0])
              : '';
        const kind = `${op} ${streams}`.trim();
        const t0 = performance.now();
        try {
          return await original(...args);
        } finally {
          const entry = (storeTrace[kind] ??= { calls: 0, ms: 0, events: 0 });
          entry.calls++;
          entry.ms += performance.now() - t0;
          for (const a of appends) entry.events += a.events.length;
        }
      };
    }
  }

  let stopProfile: ((file: string) => Promise<CpuProfile>) | null = null;

  serveIpc(
    {
      cpu: () => cpuMicros(),
      stats: async (request) => {
        if (request.gc && typeof global.gc === 'function') global.gc();
        const usage = process.resourceUsage();
        const mem = process.memoryUsage();
        return {
          maxRssBytes: usage.maxRSS * 1024,
          rssBytes: mem.rss,
          heapUsedBytes: mem.heapUsed,
          heapTotalBytes: mem.heapTotal,
          externalBytes: mem.external,
          projectedPosition: service.projections.position,
          headPosition: await service.events.headPosition(),
          userCpuMs: usage.userCPUTime / 1000,
          systemCpuMs: usage.systemCPUTime / 1000,
          storeTrace,
        };
      },
      // After a full collection, so that the snapshot holds what is live (the snapshot collects anyway).
      'heap-snapshot': (request) => {
        if (typeof global.gc === 'function') global.gc();
        return { file: v8.writeHeapSnapshot(String(request.file)) };
      },
      'lag-start': () => {
        lags = [];
      },
      'lag-stop': async () => {
        const deadline = Date.now() + 10_000;
        while (lagPending > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        const out = lags ?? [];
        lags = null;
        return out;
      },
      'profile-start': async (request) => {
        stopProfile = await startCpuProfile(Number(request.intervalUs ?? 250));
      },
      'profile-stop': async (request) => {
        if (!stopProfile) throw new Error('no profile running');
        const stop = stopProfile;
        stopProfile = null;
        await stop(String(request.file));
        return { file: request.file };
      },
      stop: async () => {
        await service.close();
        process.exit(0);
      },
    },
    { port: (server.address() as AddressInfo).port, startupMs, headPosition: await service.events.headPosition() },
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
