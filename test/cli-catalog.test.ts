/**
 * The CLI's catalog commands: validate and diff a file, simulate a draft, recompute under the
 * published catalog.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { CATALOG, cliOn, useCliGame } from './support/cli';
import { server, startTestService } from './support/service';

// Each test starts the CLI in child processes, each compiling it (tsx): seconds apiece on a loaded machine.
jest.setTimeout(120_000);

const game = useCliGame();

describe('the CLI on catalogs', () => {
  it('catalog validate and diff', async () => {
    const { t, cli, writeCatalog } = game;
    const good = writeCatalog('good.yaml', CATALOG);
    const bad = writeCatalog(
      'bad.yaml',
      CATALOG.replace('costDeliverable: gold }', 'costDeliverable: silver }').replace('points: 20,', 'points: lots,'),
    );
    const changed = writeCatalog(
      'changed.yaml',
      `settings: { pendingTimeoutSeconds: 60 }\n${CATALOG.replace('points: 10,', 'points: 15,')
        .replace(/ {2}- \{ uid: b-fighter.*\n/, '')
        .replace('deliverables:\n', 'deliverables:\n  - { uid: gems, label: Gems, type: Prize, kind: Currency }\n')}`,
    );
    const [valid, invalid, missing, same, diff] = await Promise.all([
      cli('catalog', 'validate', good),
      cli('catalog', 'validate', bad),
      cli('catalog', 'validate', path.join(t.dataDir, 'none.yaml')),
      cli('catalog', 'diff', good),
      cli('catalog', 'diff', changed),
    ]);
    expect(valid.code).toBe(0);
    expect(valid.stdout).toMatch(/good\.yaml: valid \(hash [0-9a-f]{12}\)/);
    expect(invalid.code).toBe(1);
    const problems = invalid.stdout.trim().split('\n');
    expect(problems).toHaveLength(2);
    expect(problems.some((p) => p.includes('badges[0].points'))).toBe(true);
    expect(problems.some((p) => p.includes('silver'))).toBe(true);
    expect([missing.code, missing.stdout.trim()]).toEqual([1, `${path.join(t.dataDir, 'none.yaml')}: file not found`]);

    expect([same.code, same.stdout.trim()]).toEqual([0, 'same as version 1, in force']);
    expect(diff.code).toBe(0);
    const out = diff.stdout;
    expect(out).toContain('against version 1, in force');
    expect(out).toContain('  ~ pendingTimeoutSeconds: 900 -> 60');
    expect(out).toContain('deliverables:\n  + gems (Gems)');
    expect(out).toContain('actions:\n  ~ act-earn (earn): points');
    expect(out).toContain('badges:\n  - b-fighter (Fighter)');
    expect(out).toContain('stores: unchanged');
  });

  it('simulate: what a draft would change, readable and as JSON, for some players only; nothing written', async () => {
    const { t, playerId, chestPlayerId, cli, writeCatalog } = game;
    const doubled = writeCatalog('doubled.yaml', CATALOG.replace('points: 10,', 'points: 20,'));
    const bad = writeCatalog('bad-draft.yaml', CATALOG.replace('costDeliverable: gold }', 'costDeliverable: silver }'));
    const head = await t.service.events.headPosition();
    const [readable, json, onlyChests, invalid, noCatalog] = await Promise.all([
      cli('simulate', '--catalog', doubled),
      cli('simulate', '--catalog', doubled, '--json'),
      cli('simulate', '--catalog', doubled, '--player', chestPlayerId, '--json'),
      cli('simulate', '--catalog', bad),
      cli('simulate', '--player', playerId),
    ]);
    expect(readable.code).toBe(0);
    expect(readable.stdout).toContain('1 players affected: points');
    expect(readable.stdout).toContain(`  ${playerId}  points 10 -> 20`);
    expect(readable.stdout).toContain(`Board lb-all, top 10 now | under the draft:`);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      playersAffected: 1,
      players: [{ playerId, pointsBefore: 10, pointsAfter: 20, badgesGained: [], badgesLost: [], balances: [] }],
      problems: [],
    });
    expect(JSON.parse(onlyChests.stdout)).toMatchObject({ playersAffected: 0, players: [] });
    expect([invalid.code, invalid.stderr.trim().split('\n')]).toEqual([1, [expect.stringContaining('silver')]]);
    expect([noCatalog.code, noCatalog.stderr.split('\n')[0]]).toEqual([
      2,
      'simulate: give --catalog <file>, the draft catalog',
    ]);
    expect(await t.service.events.headPosition()).toBe(head);
  });

  it('recompute: under the published catalog there is nothing to change; a dry run and a bad --from write nothing', async () => {
    const { t, cli } = game;
    const head = await t.service.events.headPosition();
    const [dry, same, badFrom] = await Promise.all([
      cli('recompute', '--dry-run'),
      cli('recompute'),
      cli('recompute', '--from', 'yesterday'),
    ]);
    expect([dry.code, dry.stdout.split('\n')[0]]).toEqual([
      0,
      expect.stringContaining('Dry run: nothing was written.'),
    ]);
    expect(dry.stdout).toContain('0 players affected');
    expect([same.code, same.stdout.split('\n')[0]]).toEqual([0, expect.stringContaining('Nothing to change.')]);
    expect([badFrom.code, badFrom.stderr.split('\n')[0]]).toEqual([
      2,
      'recompute: --from must be a local date-time YYYY-MM-DDTHH:mm:ss, got "yesterday"',
    ]);
    expect(await t.service.events.headPosition()).toBe(head);
  });

  it('recompute asks before it writes: a question left unanswered applies nothing and exits 1; --yes applies', async () => {
    const own = await startTestService({ catalogYaml: CATALOG });
    const earned = await own.http
      .post('/v1/action/process')
      .set(server)
      .send({ name: 'earn', playerId: randomUUID(), referenceId: randomUUID() });
    expect(earned.body.code).toBe(200);
    await own.close();
    // The same game with earn worth twice the points, started on the same log: one player to recompute.
    const doubled = await startTestService({
      catalogYaml: CATALOG.replace('identifier: earn, points: 10', 'identifier: earn, points: 20'),
      dataDir: own.dataDir,
    });
    await doubled.close();
    const unanswered = await cliOn(own.dataDir, 'recompute');
    expect([unanswered.code, unanswered.stdout.trim().split('\n').at(-1)]).toEqual([
      1,
      'Not applied: nothing was written.',
    ]);
    expect(unanswered.stdout).toContain('1 players affected');
    const again = await cliOn(own.dataDir, 'recompute', '--yes');
    expect([again.code, again.stderr]).toEqual([0, '']);
    expect(again.stdout).toMatch(/^Applied: 1 players recomputed/m);
    // Applied once: under the same catalog there is nothing left to change.
    const after = await cliOn(own.dataDir, 'recompute');
    expect([after.code, after.stdout.split('\n')[0]]).toEqual([0, expect.stringContaining('Nothing to change.')]);
  }, 180_000); // two service starts and three CLI starts on a loaded machine
});
