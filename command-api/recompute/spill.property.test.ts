/**
 * A recompute whose players are spilled to a scratch file (REPLAY_PLAYERS_IN_MEMORY) decides as
 * one that keeps them all in memory: over random histories of a few players (actions, reversals,
 * purchases, adjustments), with a ceiling of one to three players, the replay holds the same
 * players in the same order, reports the same (the all-time boards too, whose contributions are
 * spilled with each player: ties, reversals of the last contribution or an earlier one, scores
 * taken to 0 or below), and the recompute appends the same events. No scratch file is
 * left open once the recompute ends, nor when it fails (shared/adapters/scratch-file.test.ts: its
 * file is never seen by name).
 */
import fs from 'node:fs';
import fc from 'fast-check';
import { SqliteEventStore } from '../../shared/adapters/event-store/sqlite';
import { catalogOfYaml, commandDepsFor, publishYaml } from '../../test/support/command-deps';
import { adjustPlayer } from '../adjust-player/handler';
import { buyBundle } from '../buy-bundle/handler';
import type { CommandOrigin } from '../deps';
import { processAction } from '../process-action/handler';
import { reverseAction } from '../reverse-action/handler';
import { replayLog } from '../replay/replay-log';
import { recompute } from './run';

const CATALOG = `
version: 1
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
  - { uid: sword, label: Sword, type: Prize, kind: Item }
actions:
  - { uid: act-earn, identifier: earn, points: 10, deliverables: [{ deliverable: gold, amount: 100 }] }
  - { uid: act-train, identifier: train, points: 3 }
badges:
  - { uid: b-veteran, label: Veteran, type: OneTimeOnly, points: 5, conditions: [{ action: train, challenge: { times: 3 } }] }
levels:
  - { uid: lvl-1, label: Rookie, level: 1, target: 0 }
  - { uid: lvl-2, label: Regular, level: 2, target: 20 }
  - { uid: lvl-3, label: Expert, level: 3, target: 60, deliverables: [{ deliverable: gold, amount: 50 }] }
stores:
  - uid: main
    label: Main
    bundles:
      - { uid: rare, label: Rare sword, cost: 150, costDeliverable: gold, contents: [{ deliverable: sword, amount: 1 }] }
leaderboards:
  - { uid: lb-all, label: All-time, type: 0 }
  - { uid: lb-trainers, label: Trainers, type: 0, metric: { action: train } }
`;
/** Earn pays double and train less: points, levels, badges and balances all move. */
const DRAFT = catalogOfYaml(
  CATALOG.replace('identifier: earn, points: 10,', 'identifier: earn, points: 20,').replace(
    'points: 3 }',
    'points: 1 }',
  ),
);
const NOW = Date.UTC(2026, 5, 20, 12);
const metadata = { correlationId: 'test', causationId: 'test', keyName: 'test', catalogVersion: 1 };
const origin: CommandOrigin = { metadata, idempotency: null };
const PLAYERS = [1, 2, 3, 4, 5].map((n) => `${n}${n}${n}${n}${n}${n}${n}${n}-1111-4111-8111-111111111111`);

type Step =
  | { kind: 'act'; player: number; name: 'earn' | 'train' }
  | { kind: 'reverse'; back: number }
  | { kind: 'buy'; player: number }
  | { kind: 'adjust'; player: number; points: number };
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('act' as const),
      player: fc.nat(PLAYERS.length - 1),
      name: fc.constantFrom('earn' as const, 'train' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reverse' as const), back: fc.nat(10) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('buy' as const), player: fc.nat(PLAYERS.length - 1) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('adjust' as const),
      player: fc.nat(PLAYERS.length - 1),
      points: fc.constantFrom(-40, -3, 7),
    }),
  },
);

/** A log of the steps, the same every time for the same steps. */
async function logOf(steps: readonly Step[]) {
  const events = new SqliteEventStore(':memory:');
  await publishYaml(events, CATALOG, NOW - 30 * 86_400_000, metadata);
  // Uids counted: both logs of the same steps are the same, event for event.
  let uids = 0;
  const deps = { ...commandDepsFor(events, catalogOfYaml(CATALOG), () => NOW), newUid: () => `uid-${(uids += 1)}` };
  const done: { playerId: string; referenceId: string; name: string }[] = [];
  for (const [i, step] of steps.entries()) {
    if (step.kind === 'reverse') {
      const target = done.splice(done.length - 1 - (step.back % Math.max(1, done.length)), 1)[0];
      if (target) await reverseAction(target, origin, deps);
    } else if (step.kind === 'buy')
      await buyBundle({ playerId: PLAYERS[step.player], bundleUid: 'rare' }, origin, deps);
    else if (step.kind === 'adjust')
      await adjustPlayer(
        { playerId: PLAYERS[step.player], reason: 'support', keyName: 'test', points: step.points, deliverables: [] },
        origin,
        deps,
      );
    else {
      const action = { playerId: PLAYERS[step.player], referenceId: `r${i}`, name: step.name };
      const processed = await processAction(
        { ...action, timestamp: NOW - (steps.length - i) * 60_000, multiplier: 1, details: [] },
        origin,
        deps,
      );
      expect(processed.ok).toBe(true);
      done.push(action);
    }
  }
  return {
    events,
    deps,
    close: async () => {
      await deps.jobs.close();
      await events.close();
    },
  };
}

