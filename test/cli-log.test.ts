/**
 * The CLI's reads of the event log: help, events, trace, export and a player's export, on a
 * running service's embedded store.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { cliOn, useCliGame } from './support/cli';
import { server, tempDir } from './support/service';

// Each test starts the CLI in child processes, each compiling it (tsx): seconds apiece on a loaded machine.
jest.setTimeout(120_000);

const game = useCliGame();

describe('the CLI reading the log', () => {
  it('--help after any command prints its usage and exits 0 before any other check; --version prints the package version', async () => {
    // No event store, no key, no catalog file: help must not need any of them.
    const nowhere = path.join(tempDir(), 'missing');
    const commands = ['events', 'trace', 'export', 'rebuild', 'verify', 'jobs', 'webhooks', 'catalog'];
    const helps = await Promise.all(commands.map((command) => cliOn(nowhere, command, '--help')));
    for (const [i, help] of helps.entries()) {
      expect([commands[i], help.code, help.stderr]).toEqual([commands[i], 0, '']);
      expect(help.stdout).toMatch(new RegExp(`^Usage:\\n  ${commands[i]} `));
    }
    expect(helps[7].stdout).toContain('catalog validate <file>');
    const [short, validate, version] = await Promise.all([
      cliOn(nowhere, 'verify', '--url', 'http://nowhere', '-h'),
      cliOn(nowhere, 'catalog', 'validate', 'missing.yaml', '--help'),
      cliOn(nowhere, '--version'),
    ]);
    expect([short.code, validate.code]).toEqual([0, 0]);
    const { version: packageVersion } = JSON.parse(
      fs.readFileSync(path.resolve(__dirname, '..', 'package.json'), 'utf8'),
    );
    expect(version).toEqual({ code: 0, stdout: `${packageVersion}\n`, stderr: '' });
  }, 180_000); // eleven CLI starts (each compiles the CLI) on a loaded machine

  it('events: a player stream, readable and as JSON; exit 1 for an empty stream, 2 for bad arguments', async () => {
    const { playerId, provisionUid, cli } = game;
    const [readable, json, empty, bad] = await Promise.all([
      cli('events', '--player', playerId),
      cli('events', '--stream', `player-${playerId}`, '--from', '1', '--json'),
      cli('events', '--stream', 'nobody'),
      cli('events', '--player', 'not-a-uuid'),
    ]);
    expect(readable.code).toBe(0);
    const lines = readable.stdout.trim().split('\n');
    expect(lines.map((l) => l.split(/\s+/)[3])).toEqual([
      'PlayerRegistered',
      'ActionProcessed',
      'ActionProcessed',
      'ActionReversed',
      'BundlePurchased',
      'ProvisionRefunded',
    ]);
    expect(lines[1]).toMatch(
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\dT.*Z  player-${playerId}@1  #\\d+  ActionProcessed  key=backend correlation=\\S+  earn ref earn-\\S+ \\[points \\+10, gold \\+100\\]$`,
      ),
    );
    expect(lines[4]).toContain(
      'bundle rare provision ' + provisionUid + ' Completed, cost 50 gold [sword +1, gold -50]',
    );

    expect(json.code).toBe(0);
    const parsed = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(parsed.map((e) => e.revision)).toEqual([1, 2, 3, 4, 5]);
    expect(parsed[0]).toMatchObject({
      stream: `player-${playerId}`,
      type: 'ActionProcessed',
      metadata: { keyName: 'backend', catalogVersion: 1 },
    });

    expect([empty.code, empty.stderr]).toEqual([1, 'no events in nobody\n']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--player must be a UUID');
  });

  it('trace: an action with its reversal, a refunded purchase as JSON, and a chest opening', async () => {
    const { playerId, referenceId, provisionUid, chestPlayerId, openingUid, cli } = game;
    const [action, purchase, unknown] = await Promise.all([
      cli('trace', '--reference', referenceId),
      cli('trace', '--provision', provisionUid, '--json'),
      cli('trace', '--reference', 'never-seen'),
    ]);
    const [opening, elsewhere, alone] = await Promise.all([
      cli('trace', '--opening', openingUid, '--player', chestPlayerId),
      cli('trace', '--opening', openingUid, '--player', playerId),
      cli('trace', '--opening', openingUid),
    ]);
    expect(action.code).toBe(0);
    expect(action.stdout).toContain(
      `Action fight, reference ${referenceId}, player ${playerId}: reversed, cost provision`,
    );
    expect(action.stdout).toMatch(/1\. ActionProcessed: request \S+ by key "backend", catalog v1/);
    expect(action.stdout).toContain(
      `badge b-fighter "Fighter" OneTimeOnly: 20 points, grants 1 sword\n       condition 1 made of: ${referenceId}\n`,
    );
    expect(action.stdout).toContain('points: 10 + 25 = 35');
    expect(action.stdout).toMatch(/2\. ActionReversed: request/);
    expect(action.stdout).toContain('gold: 90 + 10 = 100');

    expect([opening.code, opening.stderr]).toEqual([0, '']);
    expect(opening.stdout).toContain(
      `Chest opening ${openingUid} of box "Box", player ${chestPlayerId}\n\n1. ChestOpened: request `,
    );
    expect(opening.stdout).toContain('box: 1 - 1 = 0');
    expect(opening.stdout).toContain('gold: 0 + 5 = 5');
    expect([elsewhere.code, elsewhere.stderr]).toEqual([1, `no chest opening ${openingUid} of player ${playerId}\n`]);
    expect([alone.code, alone.stderr.split('\n')[0]]).toEqual([
      2,
      'trace: give --player with --opening, and only with it',
    ]);

    expect(purchase.code).toBe(0);
    const traced = JSON.parse(purchase.stdout);
    expect(traced).toMatchObject({ provisionUid, status: 'Refunded' });
    expect(traced.chains.map((c: { cause: string }) => c.cause)).toEqual(['BundlePurchased', 'ProvisionRefunded']);

    expect([unknown.code, unknown.stderr]).toEqual([1, 'no action with referenceId never-seen\n']);
  });

  it('export: the whole log as NDJSON, or some types after a position', async () => {
    const { t, cli } = game;
    const all = await t.service.events.readAll();
    const from = all[3].position;
    const [full, some] = await Promise.all([
      cli('export'),
      cli('export', '--from', String(from), '--types', 'ActionProcessed,BundlePurchased'),
    ]);
    // Piped: no progress on stderr, only the records on stdout.
    expect([full.code, full.stderr, some.stderr]).toEqual([0, '', '']);
    const exported = full.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(exported.map((e) => e.position)).toEqual(all.map((e) => e.position));
    // The log opens with the store's format, then the first catalog.
    expect(exported[0]).toMatchObject({ stream: 'store-format', type: 'StoreFormatDeclared', data: { version: 3 } });
    expect(exported[1]).toEqual({
      position: all[1].position,
      stream: 'catalog',
      revision: 0,
      id: all[1].id,
      type: 'CatalogPublished',
      time: all[1].createdAt,
      data: all[1].data,
      metadata: all[1].metadata,
    });
    const picked = some.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(picked.map((e) => e.position)).toEqual(
      all
        .filter((e) => e.position > from && ['ActionProcessed', 'BundlePurchased'].includes(e.type))
        .map((e) => e.position),
    );
  });

  it('player export: the document the service exports, from the store alone; exit 1 for an unknown or erased player, 2 for a bad id', async () => {
    const { t, playerId, referenceId, cli } = game;
    const stranger = randomUUID();
    const gone = randomUUID();
    expect((await t.http.post('/v1/player/create').set(server).send({ playerId: gone })).body.code).toBe(200);
    const erasure = await t.http.post('/v1/admin/players/erase').set(server).send({ playerId: gone });
    expect(erasure.body.code).toBe(200);
    const [exported, unknown, erased, malformed, help] = await Promise.all([
      cli('player', 'export', playerId.toUpperCase()),
      cli('player', 'export', stranger),
      cli('player', 'export', gone),
      cli('player', 'export', 'ada'),
      cli('--help'),
    ]);
    expect([exported.code, exported.stderr]).toEqual([0, '']);
    const served = await t.http.get(`/v1/admin/players/${playerId}/export`).set(server);
    expect(JSON.parse(exported.stdout)).toEqual(served.body.data);
    expect(JSON.parse(exported.stdout).actions).toEqual([
      expect.objectContaining({ name: 'earn', earnedPoints: 10, reversed: false }),
      expect.objectContaining({ referenceId, name: 'fight', reversed: true }),
    ]);
    expect([unknown.code, unknown.stderr]).toEqual([1, `no player ${stranger}\n`]);
    expect([erased.code, erased.stdout, erased.stderr]).toEqual([
      1,
      '',
      `player ${gone} was erased at ${new Date(erasure.body.data.erasedAt).toISOString()}: nothing of theirs to export\n`,
    ]);
    expect([malformed.code, malformed.stderr.split('\n')[0]]).toEqual([
      2,
      'player export: the playerId must be a UUID, got "ada"',
    ]);
    expect([help.code, help.stdout]).toEqual([0, expect.stringContaining('player export <playerId>')]);
  });
});
