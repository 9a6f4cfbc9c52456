/**
 * `gamification catalog publish | versions | show | revert`: the catalog's versions through the
 * running service's API, as the other commands that ask the server.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { cliOn, type Run } from './support/cli';
import { auditor, KEYS, startTestService, type TestService } from './support/service';

const CATALOG = `
version: 1
actions:
  - { uid: act-login, identifier: login, points: 1 }
`;

let t: TestService;
let url: string;
beforeAll(async () => {
  t = await startTestService({ catalogYaml: CATALOG });
  const listening = await t.service.listen(0);
  url = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
});
afterAll(() => t.close());

/** The CLI as a user runs it, asking the service at `url`, with the Server key unless told. */
const cli = (...args: string[]): Promise<Run> =>
  cliOn(t.dataDir, ...args, '--url', url, ...(args.includes('--key') ? [] : ['--key', KEYS.server]));

it('publishes a file now or scheduled, lists the versions, shows one as a file and reverts to it', async () => {
  const file = path.join(t.dataDir, 'double.yaml');
  fs.writeFileSync(file, CATALOG.replace('points: 1', 'points: 2'));
  const now = await cli('catalog', 'publish', file, '--comment', 'login is worth 2');
  expect([now.code, now.stdout]).toEqual([0, expect.stringMatching(/^version 2: Active, in force from \S+Z\n$/)]);
  const again = await cli('catalog', 'publish', file);
  expect([again.code, again.stdout]).toEqual([0, 'same as version 2, in force: nothing published\n']);

  fs.writeFileSync(file, CATALOG.replace('points: 1', 'points: 10'));
  const weekend = await cli(
    'catalog',
    'publish',
    file,
    '--at',
    '2099-01-02T00:00:00Z',
    '--until',
    '2099-01-04T00:00:00Z',
    '--comment',
    'weekend',
  );
  expect([weekend.code, weekend.stdout]).toEqual([
    0,
    'version 3: Scheduled, in force from 2099-01-02T00:00:00.000Z until 2099-01-04T00:00:00.000Z\n',
  ]);

  const listed = await cli('catalog', 'versions', '--key', KEYS.auditor);
  expect(listed.code).toBe(0);
  const lines = listed.stdout.trimEnd().split('\n');
  expect(lines).toHaveLength(3);
  expect(lines[0]).toMatch(/^v3 +Scheduled +api +by backend .* until 2099-01-04T00:00:00.000Z +weekend$/);
  expect(lines[1]).toMatch(/^v2 +Active +api +by backend .*login is worth 2$/);
  expect(lines[2]).toMatch(/^v1 +Superseded +file +by file /);

  const shown = await cli('catalog', 'show', '1');
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain('identifier: login');
  expect(shown.stdout).toContain('points: 1');

  const reverted = await cli('catalog', 'revert', '1', '--comment', 'back');
  expect([reverted.code, reverted.stdout]).toEqual([0, expect.stringMatching(/^version 4: Active, in force from /)]);
  const inForce = await t.http.get('/v1/admin/catalog').set(auditor);
  expect(inForce.body.data).toMatchObject({ version: 4, comment: 'back', catalog: { actions: [{ points: 1 }] } });
}, 120_000);

it('says what is wrong: a version that does not exist, a time that is not ISO, an Auditor key publishing', async () => {
  const missing = await cli('catalog', 'show', '99');
  expect([missing.code, missing.stderr]).toEqual([
    1,
    expect.stringContaining('catalog show: the server answered 9041'),
  ]);
  const badTime = await cli('catalog', 'publish', path.join(t.dataDir, 'catalog.yaml'), '--at', 'tomorrow');
  expect([badTime.code, badTime.stderr]).toEqual([2, expect.stringContaining('--at takes an ISO time')]);
  const auditorPublishes = await cli('catalog', 'revert', '1', '--key', KEYS.auditor);
  expect([auditorPublishes.code, auditorPublishes.stderr]).toEqual([
    1,
    expect.stringContaining('catalog revert: the server answered 4003'),
  ]);
}, 120_000);