/** This process's open scratch files (SQLite's anonymous temporary databases, on disk once past its page cache). */
const openScratchFiles = (): string[] =>
  fs.readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      return target.includes('etilqs_') ? [target] : [];
    } catch {
      return [];
    }
  });

/**
 * Maps and Sets as entry lists, told by their tag: those read back from the scratch file come from
 * v8.deserialize, in the process's realm rather than the test's, which toEqual cannot compare.
 */
const plain = (value: unknown): unknown => {
  const tag = Object.prototype.toString.call(value);
  if (tag === '[object Map]') return { map: [...(value as Map<unknown, unknown>)].map(plain) };
  if (tag === '[object Set]') return { set: [...(value as Set<unknown>)].map(plain) };
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
};

describe('recompute with its players spilled to a scratch file', () => {
  it('replays, reports and appends the same as with every player in memory', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { minLength: 1, maxLength: 24 }),
        fc.integer({ min: 1, max: 3 }),
        async (steps, inMemory) => {
          const kept = await logOf(steps);
          const spilled = await logOf(steps);
          try {
            const whole = await replayLog(kept.events, DRAFT, {});
            const split = await replayLog(kept.events, DRAFT, { playersInMemory: inMemory });
            const players = [...whole.replayed()];
            expect(plain([...split.replayed()])).toEqual(plain(players));
            expect(split.report(100)).toEqual(whole.report(100));
            split.replayed().close();

            const run = (log: typeof kept, playersInMemory?: number) =>
              recompute(
                { ...log.deps, catalog: () => ({ version: 2, catalog: DRAFT }) },
                { recomputeUid: 'spill', dryRun: false, top: 100, metadata, playersInMemory },
              );
            expect(await run(spilled, inMemory)).toEqual(await run(kept));
            const appended = async (log: typeof kept) =>
              (await log.events.readAll()).map((e) => ({ stream: e.streamName, type: e.type, data: e.data }));
            expect(await appended(spilled)).toEqual(await appended(kept));
            expect(openScratchFiles()).toEqual([]);
          } finally {
            await kept.close();
            await spilled.close();
          }
        },
      ),
      {
        numRuns: 40,
        // Ties on both boards, the last contribution of a tied player reversed, then an earlier one.
        examples: [
          [
            [
              { kind: 'act', player: 0, name: 'train' },
              { kind: 'act', player: 1, name: 'train' },
              { kind: 'act', player: 2, name: 'earn' },
              { kind: 'act', player: 1, name: 'earn' },
              { kind: 'act', player: 0, name: 'earn' },
              { kind: 'reverse', back: 0 },
              { kind: 'act', player: 3, name: 'train' },
              { kind: 'reverse', back: 3 },
              { kind: 'adjust', player: 3, points: -40 },
            ],
            1,
          ],
        ],
      },
    );
  });

  it("ranks a tie by who reached the score first, a reversal of a player's latest contribution going back to the one before", async () => {
    const [first, second] = PLAYERS;
    const log = await logOf([
      { kind: 'act', player: 0, name: 'train' },
      { kind: 'act', player: 1, name: 'train' },
      { kind: 'act', player: 0, name: 'train' },
      { kind: 'reverse', back: 0 },
    ]);
    try {
      for (const playersInMemory of [undefined, 1]) {
        const replay = await replayLog(log.events, DRAFT, { playersInMemory });
        const { boards } = replay.report(100);
        replay.replayed().close();
        // Each with one training left: tied, the first player's standing since before the second's.
        for (const board of boards)
          for (const leaders of [board.before, board.after])
            expect(leaders.map((l) => [l.userId, l.rank])).toEqual([
              [first, 1],
              [second, 1],
            ]);
      }
    } finally {
      await log.close();
    }
  });

  it('leaves no scratch file when the recompute stops midway', async () => {
    const log = await logOf(PLAYERS.map((_, player) => ({ kind: 'act' as const, player, name: 'earn' as const })));
    try {
      const stopped = recompute(
        { ...log.deps, catalog: () => ({ version: 2, catalog: DRAFT }) },
        {
          recomputeUid: 'stopped',
          dryRun: false,
          top: 100,
          metadata,
          playersInMemory: 1,
          onProgress: () => {
            throw new Error('the service stopped');
          },
        },
      );
      await expect(stopped).rejects.toThrow('the service stopped');
      expect(openScratchFiles()).toEqual([]);
    } finally {
      await log.close();
    }
  });
});
