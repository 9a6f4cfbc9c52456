import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import { readRunConfig } from '../shared/adapters/config/env';
import { StoreUnavailableError } from '../shared/adapters/event-store/port';
import { createStdoutLogger, effectiveLogFormat } from '../shared/adapters/logging/logger';
import { CONSOLE_PATH } from '../read-api/console/route';
import { KIT_PATH } from '../read-api/kit/route';
import { PUBLIC_PATHS } from '../shared/adapters/http/app';
import { DEFAULT_PORTS, ROLES, serves, type Role } from './roles';
import { ConfigurationError } from './configuration-error';
import { startService, type RunningService } from './service';

/**
 * `npm start`: the whole service in one process on the embedded stores, on port 8080;
 * `npm run start:command`, `start:read` and `start:projector` run one role each, on 8081, 8082
 * and 8083 unless PORT says otherwise. A start that fails ends with exit code 1 and lines saying
 * what is wrong and what to do, never a stack trace.
 */
async function main(): Promise<void> {
  const role = (process.argv[2] ?? 'all') as Role;
  if (!ROLES.includes(role)) {
    console.error(`unknown role "${role}": use one of ${ROLES.join(', ')}`);
    process.exit(2);
  }
  let config;
  try {
    config = readRunConfig(process.env, DEFAULT_PORTS[role]);
  } catch (e) {
    console.error((e as Error).message);
    process.exit(1);
  }
  const log = createStdoutLogger(config.logLevel, effectiveLogFormat(config.logFormat, process.stdout.isTTY === true));
  // Until the service listens, a signal ends the process at once, as it would by default: run as a
  // container's first process, node has no default handlers, and the signal would be ignored.
  const duringStart = (signal: NodeJS.Signals) => process.exit(128 + os.constants.signals[signal]);
  process.once('SIGTERM', duringStart);
  process.once('SIGINT', duringStart);
  let service: RunningService | undefined;
  let port = config.port;
  try {
    // A port already taken stops the start before anything else is opened (and warns about it).
    await portIsFree(config.port, config.host);
    service = await startService({ config, log, role });
    port = ((await service.listen()).address() as AddressInfo).port;
  } catch (e) {
    await service?.close();
    cannotStart(e, config.port, config.host);
  }
  const url = `http://${urlHost(config.host)}:${port}`;
  const pages = [
    ...(serves(role, CONSOLE_PATH) ? [`the console at ${url}${CONSOLE_PATH}`] : []),
    ...(serves(role, KIT_PATH) ? [`the web components' demo at ${url}${KIT_PATH}`] : []),
    `the API reference at ${url}${PUBLIC_PATHS.docs}`,
  ];
  log.info(
    { role, url, dataDir: config.dataDir, catalogFile: config.catalogFile },
    `Gamification service (${role}) listening on ${url}: ${pages.join(', ')}`,
  );
  // Graceful: stop taking requests, let the ones in flight finish, close subscriptions and stores.
  const stop = async () => {
    log.info({ role }, 'shutting down');
    await service.close();
    process.exit(0);
  };
  process.off('SIGTERM', duringStart);
  process.off('SIGINT', duringStart);
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

/** Resolves when `port` can be listened on at `host` (as the service will); rejects as listen would. */
function portIsFree(port: number, host: string): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

/** How a browser on this machine reaches the service: localhost for loopback and every interface. */
function urlHost(host: string): string {
  if (['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost'].includes(host)) return 'localhost';
  return net.isIPv6(host) ? `[${host}]` : host;
}

function cannotStart(e: unknown, port: number, host: string): never {
  if (e instanceof ConfigurationError) {
    console.error('Cannot start: fix these problems and start again:');
    for (const p of e.problems) console.error(`  ${p}`);
  } else if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    console.error(
      `Cannot start: port ${port} is already in use; stop the process that holds it, or set PORT to a free port`,
    );
  } else if ((e as NodeJS.ErrnoException).code === 'EACCES' && (e as NodeJS.ErrnoException).syscall === 'listen') {
    console.error(`Cannot start: port ${port} may not be listened on by this user; set PORT to a port above 1023`);
  } else if (['EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN'].includes((e as NodeJS.ErrnoException).code ?? '')) {
    console.error(
      `Cannot start: HOST ${host} is not an address of this machine; set HOST to one (0.0.0.0: every interface)`,
    );
  } else if (e instanceof StoreUnavailableError) {
    // Its message says what is wrong with the store and what to do.
    console.error(`Cannot start: ${e.message}`);
  } else {
    console.error(`Cannot start: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  }
  process.exit(1);
}

void main();
