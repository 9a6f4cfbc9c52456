/**
 * The CLI's rebuild and verify of the read models: refused or asked of the server while a service
 * holds the file, for real once it is stopped; a replay's progress.
 */
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECTORS } from '../projections/projectors';
import { replay } from '../projections/verify';
import { LEADERBOARD_COLLECTIONS, type ScoreDoc } from '../shared/read-models/leaderboards';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import { CATALOG, cliOn, cliWith, useCliGame } from './support/cli';
import { KEYS, server, startTestService } from './support/service';

// Each test starts the CLI in child processes, each compiling it (tsx): seconds apiece on a loaded machine.
jest.setTimeout(120_000);

const game = useCliGame();

describe('the CLI on read models', () => {
  it('rebuild and verify of the read models file are refused, or asked of the server, while a service holds it; unknown projectors are refused', async () => {
    const { t, url, cli } = game;
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
    const { t } = game;
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

  it('verify asks the running server: exit 0 when the read models match, 1 with the difference when not', async () => {
    const { t, url, playerId, cli } = game;
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
});
