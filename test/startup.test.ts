import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { SqliteEventStore } from '../shared/event-store/sqlite';
import { server, startTestService, tempDir } from './support/service';

const root = path.resolve(__dirname, '..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');

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
    const run = spawnSync(tsx, [path.join(root, 'shared', 'main.ts')], { env: { ...process.env, DATA_DIR: dir, CATALOG_FILE: catalog, PORT: '0' }, encoding: 'utf8', timeout: 60_000 });
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
    expect((await first.http.post('/v1/action/process').set({ AuthKey: key }).send({ name: 'purchase', referenceId: 'keep-1', playerId })).body.code).toBe(200);
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
