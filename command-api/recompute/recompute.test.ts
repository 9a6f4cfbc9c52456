import { randomUUID } from 'node:crypto';
import type { Catalog } from '../../domain/catalog/schema';
import { WrongExpectedVersionError } from '../../shared/adapters/event-store/port';
import { SqliteEventStore } from '../../shared/adapters/event-store/sqlite';
import type { PlayerRecomputed } from '../../domain/events/player-events';
import type { PlayerState } from '../../domain/player/state';
import { playerStream, RECOMPUTE_STREAM } from '../../domain/streams';
import { catalogOfYaml, commandDepsFor, publishYaml } from '../../test/support/command-deps';
import { testEnv } from '../../test/support/player-spec';
import { buyBundle } from '../buy-bundle/handler';
import type { CommandDeps, CommandOrigin } from '../deps';
import { processAction } from '../process-action/handler';
import { reverseAction } from '../reverse-action/handler';
import { replayLog } from '../replay/replay-log';
import { decideRecompute, startRecomputeDecider } from './decider';
import { deciderSpec } from '../../test/support/decider-spec';
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
  - { uid: b-veteran, label: Veteran, type: OneTimeOnly, points: 0, conditions: [{ action: train, challenge: { times: 3 } }] }
levels:
  - { uid: lvl-1, label: Rookie, level: 1, target: 0 }
  - { uid: lvl-2, label: Regular, level: 2, target: 20 }
stores:
  - uid: main
    label: Main
    bundles:
      - { uid: rare, label: Rare sword, cost: 150, costDeliverable: gold, contents: [{ deliverable: sword, amount: 1 }] }
leaderboards:
  - { uid: lb-all, label: All-time, type: 0 }
