import { randomUUID } from 'node:crypto';
import { parseCatalog } from '../../domain/catalog/load';
import type { Catalog } from '../../domain/catalog/schema';
import type { EventStore, StreamAppend } from '../../shared/adapters/event-store/port';
import { SqliteEventStore } from '../../shared/adapters/event-store/sqlite';
import { stockEventOf } from '../../domain/events';
import { stockStream, TRIGGER_ACTIVATIONS } from '../../domain/streams';
import { commandDepsFor, publishYaml } from '../../test/support/command-deps';
import type { CommandDeps, CommandOrigin } from '../deps';
import { processAction } from '../process-action/handler';
import { recompute } from './run';

/** One activation over all players of a trigger on training; the draft moves it to earning. */
const CATALOG = `
version: 1
actions:
  - { uid: act-earn, identifier: earn, points: 10 }
  - { uid: act-train, identifier: train, points: 3 }
triggers:
  - { uid: t-first, label: First, type: OneTimeOnly, limited: true, limit: 1, points: 5, conditions: [{ action: train }] }
`;

const parse = (yaml: string): Catalog => {
  const parsed = parseCatalog(yaml, 'catalog.yaml');
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  return parsed.catalog;
};
const catalog = parse(CATALOG);
const onEarn = parse(CATALOG.replace('conditions: [{ action: train }]', 'conditions: [{ action: earn }]'));
const metadata = { correlationId: 'test', causationId: 'test', keyName: 'test', catalogVersion: 1 };
const origin: CommandOrigin = { metadata, idempotency: null };

describe('recompute: a limited trigger stock moves with the activations it gives and takes', () => {
  let events: SqliteEventStore;
  let deps: CommandDeps;
  const published = { version: 2, catalog: onEarn };
  /** Live actions under the catalog a recompute publishes. */
  const live = () => ({ ...deps, catalog: () => published });
  const act = async (d: CommandDeps, playerId: string, name: string) => {
    const done = await processAction(
      { playerId, referenceId: randomUUID(), name, timestamp: Date.UTC(2026, 5, 1), multiplier: 1, details: [] },
      origin,
      d,
    );
    if (!done.ok) throw new Error(done.failure.message);
  };
  const run = (store: EventStore = events) =>
    recompute(
      { ...deps, events: store, catalog: () => published },
      { recomputeUid: randomUUID(), dryRun: false, top: 100, metadata },
    );
  const taken = async () => (await deps.stocks.load(TRIGGER_ACTIVATIONS, 't-first')).state.taken;
  const holds = async (playerId: string) =>
    (await deps.players.load(playerId)).state.holdings.filter((h) => h.uid === 't-first').length;
  const stockEvents = async () =>
    (await events.readStream(stockStream(TRIGGER_ACTIVATIONS, 't-first'))).map((e) => {
      const stock = stockEventOf(e)!;
      return { type: stock.type, playerId: stock.data.playerId, units: stock.data.units };
    });

  beforeEach(async () => {
    events = new SqliteEventStore(':memory:');
    await publishYaml(events, CATALOG, Date.UTC(2026, 5, 1), metadata);
    deps = commandDepsFor(events, catalog);
  });
  afterEach(async () => {
    await deps.jobs.close();
    await events.close();
  });

  it('given the activation recorded for a trainer, when a draft gives it to an earlier earner, then it moves and the trigger stays at its limit', async () => {
    const earner = randomUUID();
    const trainer = randomUUID();
    // The earner comes first in the log: its take waits for the trainer's unit given back.
    await act(deps, earner, 'earn');
    await act(deps, trainer, 'train');
    expect(await taken()).toBe(1);

    const { applied } = await run();

    expect(applied).toBe(true);
    expect([await holds(earner), await holds(trainer)]).toEqual([1, 0]);
    expect(await taken()).toBe(1);
    expect((await stockEvents()).slice(1)).toEqual([
      { type: TRIGGER_ACTIVATIONS.returned, playerId: trainer, units: 1 },
      { type: TRIGGER_ACTIVATIONS.taken, playerId: earner, units: 1 },
    ]);
    const latecomer = randomUUID();
    await act(live(), latecomer, 'earn');
    expect(await holds(latecomer)).toBe(0);
    expect(await taken()).toBe(1);
  });

  it('given the activation recorded for a trainer, when a draft no longer awards it, then the unit is given back and a live action takes it', async () => {
    const trainer = randomUUID();
    await act(deps, trainer, 'train');

    await run();

    expect(await holds(trainer)).toBe(0);
    expect(await taken()).toBe(0);
    const latecomer = randomUUID();
    await act(live(), latecomer, 'earn');
    expect(await holds(latecomer)).toBe(1);
    expect(await taken()).toBe(1);
  });

  it('given a live action taking the unit while the recompute runs, then the gaining player conflicts and a later pass completes', async () => {
    const earner = randomUUID();
    const rival = randomUUID();
    await act(deps, earner, 'earn');
    const attempts: string[][] = [];
    // Just before the recompute's first append, a rival's live action takes the unit.
    const racing = new Proxy(events, {
      get(target, prop) {
        if (prop === 'appendToStreams')
          return async (appends: readonly StreamAppend[]) => {
            if (!attempts.length) await act(live(), rival, 'earn');
            attempts.push(appends.map((a) => a.stream));
            return target.appendToStreams(appends);
          };
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });

    const { applied } = await run(racing);

    expect(applied).toBe(true);
    // The first attempt took the unit at the revision the replay read; the live take made it conflict.
    expect(attempts[0]).toContain(stockStream(TRIGGER_ACTIVATIONS, 't-first'));
    expect([await holds(earner), await holds(rival)]).toEqual([0, 1]);
    expect(await taken()).toBe(1);
    expect((await stockEvents()).map((e) => e.playerId)).toEqual([rival]);
  });
});
