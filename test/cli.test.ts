import { execFile } from 'node:child_process';
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { PROJECTORS } from '../projections/projectors';
import { replay } from '../projections/verify';
import { LEADERBOARD_COLLECTIONS, type ScoreDoc } from '../shared/read-models/leaderboards';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import { eventually } from './support/process';
import { KEYS, server, startTestService, tempDir, type TestService } from './support/service';
import { newSecret, startReceiver, writeWebhooksFile } from './support/webhook-receiver';

const CATALOG = `
version: 1
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
  - { uid: sword, label: Sword, type: Prize, kind: Item }
  - { uid: box, label: Box, type: Prize, kind: Chest, chest: { pool: [{ reward: gold, amount: { min: 5, max: 5 }, weight: 1 }] } }
actions:
  - { uid: act-loot, identifier: loot, points: 0, deliverables: [{ deliverable: box, amount: 1 }] }
  - { uid: act-earn, identifier: earn, points: 10, deliverables: [{ deliverable: gold, amount: 100 }] }
  - { uid: act-fight, identifier: fight, points: 5, cost: 10, costDeliverable: gold }
badges:
  - { uid: b-fighter, label: Fighter, type: OneTimeOnly, points: 20, conditions: [{ action: fight }], deliverables: [{ deliverable: sword, amount: 1 }] }
stores:
  - uid: main
    label: Main
    bundles:
      - { uid: rare, label: Rare sword, cost: 50, costDeliverable: gold, initialStock: 5, contents: [{ deliverable: sword, amount: 1 }] }
leaderboards:
  - { uid: lb-all, label: All-time, type: 0, startDate: 2020-01-01T00:00:00, endDate: 2100-01-01T00:00:00 }
`;

const BIN = path.resolve(__dirname, '..', 'bin', 'gamification.js');

let t: TestService;
let url: string;
const playerId = randomUUID();
const referenceId = `fight-${randomUUID()}`;
let provisionUid: string;
const chestPlayerId = randomUUID();
let openingUid: string;

beforeAll(async () => {
  t = await startTestService({ catalogYaml: CATALOG });
  const listening = await t.service.listen(0);
  url = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
  const ok = async (path: string, body: object) => {
    const res = await t.http.post(path).set(server).send(body);
    expect(res.body.code).toBe(200);
    return res.body.data;
  };
  await ok('/v1/action/process', { name: 'earn', playerId, referenceId: `earn-${randomUUID()}` });
  await ok('/v1/action/process', { name: 'fight', playerId, referenceId });
  await ok('/v1/action/delete', { name: 'fight', playerId, referenceId });
  provisionUid = (await ok('/v1/store/buy', { playerId, referenceId: 'rare' })).provisionUid;
  await ok('/v1/store/refund-transaction', { provisionUid });
  await ok('/v1/action/process', { name: 'loot', playerId: chestPlayerId, referenceId: `loot-${randomUUID()}` });
  openingUid = (await ok('/v1/chest/open', { playerId: chestPlayerId, chestDeliverableUId: 'box' })).openingUid;
});
afterAll(() => t.close());

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI as a user runs it, in a child process: asynchronous, so the in-process server keeps answering. */
function cli(...args: string[]): Promise<Run> {
  return cliOn(t.dataDir, ...args);
}

function cliOn(dataDir: string, ...args: string[]): Promise<Run> {
  return cliWith({ DATA_DIR: dataDir }, ...args);
}

function cliWith(extra: Record<string, string>, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const env = { ...process.env, EVENTSTORE_URL: '', MONGO_URL: '', REDIS_URL: '', GAMIFICATION_KEY: '', ...extra };
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { env, maxBuffer: 64 * 1024 * 1024 },
      (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
    );
    // Nobody types: a question the CLI asks is left unanswered.
    child.stdin?.end();
  });
}

const writeCatalog = (name: string, text: string) => {
  const file = path.join(t.dataDir, name);
  fs.writeFileSync(file, text);
  return file;
};