`;

const parse = catalogOfYaml;
const catalog = parse(CATALOG);
const doubled = parse(CATALOG.replace('identifier: earn, points: 10,', 'identifier: earn, points: 20,'));
const metadata = { correlationId: 'test', causationId: 'test', keyName: 'test', catalogVersion: 1 };
const origin: CommandOrigin = { metadata, idempotency: null };

/** What a player holds, as a recompute must leave it. */
const holdings = (s: PlayerState) => ({
  points: s.points,
  balances: Object.fromEntries(s.balances),
  badges: s.holdings.map((h) => h.uid).sort(),
  levels: Object.fromEntries(s.levelsReached),
});

describe('recompute: the replayed history made the players own', () => {
  let events: SqliteEventStore;
  let deps: CommandDeps;
  let published: { version: number; catalog: Catalog };
  const earner = randomUUID();
  const trainer = randomUUID();
  const act = async (playerId: string, name: string, referenceId = randomUUID()) => {
    const done = await processAction(
      { playerId, referenceId, name, timestamp: Date.UTC(2026, 5, 1), multiplier: 1, details: [] },
      origin,
      deps,
    );
    if (!done.ok) throw new Error(done.failure.message);
    return referenceId;
  };
  const run = (dryRun = false) =>
    recompute({ ...deps, catalog: () => published }, { recomputeUid: randomUUID(), dryRun, top: 100, metadata });
  const recomputedEvents = async () =>
    (await events.readAll()).filter((e) => e.type === 'PlayerRecomputed').map((e) => e.data as PlayerRecomputed);
  const state = async (playerId: string) => holdings((await deps.players.load(playerId)).state);

  beforeEach(async () => {
    events = new SqliteEventStore(':memory:');
    await publishYaml(events, CATALOG, Date.UTC(2026, 5, 1), metadata);
    deps = commandDepsFor(events, catalog);
    published = { version: 1, catalog };
    await act(earner, 'earn');
    await act(earner, 'earn');
    for (let i = 0; i < 3; i++) await act(trainer, 'train');
  });
  afterEach(async () => {
    await deps.jobs.close();
    await events.close();
  });

  it('given the catalog in force, when recomputed, then nothing is appended', async () => {
    const head = await events.headPosition();
    const { report, applied } = await run();
    expect(report.playersAffected).toBe(0);
    expect(applied).toBe(true);
    expect(await events.headPosition()).toBe(head);
  });

  it('given a dry run under a draft doubling earn, then the report tells and nothing is appended', async () => {
    published = { version: 2, catalog: doubled };
    const head = await events.headPosition();
    const { report, applied } = await run(true);
    expect(applied).toBe(false);
    expect(report.players.map((p) => p.playerId)).toEqual([earner]);
    expect(await events.headPosition()).toBe(head);
  });

  it('given earn doubled, when recomputed, then exactly its players get one PlayerRecomputed and the doubled points', async () => {
    const trainerBefore = await state(trainer);
    published = { version: 2, catalog: doubled };
    await run();
    const written = await recomputedEvents();
    expect(written.map((e) => e.playerId)).toEqual([earner]);
    expect(written[0]).toMatchObject({
      catalogVersion: 2,
      changes: { pointsBefore: 20, pointsAfter: 40, levelBefore: 2, levelAfter: 2 },
      effects: { points: 20 },
    });
    expect(written[0].scores.map((s) => [s.before, s.after])).toEqual([
      [10, 20],
      [10, 20],
    ]);
    // The state's fields that changed (the points, the action level 2 came from), not the whole state.
    expect(Object.keys(written[0].state as object).sort()).toEqual(['levelOrigins', 'points']);
    expect((await state(earner)).points).toBe(40);
    expect(await state(trainer)).toEqual(trainerBefore);
    // Recomputing again under the same catalog has nothing left to change.
    await run();
    expect(await recomputedEvents()).toHaveLength(1);
  });

  it('given a recompute, when an action is reversed afterwards, then its recomputed points are taken back', async () => {
    const ref = await act(earner, 'earn');
    published = { version: 2, catalog: doubled };
    await run();
    expect((await state(earner)).points).toBe(60);
    const reversed = await reverseAction({ playerId: earner, referenceId: ref, name: 'earn' }, origin, deps);
    if (!reversed.ok) throw new Error(reversed.failure.message);
    expect(reversed.value.answer.actionPoints).toBe(20);
    expect((await state(earner)).points).toBe(40);
  });

  it('given a recompute and a recompute back under the earlier catalog, then every holding is restored', async () => {
    expect((await buyBundle({ playerId: earner, bundleUid: 'rare' }, origin, deps)).ok).toBe(true);
    const before = { earner: await state(earner), trainer: await state(trainer) };
    published = { version: 2, catalog: parse(CATALOG.replace('times: 3', 'times: 2')) };
    await run();
    published = { version: 3, catalog: doubled };
    await run();
    expect((await state(earner)).points).toBe(40);
    published = { version: 4, catalog };
    await run();
    expect({ earner: await state(earner), trainer: await state(trainer) }).toEqual(before);
    expect((await deps.players.load(earner)).state.recomputedActions.size).toBe(0);
  });

  it('given a recompute, when recomputed again from a later date, then the actions before it stand as the earlier one decided them (nothing appended under the same catalog)', async () => {
    published = { version: 2, catalog: doubled };
    await run();
    const later = await processAction(
      {
        playerId: earner,
        referenceId: randomUUID(),
        name: 'earn',
        timestamp: Date.UTC(2026, 5, 10),
        multiplier: 1,
        details: [],
      },
      origin,
      { ...deps, catalog: () => published },
    );
    if (!later.ok) throw new Error(later.failure.message);
    const recomputed = await state(earner);
    expect(recomputed.points).toBe(60);
    const head = await events.headPosition();
    const { report } = await recompute(
      { ...deps, catalog: () => published },
      { recomputeUid: randomUUID(), from: Date.UTC(2026, 5, 5), dryRun: false, top: 100, metadata },
    );
    expect(report.playersAffected).toBe(0);
    expect(await events.headPosition()).toBe(head);
    expect(await state(earner)).toEqual(recomputed);

    // Under another draft from that date: the actions before it keep the earlier recompute's points, the later one is decided again.
    published = {
      version: 3,
      catalog: parse(CATALOG.replace('identifier: earn, points: 10,', 'identifier: earn, points: 30,')),
    };
    const again = await recompute(
      { ...deps, catalog: () => published },
      { recomputeUid: randomUUID(), from: Date.UTC(2026, 5, 5), dryRun: false, top: 100, metadata },
    );
    expect(again.report.players).toEqual([
      expect.objectContaining({ playerId: earner, pointsBefore: 60, pointsAfter: 70 }),
    ]);
    expect((await state(earner)).points).toBe(70);
  });

  it('given a player who acts after the replay read, then that decision cannot be appended and a run ends as a replay gives', async () => {
    published = { version: 2, catalog: doubled };
    const replay = await replayLog(events, doubled, {});
    await act(earner, 'earn');
    const decided = decideRecompute({ recomputeUid: 'r', catalogVersion: 2 }, replay.replayed().get(earner)!, {
      ...testEnv(0),
      catalog: doubled,
    });
    const stale = decided.ok ? decided.value.answer : null;
    expect(stale?.readRevision).toBeLessThan((await deps.players.load(earner)).revision);
    await expect(
      events.appendToStreams([
        {
          stream: playerStream(earner),
          expectedRevision: stale!.readRevision,
          events: [{ id: randomUUID(), type: 'PlayerRecomputed', data: stale, metadata }],
        },
      ]),
    ).rejects.toThrow(WrongExpectedVersionError);
    await run();
    const written = await recomputedEvents();
    expect(written.map((e) => e.changes.pointsAfter)).toEqual([60]);
    expect((await state(earner)).points).toBe(60);
    // A replay of the whole history under the catalog gives the same: nothing left to change.
    expect((await replayLog(events, doubled, {})).report(10).playersAffected).toBe(0);
  });
});

describe('decideStartRecompute', () => {
  const env = { ...testEnv(1_000), newUid: () => 'r-new', catalog };
  /** As the route decides a start: on the recomputes its stream has unfinished, and those this process runs. */
  const starting = deciderSpec(startRecomputeDecider);
  const startedR1 = {
    [RECOMPUTE_STREAM]: [
      { type: 'RecomputeStarted', data: { recomputeUid: 'r-1', dryRun: false, catalogVersion: 1, startedAt: 500 } },
    ],
  };

  it('given a recompute this process runs, when another is asked for, then 9030', () => {
    starting
      .given(startedR1)
      .when({ dryRun: false, catalogVersion: 2, running: new Set(['r-1']) }, env)
      .thenFails(9030);
  });

  it('given one started by a process that stopped, when another is asked for, then it starts', () => {
    const decision = starting
      .given(startedR1)
      .when({ dryRun: true, catalogVersion: 2, running: new Set() }, env)
      .thenWrites({
        [RECOMPUTE_STREAM]: [
          {
            type: 'RecomputeStarted',
            data: { recomputeUid: 'r-new', dryRun: true, catalogVersion: 2, startedAt: 1_000 },
          },
        ],
      });
    expect(decision.answer).toEqual({ recomputeUid: 'r-new', status: 'Running' });
  });
});
