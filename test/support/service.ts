import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import request from 'supertest';
import { readRunConfig } from '../../shared/adapters/config/env';
import { startService, type RunningService } from '../../app/service';
import { backing, type Backing } from './backing';
import { conformanceTo, type Conformance } from './conformance';

export const KEYS = {
  server: 'server-key-0123456789abcdef',
  mobile: 'mobile-key-0123456789abcdef',
  client: 'client-key-0123456789abcdef',
  bare: 'bare-client-key-0123456789',
  auditor: 'auditor-key-0123456789abcdef',
} as const;

export interface TestService {
  service: RunningService;
  dataDir: string;
  http: ReturnType<typeof request>;
  /** Stops the service and deletes what it kept outside its data directory. */
  close(): Promise<void>;
  /** Stops the service, keeping everything it stored, and starts it again on it (with `changes` to its options). */
  restart(changes?: Partial<TestServiceOptions>): Promise<TestService>;
}

interface TestServiceOptions {
  catalogYaml?: string;
  env?: Record<string, string>;
  now?: () => number;
  /** The service's randomness (default: the CSPRNG): a seeded one makes draws repeatable. */
  random?: () => number;
  /** A data directory of the test's (default: a fresh one). */
  dataDir?: string;
  /** Where the service logs (default: nowhere). */
  log?: Logger;
}

export function tempDir(prefix = 'gam-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Writes the keys file every HTTP test uses: one key per tier, the Server one unlimited. */
export function writeKeysFile(dir: string): string {
  const file = path.join(dir, 'keys.yaml');
  fs.writeFileSync(
    file,
    [
      'keys:',
      `  - { name: backend, tier: Server, key: "${KEYS.server}", rateLimit: { perSecond: 0 } }`,
      `  - { name: app, tier: Mobile, key: "${KEYS.mobile}" }`,
      `  - { name: web, tier: Client, key: "${KEYS.client}", tenantDomains: ["play.example.com"] }`,
      `  - { name: bare, tier: Client, sha256: "${createHash('sha256').update(KEYS.bare).digest('hex')}" }`,
      `  - { name: books, tier: Auditor, key: "${KEYS.auditor}" }`,
    ].join('\n'),
  );
  return file;
}

/**
 * The all-in-one service on a fresh data directory, with the demo catalog unless one is given; its
 * jobs and rate limits on Redis in the "redis" test project (support/backing.ts).
 */
export function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  return startOn(options.dataDir ?? tempDir(), backing(), options);
}

async function startOn(dataDir: string, stores: Backing, options: TestServiceOptions): Promise<TestService> {
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    API_KEYS_FILE: writeKeysFile(dataDir),
    ...stores.env,
    ...options.env,
  };
  if (options.catalogYaml) {
    const file = path.join(dataDir, 'catalog.yaml');
    fs.writeFileSync(file, options.catalogYaml);
    env.CATALOG_FILE = file;
  }
  const service = await startService({
    config: readRunConfig(env),
    log: options.log ?? pino({ level: 'silent' }),
    now: options.now,
    random: options.random,
  });
  const conformance = conformanceTo((await request(service.app).get('/openapi.json')).body);
  return {
    service,
    dataDir,
    http: checkedBy(request(service.app), conformance),
    async close() {
      await service.close();
      await stores.release();
    },
    async restart(changes = {}) {
      await service.close();
      return startOn(dataDir, stores, { ...options, ...changes });
    },
  };
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);

/** The same requests, each answer also checked against the OpenAPI document (support/conformance.ts). */
function checkedBy(http: ReturnType<typeof request>, conformance: Conformance): ReturnType<typeof request> {
  return new Proxy(http, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string' || !METHODS.has(prop) || typeof value !== 'function') return value;
      return (url: string) => value.call(target, url).expect((res: request.Response) => conformance.check(res));
    },
  });
}

export const server = { AuthKey: KEYS.server };
export const mobile = { AuthKey: KEYS.mobile };
export const client = { AuthKey: KEYS.client, 'X-Tenant-Domain': 'play.example.com' };
export const auditor = { AuthKey: KEYS.auditor };
