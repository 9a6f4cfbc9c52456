/**
 * The `gamification` CLI as a user runs it, and the game its suites (test/cli-*.test.ts) share:
 * each suite starts its own service on this catalog, so that jest runs the suites side by side.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { server, startTestService, type TestService } from './service';

export const CATALOG = `
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

export const BIN = path.resolve(__dirname, '..', '..', 'bin', 'gamification.js');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI in a child process, on no server of the runner's environment: asynchronous, so an in-process service keeps answering. */
export function cliWith(extra: Record<string, string>, ...args: string[]): Promise<Run> {
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

/** The CLI on the embedded stores of `dataDir`. */
export const cliOn = (dataDir: string, ...args: string[]): Promise<Run> => cliWith({ DATA_DIR: dataDir }, ...args);

/** A running service on CATALOG with a short history, as the CLI suites read it. */
export interface CliGame {
  t: TestService;
  /** Where the service listens, for the commands that ask it. */
  url: string;
  /** Earned, fought (the fight reversed), bought the rare sword (refunded). */
  playerId: string;
  /** The reversed fight's referenceId. */
  referenceId: string;
  /** The refunded purchase. */
  provisionUid: string;
  /** Looted a box and opened it. */
  chestPlayerId: string;
  openingUid: string;
  /** The CLI on the service's data directory. */
  cli(...args: string[]): Promise<Run>;
  /** Writes a catalog file into the service's data directory. */
  writeCatalog(name: string, text: string): string;
}

/** Starts the game before the suite's tests and closes it after: its fields are set once beforeAll ran. */
export function useCliGame(): CliGame {
  const game = {
    playerId: randomUUID(),
    referenceId: `fight-${randomUUID()}`,
    chestPlayerId: randomUUID(),
    cli: (...args: string[]) => cliOn(game.t.dataDir, ...args),
    writeCatalog: (name: string, text: string) => {
      const file = path.join(game.t.dataDir, name);
      fs.writeFileSync(file, text);
      return file;
    },
  } as CliGame;
  beforeAll(async () => {
    const t = await startTestService({ catalogYaml: CATALOG });
    game.t = t;
    const listening = await t.service.listen(0);
    game.url = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    const ok = async (route: string, body: object) => {
      const res = await t.http.post(route).set(server).send(body);
      expect(res.body.code).toBe(200);
      return res.body.data;
    };
    const { playerId, referenceId, chestPlayerId } = game;
    await ok('/v1/action/process', { name: 'earn', playerId, referenceId: `earn-${randomUUID()}` });
    await ok('/v1/action/process', { name: 'fight', playerId, referenceId });
    await ok('/v1/action/delete', { name: 'fight', playerId, referenceId });
    game.provisionUid = (await ok('/v1/store/buy', { playerId, referenceId: 'rare' })).provisionUid;
    await ok('/v1/store/refund-transaction', { provisionUid: game.provisionUid });
    await ok('/v1/action/process', { name: 'loot', playerId: chestPlayerId, referenceId: `loot-${randomUUID()}` });
    game.openingUid = (await ok('/v1/chest/open', { playerId: chestPlayerId, chestDeliverableUId: 'box' })).openingUid;
  });
  afterAll(() => game.t?.close());
  return game;
}
