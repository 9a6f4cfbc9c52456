/**
 * The embedded service loads no production engine's client: those take longer to load than the
 * rest of the service together, and every restart would pay for them (bench figure 7). They are
 * loaded when their URL is set (app/adapters.ts).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..');
const PRODUCTION_CLIENTS = ['@kurrent/kurrentdb-client', 'mongodb', 'bullmq', 'ioredis'];

it('the service and the CLI load none of the production clients until their URL is set', () => {
  const script = `require('./app/service'); require('./cli/read-models');
    process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.stderr).toBe('');
  const loaded = JSON.parse(run.stdout) as string[];
  expect(loaded.some((file) => file.endsWith(path.join('app', 'service.ts')))).toBe(true);
  for (const client of PRODUCTION_CLIENTS)
    expect(loaded.filter((file) => file.includes(`${path.sep}node_modules${path.sep}${client}${path.sep}`))).toEqual(
      [],
    );
});
