/**
 * A trigger limited only in an experiment's variant: the live handler reads its stock, so the
 * replay (simulate, recompute) counts its activations from the log as it counts the base game's.
 */
import { randomUUID } from 'node:crypto';
import type { Catalog } from '../../domain/catalog/schema';
import { variantFor } from '../../domain/rules/experiments';
import { SqliteEventStore } from '../../shared/adapters/event-store/sqlite';
import { catalogOfYaml, commandDepsFor, publishYaml } from '../../test/support/command-deps';
import type { CommandDeps, CommandOrigin } from '../deps';
import { processAction } from '../process-action/handler';
import { stockEventOf } from '../../domain/events';
import { stockStream, TRIGGER_ACTIVATIONS } from '../../domain/streams';
import { simulate } from '../replay/replay-log';
import { recompute } from './run';

/** A welcome trigger on training, unlimited in the base game, limited to 2 over all players in variant `scarce`. */
const CATALOG = `
version: 1
actions:
  - { uid: act-train, identifier: train, points: 3 }
triggers:
  - { uid: t-welcome, label: Welcome, type: OneTimeOnly, points: 5, conditions: [{ action: train }] }
experiments:
  - uid: exp-scarce
    label: Does a scarce welcome bring players back?
    variants:
      - { uid: control, weight: 1 }
      - { uid: scarce, weight: 1, patch: { triggers: { t-welcome: { limited: true, limit: 2 } } } }
`;
const catalog = catalogOfYaml(CATALOG);
const metadata = { correlationId: 'test', causationId: 'test', keyName: 'test', catalogVersion: 1 };
const origin: CommandOrigin = { metadata, idempotency: null };

/** A new player the experiment puts in `variant`. */
const playerIn = (variant: string): string => {
  for (;;) {
    const id = randomUUID();
    if (variantFor(catalog.experiments[0], id).uid === variant) return id;
  }
};

describe('replay of a trigger limited in an experiment variant', () => {
  let events: SqliteEventStore;
  let deps: CommandDeps;
  const scarce = [playerIn('scarce'), playerIn('scarce'), playerIn('scarce')];
  const control = playerIn('control');
  const welcomed = async (playerId: string) =>
    (await deps.players.load(playerId)).state.holdings.filter((h) => h.uid === 't-welcome').length;
  const taken = async () => (await deps.stocks.load(TRIGGER_ACTIVATIONS, 't-welcome')).state.taken;

  beforeAll(async () => {
    events = new SqliteEventStore(':memory:');
    await publishYaml(events, CATALOG, Date.UTC(2026, 5, 1), metadata);
    deps = commandDepsFor(events, catalog);
    for (const playerId of [scarce[0], control, scarce[1], scarce[2]]) {
      const done = await processAction(
        {
          playerId,
          referenceId: randomUUID(),
          name: 'train',
          timestamp: Date.UTC(2026, 5, 1),
          multiplier: 1,
          details: [],
        },
        origin,
        deps,
      );
      if (!done.ok) throw new Error(done.failure.message);
    }
  });
  afterAll(async () => {
    await deps.jobs.close();
    await events.close();
  });

  it('given the live log, then the first 2 players of the variant got the trigger, the third not, the control player too', async () => {
    expect(await Promise.all([...scarce, control].map(welcomed))).toEqual([1, 1, 0, 1]);
    expect(await taken()).toBe(2);
  });

  it('when simulated under the catalog in force, then no player changes', async () => {
    const report = await simulate(events, catalog, { top: 100 });

    expect(report).toMatchObject({ actionsRedecided: 4, playersAffected: 0, players: [], problems: [] });
  });

  it("when simulated for some players only, then the others' activations stand and no player changes", async () => {
    const report = await simulate(events, catalog, { top: 100, players: new Set([scarce[1], scarce[2]]) });

    expect(report).toMatchObject({ actionsRedecided: 2, playersAffected: 0, players: [], problems: [] });
  });

  it('when a draft lowers the limit to 1, then the second player of the variant loses it, and a problem says why', async () => {
    const draft: Catalog = catalogOfYaml(CATALOG.replace('limit: 2', 'limit: 1'));

    const report = await simulate(events, draft, { top: 100 });

    expect(report.players.map((p) => [p.playerId, p.pointsBefore, p.pointsAfter])).toEqual([[scarce[1], 8, 3]]);
    expect(report.problems).toEqual([
      expect.objectContaining({
        playerId: scarce[1],
        message: expect.stringContaining('limited trigger t-welcome is beyond its limit of 1 under the draft'),
      }),
    ]);
  });

  it('when recomputed under the catalog in force, then nothing is written and the stock stays at its limit', async () => {
    const head = await events.headPosition();

    const { report, applied } = await recompute(deps, {
      recomputeUid: randomUUID(),
      dryRun: false,
      top: 100,
      metadata,
    });

    expect(applied).toBe(true);
    expect(report.playersAffected).toBe(0);
    expect(await events.headPosition()).toBe(head);
    expect(await Promise.all([...scarce, control].map(welcomed))).toEqual([1, 1, 0, 1]);
    expect(await taken()).toBe(2);
  });
});

describe('recompute of a trigger limited in an experiment variant: its stock moves within the limit', () => {
  /** The variant's trigger limited to 1, and an action to earn. */
  const LIMIT_1 = CATALOG.replace('limit: 2', 'limit: 1').replace(
    'actions:',
    'actions:\n  - { uid: act-earn, identifier: earn, points: 10 }',
  );
  const before = catalogOfYaml(LIMIT_1);
  /** The variant's trigger moved from training to earning. */
  const onEarn = catalogOfYaml(LIMIT_1.replace('limit: 1 }', 'limit: 1, conditions: [{ action: earn }] }'));
  let events: SqliteEventStore;
  let deps: CommandDeps;

  beforeEach(async () => {
    events = new SqliteEventStore(':memory:');
    deps = commandDepsFor(events, before);
  });
  afterEach(async () => {
    await deps.jobs.close();
    await events.close();
  });

  it("given the variant's activation recorded for a trainer, when the catalog gives it to an earlier earner, then it is given back before it is taken", async () => {
    const [earner, trainer] = [playerIn('scarce'), playerIn('scarce')];
    for (const [playerId, name] of [
      [earner, 'earn'],
      [trainer, 'train'],
    ])
      expect(
        (
          await processAction(
            { playerId, referenceId: randomUUID(), name, timestamp: Date.UTC(2026, 5, 1), multiplier: 1, details: [] },
            origin,
            deps,
          )
        ).ok,
      ).toBe(true);

    const { applied } = await recompute(
      { ...deps, catalog: () => ({ version: 2, catalog: onEarn }) },
      { recomputeUid: randomUUID(), dryRun: false, top: 100, metadata },
    );

    expect(applied).toBe(true);
    // The earner comes first in the log: its take waits for the trainer's unit given back, the stock never past 1.
    const moves = (await events.readStream(stockStream(TRIGGER_ACTIVATIONS, 't-welcome'))).map((e) => {
      const stock = stockEventOf(e)!;
      return { type: stock.type, playerId: stock.data.playerId };
    });
    expect(moves).toEqual([
      { type: TRIGGER_ACTIVATIONS.taken, playerId: trainer },
      { type: TRIGGER_ACTIVATIONS.returned, playerId: trainer },
      { type: TRIGGER_ACTIVATIONS.taken, playerId: earner },
    ]);
  });
});
