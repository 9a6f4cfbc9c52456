import { randomUUID } from 'node:crypto';
import { PersonalDataCodec } from '../../shared/adapters/event-store/personal-data';
import { SqliteEventStore } from '../../shared/adapters/event-store/sqlite';
import { SqlitePlayerKeys } from '../../shared/adapters/player-keys/sqlite';
import { catalogOfYaml, commandDepsFor, publishYaml } from '../../test/support/command-deps';
import type { CommandDeps, CommandOrigin } from '../deps';
import { erasePlayer } from '../erase-player/handler';
import { processAction } from '../process-action/handler';
import { recompute } from '../recompute/run';
import { simulate } from './replay-log';

// The badge's and the limited trigger's challenges sum a detail: an erased player's details read
// [erased], and sum nothing.
const CATALOG = `
version: 1
actions:
  - { uid: act-purchase, identifier: purchase, points: 1, actionObjects: [{ label: amount, type: Number }] }
  - { uid: act-visit, identifier: visit, points: 5 }
badges:
  - { uid: b-spender, label: Spender, type: OneTimeOnly, points: 100, conditions: [{ action: purchase, challenge: { sum: { field: amount, atLeast: 100 } } }] }
triggers:
  - { uid: t-first-big, label: First big purchase, type: OneTimeOnly, limited: true, limit: 1, points: 10, conditions: [{ action: purchase, challenge: { sum: { field: amount, atLeast: 100 } } }] }
leaderboards:
  - { uid: lb-all, label: All-time, type: 0 }
`;
const catalog = catalogOfYaml(CATALOG);
const metadata = { correlationId: 'test', causationId: 'test', keyName: 'test', catalogVersion: 1 };
const origin: CommandOrigin = { metadata, idempotency: null };

describe('simulate and recompute with an erased player in the log', () => {
  let events: PersonalDataCodec;
  let deps: CommandDeps;
  const erased = randomUUID();
  const other = randomUUID();

  beforeAll(async () => {
    const keys = new SqlitePlayerKeys(':memory:');
    events = new PersonalDataCodec(new SqliteEventStore(':memory:'), keys);
    await publishYaml(events, CATALOG, Date.UTC(2026, 5, 1), metadata);
    deps = commandDepsFor(events, catalog);
    // The erased player took the limited trigger's one activation; the other player came too late.
    for (const [playerId, name, amount] of [
      [erased, 'visit', null],
      [erased, 'purchase', '150'],
      [other, 'purchase', '200'],
    ]) {
      const done = await processAction(
        {
          playerId: playerId!,
          referenceId: randomUUID(),
          name: name!,
          timestamp: Date.UTC(2026, 5, 1),
          multiplier: 1,
          details: amount ? [{ name: 'amount', value: amount }] : [],
        },
        origin,
        deps,
      );
      if (!done.ok) throw new Error(done.failure.message);
    }
    const done = await erasePlayer({ playerId: erased }, origin, deps, keys, 0);
    if (!done.ok) throw new Error(done.failure.message);
  });
  afterAll(async () => {
    await deps.jobs.close();
    await events.close();
  });

  it('given the catalog in force as the draft, when simulated, then nothing changes and the boards rank no erased player', async () => {
    const report = await simulate(events, catalog, { top: 10 });
    expect(report.playersAffected).toBe(0);
    expect(report.problems).toEqual([]);
    const board = report.boards.find((b) => b.leaderboardUid === 'lb-all')!;
    expect(board.before.map((e) => e.userId)).toEqual([other]);
    expect(board.after).toEqual(board.before);
  });

  it('given a draft that changes what the erased player earned, when simulated, then the report leaves them out', async () => {
    const report = await simulate(events, catalogOfYaml(CATALOG.replace('points: 5', 'points: 50')), { top: 10 });
    expect(report.players).toEqual([]);
    expect(report.boards.find((b) => b.leaderboardUid === 'lb-all')!.after.map((e) => e.userId)).toEqual([other]);
  });

  it('given the catalog in force, when recomputed, then the report is empty and nothing is appended', async () => {
    const published = () => ({ version: 2, catalog });
    const head = await events.headPosition();
    for (const dryRun of [true, false]) {
      const { report } = await recompute(
        { ...deps, catalog: published },
        { recomputeUid: randomUUID(), dryRun, top: 10, metadata },
      );
      expect(report.playersAffected).toBe(0);
    }
    expect(await events.headPosition()).toBe(head);
  });
});
