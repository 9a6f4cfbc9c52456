import type { AddressInfo } from 'node:net';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { startService } from '../app/service';
import { readRunConfig } from '../shared/adapters/config/env';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { FileBackedReadStore } from '../shared/adapters/read-store/file-backed';
import { server, startTestService, tempDir } from './support/service';
import { childEnv } from './support/process';

const root = path.resolve(__dirname, '..');
/** `app/main.ts` as `npm start` runs it: tsx as a loader in one node process (the tsx command would start a second). */
const main = ['--import', 'tsx', path.join(root, 'app', 'main.ts')];

describe('start-up', () => {
  it('refuses a bad catalog with one line per problem, exit code 1, and publishes nothing', () => {
    const dir = tempDir();
    const catalog = path.join(dir, 'bad.yaml');
    fs.writeFileSync(
      catalog,
      `version: 1
actions: [{ uid: act-a, identifier: a, points: -1 }]
badges: [{ uid: b-x, label: X, type: Ranked, rankSet: nope, conditions: [{ action: missing }] }]
`,
    );
    const run = spawnSync(process.execPath, main, {
      env: childEnv({ DATA_DIR: dir, CATALOG_FILE: catalog, PORT: '0' }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('actions[0].points');
    expect(run.stderr).toContain('badges[0].rankSet');
    expect(run.stderr).toContain('badges[0].conditions[0].action');
    expect(fs.existsSync(path.join(dir, 'events.sqlite'))).toBe(false);
  });

  it('generates a Server key once, keeps it in DATA_DIR, and keeps data across a restart', async () => {
    const dataDir = tempDir();
    const first = await startTestService({ dataDir, env: { API_KEYS_FILE: '' } });
    const key = first.service.devKey!;
    expect(key).toMatch(/^[0-9a-f]{48}$/);
    expect(fs.readFileSync(path.join(dataDir, 'dev-api-key'), 'utf8').trim()).toBe(key);
    const playerId = '6f1e0c4a-3d2b-4f5e-8a9b-0c1d2e3f4a5b';
    expect(
      (
        await first.http
          .post('/v1/action/process')
          .set({ AuthKey: key })
          .send({ name: 'purchase', referenceId: 'keep-1', playerId })
      ).body.code,
    ).toBe(200);
    await first.close();

    const second = await startTestService({ dataDir, env: { API_KEYS_FILE: '' } });
    try {
      expect(second.service.devKey).toBe(key);
      const profile = await second.http.post('/v1/player/profile').set({ AuthKey: key }).send({ playerId });
      expect(profile.body.data.points).toBe(30);
      const board = await second.http.get('/v1/admin/leaderboards/lb-all').set({ AuthKey: key });
      expect(board.body.data[0].standings).toHaveLength(1);
      // The unchanged catalog was not published again.
      const store = new SqliteEventStore(path.join(dataDir, 'events.sqlite'));
      expect(await store.readStream('catalog')).toHaveLength(1);
      await store.close();
    } finally {
      await second.close();
    }
  });

  it('logs where the generated development key is kept, never the key', async () => {
    const dataDir = tempDir();
    const start = async () => {
      const lines: Array<{ msg: string; keyFile?: string }> = [];
      const written: string[] = [];
      const sink = { write: (line: string) => void (written.push(line), lines.push(JSON.parse(line))) };
      const service = await startService({
        config: readRunConfig({ DATA_DIR: dataDir }),
        log: pino({ level: 'info' }, sink),
      });
      await service.close();
      return { said: lines.filter((l) => l.msg.startsWith('No API_KEYS_FILE')), key: service.devKey!, written };
    };
    const keyFile = path.join(dataDir, 'dev-api-key');
    const first = await start();
    expect(first.said).toEqual([
      expect.objectContaining({
        keyFile,
        msg: `No API_KEYS_FILE: generated a development Server key, kept in ${keyFile} (read it there)`,
      }),
    ]);
    expect(first.written.filter((line) => line.includes(first.key))).toEqual([]);
    const second = await start();
    expect(second.key).toBe(first.key);
    expect(second.said).toEqual([
      expect.objectContaining({
        keyFile,
        msg: `No API_KEYS_FILE: using the development Server key kept in ${keyFile}`,
      }),
    ]);
  });

  it('listens on loopback only unless HOST opens it', async () => {
    const address = async (env: Record<string, string>) => {
      const t = await startTestService({ env });
      try {
        return ((await t.service.listen(0)).address() as AddressInfo).address;
      } finally {
        await t.close();
      }
    };
    expect(await address({})).toBe('127.0.0.1');
    expect(await address({ HOST: '0.0.0.0' })).toBe('0.0.0.0');
  });

  it('publishes a changed catalog as a new version', async () => {
    const dataDir = tempDir();
    const yaml = (points: number) => `version: 1\nactions: [{ uid: act-a, identifier: a, points: ${points} }]\n`;
    const first = await startTestService({ dataDir, catalogYaml: yaml(1) });
    await first.close();
    const second = await startTestService({ dataDir, catalogYaml: yaml(2) });
    try {
      expect(second.service.deps.catalog().version).toBe(2);
      const view = await second.http.get('/v1/admin/actions/act-a').set(server);
      expect(view.body.data[0].points).toBe(2);
    } finally {
      await second.close();
    }
  });
});

describe('the stored format', () => {
  const storeFile = (dataDir: string) => path.join(dataDir, 'events.sqlite');
  const startProcess = (dataDir: string) =>
    spawnSync(process.execPath, main, {
      env: childEnv({ DATA_DIR: dataDir, PORT: '0', API_KEYS_FILE: '' }),
      encoding: 'utf8',
      timeout: 60_000,
    });

  it('is declared in a new store, before anything else is written', async () => {
    const dataDir = tempDir();
    const t = await startTestService({ dataDir });
    await t.close();
    const store = new SqliteEventStore(storeFile(dataDir));
    const [first, second] = await store.readAll({ maxCount: 2 });
    await store.close();
    expect([first.streamName, first.type, first.data]).toEqual(['store-format', 'StoreFormatDeclared', { version: 3 }]);
    expect(second.type).toBe('CatalogPublished');
  });

  it('refuses to start on a store of the earlier format (events, no declaration), in one line saying what to do', async () => {
    const dataDir = tempDir();
    const store = new SqliteEventStore(storeFile(dataDir));
    const metadata = { correlationId: 'old', causationId: 'old', keyName: 'old', catalogVersion: 1 };
    await store.appendToStreams([
      {
        stream: 'reference-r1',
        events: [{ id: crypto.randomUUID(), type: 'ReferenceReserved', data: { referenceId: 'r1' }, metadata }],
        expectedRevision: 'no_stream',
      },
    ]);
    await store.close();
    const run = startProcess(dataDir);
    expect(run.status).toBe(1);
    const problems = run.stderr.split('\n').filter((line) => line.startsWith('  '));
    expect(problems).toEqual([
      '  event store: holds events of an earlier stored format (before format 3), which this version cannot read; start on an empty data directory (DATA_DIR) or a new KurrentDB database',
    ]);
    await expect(startTestService({ dataDir })).rejects.toThrow(/earlier stored format/);
  });

  it('refuses a store declared in a format it does not know', async () => {
    const dataDir = tempDir();
    const store = new SqliteEventStore(storeFile(dataDir));
    const metadata = { correlationId: 'new', causationId: 'new', keyName: 'new', catalogVersion: 1 };
    await store.appendToStreams([
      {
        stream: 'store-format',
        events: [{ id: crypto.randomUUID(), type: 'StoreFormatDeclared', data: { version: 4 }, metadata }],
        expectedRevision: 'no_stream',
      },
    ]);
    await store.close();
    await expect(startTestService({ dataDir })).rejects.toThrow(
      'event store: holds stored format 4, and this version of the service reads format 3 only; run the newer version that wrote it',
    );
  });

  it("lets the projections' worker go when the start fails: the read models file it loaded is free for the next process", async () => {
    const dataDir = tempDir();
    const store = new SqliteEventStore(storeFile(dataDir));
    const metadata = { correlationId: 'new', causationId: 'new', keyName: 'new', catalogVersion: 1 };
    await store.appendToStreams([
      {
        stream: 'store-format',
        events: [{ id: crypto.randomUUID(), type: 'StoreFormatDeclared', data: { version: 4 }, metadata }],
        expectedRevision: 'no_stream',
      },
    ]);
    await store.close();
    await expect(startTestService({ dataDir })).rejects.toThrow(/stored format 4/);
    // The worker, started before the log was opened, had created and held the file; it is closed now.
    const readModels = path.join(dataDir, 'read-models.sqlite');
    expect(fs.existsSync(readModels)).toBe(true);
    const next = new FileBackedReadStore(readModels, () => undefined);
    await next.close();
  });
});

describe('two processes starting on one new store at once', () => {
  it('both start: one publishes the catalog and declares the format, the other finds them', async () => {
    const dataDir = tempDir();
    const [a, b] = await Promise.all([startTestService({ dataDir }), startTestService({ dataDir })]);
    try {
      expect(a.service.deps.catalog().version).toBe(1);
      expect(b.service.deps.catalog().version).toBe(1);
      const store = new SqliteEventStore(path.join(dataDir, 'events.sqlite'));
      expect(await store.readStream('catalog')).toHaveLength(1);
      expect(await store.readStream('store-format')).toHaveLength(1);
      await store.close();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
