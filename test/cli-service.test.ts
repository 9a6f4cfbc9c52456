/**
 * The CLI's commands that ask a running service (player adjust and erase, webhooks) or read its
 * job store (jobs).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { BIN, CATALOG, cliOn, useCliGame, type Run } from './support/cli';
import { SqliteJobScheduler } from '../shared/adapters/jobs/embedded';
import { eventually } from './support/process';
import { KEYS, server, startTestService, tempDir } from './support/service';
import { newSecret, startReceiver, writeWebhooksFile } from './support/webhook-receiver';

// Each test starts the CLI in child processes, each compiling it (tsx): seconds apiece on a loaded machine.
jest.setTimeout(120_000);

const game = useCliGame();

describe('the CLI asking the service', () => {
  it('player adjust and player erase ask the running service with a Server key, and say what changed', async () => {
    const { t, url, cli } = game;
    const ada = randomUUID();
    expect(
      (
        await t.http
          .post('/v1/action/process')
          .set(server)
          .send({ name: 'earn', playerId: ada, referenceId: randomUUID() })
      ).body.code,
    ).toBe(200);
    const asServer = ['--url', url, '--key', KEYS.server];
    const adjusted = await cli(
      'player',
      'adjust',
      ada,
      '--reason',
      'Ticket 7: double charge',
      '--points=-5',
      '--deliverable',
      'gold=25',
      '--deliverable',
      'sword=1',
      ...asServer,
    );
    expect([adjusted.code, adjusted.stderr]).toEqual([0, '']);
    expect(adjusted.stdout).toMatch(
      new RegExp(`^adjustment [0-9a-f]{32} of ${ada} by backend: points -5, gold \\+25, sword \\+1\\n$`),
    );
    const profile = (await t.http.post('/v1/player/profile').set(server).send({ playerId: ada })).body.data;
    expect([profile.points, profile.balances.map((b: { amount: number }) => b.amount)]).toEqual([5, [125, 1]]);

    const [tooMuch, noReason, badAmount, asMobile] = await Promise.all([
      cli('player', 'adjust', ada, '--reason', 'r', '--deliverable', 'gold=-1000', ...asServer),
      cli('player', 'adjust', ada, '--points', '5', ...asServer),
      cli('player', 'adjust', ada, '--reason', 'r', '--deliverable', 'gold', ...asServer),
      cli('player', 'adjust', ada, '--reason', 'r', '--points', '5', '--url', url, '--key', KEYS.mobile),
    ]);
    expect([tooMuch.code, tooMuch.stderr]).toEqual([
      1,
      expect.stringContaining('player adjust: the server answered 9011'),
    ]);
    expect([noReason.code, noReason.stderr.split('\n')[0]]).toEqual([
      2,
      'player adjust: give --reason <text>, why (kept with the adjustment)',
    ]);
    expect(badAmount.code).toBe(2);
    expect([asMobile.code, asMobile.stderr]).toEqual([1, expect.stringContaining('the server answered 4003')]);

    const erased = await cli('player', 'erase', ada, ...asServer);
    expect([erased.code, erased.stderr]).toEqual([0, '']);
    expect(erased.stdout).toMatch(new RegExp(`^player ${ada} erased at \\d{4}-\\d\\d-\\d\\dT\\S+Z\\n$`));
    expect((await t.http.post('/v1/player/profile').set(server).send({ playerId: ada })).body.code).toBe(5003);
    const again = await cli('player', 'erase', ada, ...asServer);
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining('player erase: the server answered 5003')]);
  }, 180_000); // eight CLI starts (each compiles the CLI) on a loaded machine

  it('jobs: the queue as one line of counts, or as JSON; exit 1 without a job store', async () => {
    const { t, cli } = game;
    // A purchase timeout an hour away: delayed.
    await t.service.deps.jobs.schedule(
      'provision-timeout',
      `provision-timeout-${randomUUID()}`,
      Date.now() + 3_600_000,
      { provisionUid: 'f'.repeat(32), writtenBy: Date.now() + 3_600_000 },
    );
    const [line, json] = await Promise.all([cli('jobs'), cli('jobs', '--json')]);
    expect([line.code, line.stdout]).toEqual([0, 'jobs: 0 waiting, 1 delayed, 0 running, 0 failed\n']);
    expect([json.code, JSON.parse(json.stdout)]).toEqual([
      0,
      { waiting: 0, delayed: 1, running: 0, failed: 0, recentFailures: [] },
    ]);
    const elsewhere = await new Promise<Run>((resolve) => {
      const child = execFile(
        process.execPath,
        [BIN, 'jobs'],
        { env: { ...process.env, DATA_DIR: path.join(t.dataDir, 'nowhere'), REDIS_URL: '' } },
        (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
      );
    });
    expect([elsewhere.code, elsewhere.stderr]).toEqual([
      1,
      `no job store at ${path.join(t.dataDir, 'nowhere', 'jobs.sqlite')}: set DATA_DIR to the service's data directory, or REDIS_URL (and REDIS_PREFIX)\n`,
    ]);
  });

  it('jobs retry: puts the failed jobs (all, or those named) back to run now; exit 1 naming a job that has not failed', async () => {
    const dir = tempDir();
    const quiet = { warn: () => undefined, error: () => undefined };
    const jobs = new SqliteJobScheduler(path.join(dir, 'jobs.sqlite'), { attempts: 1, logger: quiet });
    const failed = [`expire-${randomUUID()}`, `expire-${randomUUID()}`];
    try {
      jobs.handle('outage', async () => {
        throw new Error('store unavailable');
      });
      await jobs.start();
      for (const id of failed) await jobs.schedule('outage', id, Date.now(), {});
      await eventually(async () => expect((await jobs.overview()).failed).toBe(2));
    } finally {
      // Closed: what is put back waits for a worker, as the overview shows.
      await jobs.close();
    }
    const one = await cliOn(dir, 'jobs', 'retry', failed[0], 'no-such-job');
    expect(one).toEqual({
      code: 1,
      stdout: `retried ${failed[0]}\n1 failed job(s) put back to run now\n`,
      stderr: 'not failed (nothing to retry): no-such-job\n',
    });
    const all = await cliOn(dir, 'jobs', 'retry');
    expect([all.code, all.stdout]).toEqual([0, `retried ${failed[1]}\n1 failed job(s) put back to run now\n`]);
    expect((await cliOn(dir, 'jobs')).stdout).toBe('jobs: 2 waiting, 0 delayed, 0 running, 0 failed\n');
    const unknown = await cliOn(dir, 'jobs', 'redo');
    expect([unknown.code, unknown.stderr]).toEqual([
      2,
      expect.stringContaining('jobs: unknown subcommand "redo" (known: retry)'),
    ]);
  });

  it('webhooks lists each webhook with its failures (Auditor key), and redelivers after a position (Server key)', async () => {
    const { cli } = game;
    const secret = newSecret();
    const receiver = await startReceiver(secret);
    receiver.answer = () => 500;
    const dir = tempDir();
    const file = writeWebhooksFile(dir, { name: 'crm', url: receiver.url, secret, events: ['ActionProcessed'] });
    const w = await startTestService({
      dataDir: dir,
      catalogYaml: CATALOG,
      env: { WEBHOOKS_FILE: file, WEBHOOK_MAX_ATTEMPTS: '1' },
    });
    try {
      const listening = await w.service.listen(0);
      const wurl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
      expect(
        (
          await w.http
            .post('/v1/action/process')
            .set(server)
            .send({ name: 'earn', playerId: randomUUID(), referenceId: randomUUID() })
        ).body.code,
      ).toBe(200);
      await eventually(async () =>
        expect((await w.http.get('/v1/admin/webhooks').set(server)).body.data[0].failed).toBe(1),
      );
      const list = await cli('webhooks', '--url', wurl, '--key', KEYS.auditor);
      expect([list.code, list.stderr]).toEqual([0, '']);
      expect(list.stdout).toMatch(
        /^crm {2}http:\/\/127\.0\.0\.1:\d+\/hooks {2}position (\d+) of \1 \(0 behind\) {2}0 delivered, 0 waiting, 1 failed\n {2}failed {2}position \d+ {2}ActionProcessed {2}\S+ {2}after 1 attempt\(s\): HTTP 500\n {2}last attempt \S+: failed \(HTTP 500\)\n$/,
      );
      const json = await cli('webhooks', '--json', '--url', wurl, '--key', KEYS.auditor);
      const [view] = JSON.parse(json.stdout);
      expect(view).toMatchObject({ name: 'crm', failed: 1 });

      receiver.answer = () => 204;
      const failedAt = view.failures[0].position;
      const again = await cli(
        'webhooks',
        'redeliver',
        'crm',
        '--after',
        String(failedAt - 1),
        '--url',
        wurl,
        '--key',
        KEYS.server,
      );
      expect([again.code, again.stdout]).toEqual([
        0,
        `crm: the events after position ${failedAt - 1} are sent again (it was at ${view.cursor})\n`,
      ]);
      await eventually(async () => expect(receiver.accepted.map((r) => r.position)).toEqual([failedAt]));
      const refused = await cli(
        'webhooks',
        'redeliver',
        'crm',
        '--after',
        String(failedAt - 1),
        '--url',
        wurl,
        '--key',
        KEYS.auditor,
      );
      expect([refused.code, refused.stderr]).toEqual([
        1,
        expect.stringContaining('webhooks redeliver: the server answered 4003'),
      ]);
      expect((await cli('webhooks', 'redeliver', 'crm')).code).toBe(2);
    } finally {
      await w.close();
      await receiver.close();
    }
  });
});