describe('gamification CLI', () => {
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

  it('player adjust and player erase ask the running service with a Server key, and say what changed', async () => {
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

  it('catalog validate and diff', async () => {
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

  it('rebuild and verify of the read models file are refused, or asked of the server, while a service holds it; unknown projectors are refused', async () => {
    const port = new URL(url).port;
    const [held, unknown, asked] = await Promise.all([
      cli('rebuild'),
      cli('rebuild', 'nope'),
      cliWith({ DATA_DIR: t.dataDir, PORT: port }, 'verify', '--key', KEYS.server),
    ]);
    const file = path.join(t.dataDir, 'read-models.sqlite');
    expect([held.code, held.stdout, held.stderr]).toEqual([
      1,
      '',
      `rebuild: a running service holds ${file}; stop it first, then rebuild (its next start resumes the rebuilt file)\n`,
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      'unknown projector nope; the projectors are catalog-views, leaderboards, bundle-stock, analytics, players',
    );
    // The running service holds the file: verify asks it (at 127.0.0.1:$PORT).
    expect([asked.code, asked.stderr]).toEqual([0, '']);
    expect(asked.stdout).toMatch(/^read models match: /);
  });

  it('with the service stopped, rebuild rebuilds its read models file for real, the next start serves it, and verify checks the file itself', async () => {
    let own = await startTestService({ catalogYaml: CATALOG });
    const player = randomUUID();
    expect(
      (
        await own.http
          .post('/v1/action/process')
          .set(server)
          .send({ name: 'earn', playerId: player, referenceId: randomUUID() })
      ).body.code,
    ).toBe(200);
    const standings = async () => (await own.http.get('/v1/admin/leaderboards/lb-all').set(server)).body.data;
    const before = await standings();
    await own.close();
    // The file drifts from the log while nothing holds it: the player's score is lost.
    const file = path.join(own.dataDir, 'read-models.sqlite');
    const db = new Database(file);
    const removed = db
      .prepare(`DELETE FROM documents WHERE collection = ? AND document LIKE ?`)
      .run(LEADERBOARD_COLLECTIONS.scores, `%${player}%`).changes;
    db.close();
    expect(removed).toBeGreaterThan(0);
    try {
      const drifted = await cliOn(own.dataDir, 'verify');
      expect(drifted.code).toBe(1);
      expect(drifted.stdout).toMatch(/^lb_scores {2}.*: live missing, rebuilt \{/m);

      const rebuilt = await cliOn(own.dataDir, 'rebuild', 'leaderboards');
      expect([rebuilt.code, rebuilt.stderr]).toEqual([0, '']);
      expect(rebuilt.stdout).toMatch(
        new RegExp(
          `^rebuilt leaderboards into ${file.replace(/[.]/g, '\\.')}\n\\d+ events in \\d+\\.\\d\\d s: \\d+ events/s\n$`,
        ),
      );

      const clean = await cliOn(own.dataDir, 'verify');
      expect([clean.code, clean.stderr]).toEqual([0, '']);
      expect(clean.stdout).toMatch(/^read models match: \d+ collections after replaying \d+ events/);

      own = await startTestService({ catalogYaml: CATALOG, dataDir: own.dataDir });
      try {
        expect(await standings()).toEqual(before);
      } finally {
        await own.close();
      }
    } finally {
      fs.rmSync(own.dataDir, { recursive: true, force: true });
    }
  }, 180_000);

  it('a replay reports its progress after each page: the events read so far and the position reached', async () => {
    const all = await t.service.events.readAll();
    const head = await t.service.events.headPosition();
    const reports: Array<[number, number]> = [];
    const count = await replay(t.service.events, new MemoryReadStore(), PROJECTORS, {
      to: head,
      onProgress: (events, position) => reports.push([events, position]),
    });
    expect(count).toBe(all.length);
    expect(reports).toEqual([[all.length, head]]);
  });

  it('jobs: the queue as one line of counts, or as JSON; exit 1 without a job store', async () => {
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

  it('verify asks the running server: exit 0 when the read models match, 1 with the difference when not', async () => {
    const clean = await cli('verify', '--url', url, '--key', KEYS.server);
    expect([clean.code, clean.stderr]).toEqual([0, '']);
    expect(clean.stdout).toMatch(/^read models match: \d+ collections after replaying \d+ events \(\d+\.\d s\)\n$/);

    const scores = t.service.readStore.collection<ScoreDoc>(LEADERBOARD_COLLECTIONS.scores);
    const [score] = await scores.find({ playerId });
    try {
      await scores.updateOne({ _id: score._id }, { $set: { score: 1 } });
      const tampered = await cli('verify', '--url', url, '--key', KEYS.server);
      expect(tampered.code).toBe(1);
      expect(tampered.stdout).toContain(
        `lb_scores  ${score._id}  score: live 1, rebuilt ${score.score}\n1 difference(s)`,
      );
    } finally {
      await scores.replaceOne({ _id: score._id }, score);
    }
    const noServer = await cli('verify', '--url', 'http://127.0.0.1:9', '--key', KEYS.server);
    expect(noServer.code).toBe(1);
    expect(noServer.stderr).toContain('no server answering at http://127.0.0.1:9/v1/audit/verify');
  });

  it('webhooks lists each webhook with its failures (Auditor key), and redelivers after a position (Server key)', async () => {
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
