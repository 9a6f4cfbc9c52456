/**
 * A simulation split between threads, each replaying a share of the players (app/simulate-shares.ts):
 * the same report as the whole replay, and the whole replay again when the shares do not agree
 * on a limited trigger's activations.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SimulationStopped, simulateInShares } from '../app/simulate-shares';
import { processAction } from '../command-api/process-action/handler';
import { reverseAction } from '../command-api/reverse-action/handler';
import type { CommandDeps, CommandOrigin } from '../command-api/deps';
import { reportOf, sharesAgree } from '../command-api/replay/replay';
import { replayLog, simulate } from '../command-api/replay/replay-log';
import { readRunConfig } from '../shared/adapters/config/env';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import type { Catalog } from '../domain/catalog/schema';
import { playerStream, shareOf } from '../domain/streams';
import { variantFor } from '../domain/rules/experiments';
import { catalogOfYaml, commandDepsFor, publishYaml } from './support/command-deps';

const CATALOG = `
version: 1
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
actions:
  - { uid: act-earn, identifier: earn, points: 10, deliverables: [{ deliverable: gold, amount: 100 }] }
  - { uid: act-train, identifier: train, points: 3 }
badges:
  - { uid: b-veteran, label: Veteran, type: OneTimeOnly, points: 0, conditions: [{ action: train, challenge: { times: 3 } }] }
triggers:
  - { uid: t-first, label: First training, type: OneTimeOnly, limited: true, limit: 1, points: 5, conditions: [{ action: train }], deliverables: [{ deliverable: gold, amount: 7 }] }
levels:
  - { uid: lvl-1, label: Rookie, level: 1, target: 0 }
  - { uid: lvl-2, label: Regular, level: 2, target: 20 }
leaderboards:
  - { uid: lb-all, label: All-time, type: 0 }
`;

const parse = catalogOfYaml;
const draft = (from: string, to: string): Catalog => {
  expect(CATALOG).toContain(from);
  return parse(CATALOG.replace(from, to));
};
/** Drafts that change no player's takings of the limited trigger. */
const AGREEING: Record<string, Catalog> = {
  'the catalog in force': parse(CATALOG),
  "earn's points doubled": draft('identifier: earn, points: 10', 'identifier: earn, points: 20'),
  'a new badge': draft(
    'badges:',
    'badges:\n  - { uid: b-earner, label: Earner, type: OneTimeOnly, points: 1, conditions: [{ action: earn, challenge: { times: 2 } }] }',
  ),
  "the level's target raised": draft('target: 20', 'target: 200'),
  // Its totals per variant, each share's over its own players, add up to the whole's.
  'an experiment doubling earn for half the players': parse(
    `${CATALOG}experiments:
  - uid: exp-earn
    label: Double earn
    variants: [{ uid: control, weight: 1 }, { uid: double, weight: 1, patch: { actions: { act-earn: { points: 20 } } } }]
`,
  ),
};
/** The first taker no longer qualifies: the second player takes the activation instead. */
const CHANGED_TAKER = draft(
  'conditions: [{ action: train }]',
  'conditions: [{ action: train, challenge: { times: 2 } }]',
);

/** A new player whose stream is in share `index` of 2. */
const playerOfShare = (index: number): string => {
  for (;;) {
    const id = randomUUID();
    if (shareOf(playerStream(id), 2) === index) return id;
  }
};

const origin: CommandOrigin = {
  metadata: { correlationId: 'test', causationId: 'test', keyName: 'test', catalogVersion: 1 },
  idempotency: null,
};

describe('a simulation split into shares of the players', () => {
  let dataDir: string;
  let events: SqliteEventStore;
  let deps: CommandDeps;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'simulate-shares-'));
    events = new SqliteEventStore(path.join(dataDir, 'events.sqlite'));
    await publishYaml(events, CATALOG, Date.UTC(2026, 5, 1), {
      correlationId: 'start',
      causationId: 'start',
      keyName: 'operator',
    });
    deps = commandDepsFor(events, parse(CATALOG));
    const act = async (playerId: string, name: string) => {
      const referenceId = randomUUID();
      const done = await processAction(
        { playerId, referenceId, name, timestamp: Date.UTC(2026, 5, 1), multiplier: 1, details: [] },
        origin,
        deps,
      );
      expect(done.ok).toBe(true);
      return referenceId;
    };
    // The first taker in share 0, the one left without in share 1, and others on both sides.
    const taker = playerOfShare(0);
    const second = playerOfShare(1);
    await act(taker, 'train');
    await act(second, 'train');
    await act(second, 'train');
    for (const index of [0, 1, 0, 1, 1]) {
      const player = playerOfShare(index);
      await act(player, 'earn');
      const reversed = await act(player, 'earn');
      await act(player, 'train');
      if (index === 1)
        expect((await reverseAction({ playerId: player, referenceId: reversed, name: 'earn' }, origin, deps)).ok).toBe(
          true,
        );
    }
    await act(taker, 'earn');
    await act(second, 'train');
  });
  afterAll(async () => {
    await deps.jobs.close();
    await events.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const inShares = async (catalog: Catalog) => {
    const head = await events.headPosition();
    const parts = [];
    for (const index of [0, 1])
      parts.push((await replayLog(events, catalog, { recompute: false, share: { index, count: 2 }, head })).part(100));
    return parts;
  };

  it.each(Object.keys(AGREEING))('reports what the whole replay does, under %s', async (name) => {
    const catalog = AGREEING[name];
    const parts = await inShares(catalog);
    // Each share replayed only its own players.
    expect(parts.map((p) => p.eventsReplayed).every((n) => n > 0)).toBe(true);
    expect(sharesAgree(catalog, parts)).toBe(true);
    expect(reportOf(parts, 100)).toEqual(await simulate(events, catalog, { top: 100 }));
  });

  it("does not agree when the draft changes who takes a limited trigger's activation", async () => {
    const parts = await inShares(CHANGED_TAKER);
    expect(sharesAgree(CHANGED_TAKER, parts)).toBe(false);
    // What a share counted of the other's takings was the recorded one: its report is not the whole's.
    expect(reportOf(parts, 100)).not.toEqual(await simulate(events, CHANGED_TAKER, { top: 100 }));
  });

  it('on threads, answers the whole replay: agreeing, and replayed whole when the shares do not agree or a thread fails', async () => {
    const config = readRunConfig({ DATA_DIR: dataDir });
    for (const catalog of [AGREEING["earn's points doubled"], CHANGED_TAKER]) {
      const whole = await simulate(events, catalog, { top: 100 });
      // Split from the first event: this log is short.
      expect(await simulateInShares(config, events, catalog, { top: 100 }, 0)).toEqual(whole);
    }
    // A thread that cannot open the log (another DATA_DIR, empty) leaves the replay to this one.
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'simulate-shares-empty-'));
    try {
      const catalog = AGREEING["earn's points doubled"];
      expect(await simulateInShares(readRunConfig({ DATA_DIR: elsewhere }), events, catalog, { top: 100 }, 0)).toEqual(
        await simulate(events, catalog, { top: 100 }),
      );
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
    // The second player takes the activation under the draft: 5 points and 7 gold more.
    const second = (await simulate(events, CHANGED_TAKER, { top: 100 })).players.find((p) =>
      p.balances.some((b) => b.deliverableUid === 'gold' && b.after === b.before + 7),
    );
    expect(second).toBeDefined();
  });

  it('on threads, stops when each share passes its part of SIMULATE_MAX_HEAP_MB, without replaying whole', async () => {
    const config = readRunConfig({ DATA_DIR: dataDir, SIMULATE_MAX_HEAP_MB: '1' });
    const run = simulateInShares(config, events, AGREEING["earn's points doubled"], { top: 100 }, 0);
    await expect(run).rejects.toEqual(new SimulationStopped('memory'));
  });

  it('on threads, stops when the service stops: the threads are ended', async () => {
    const config = readRunConfig({ DATA_DIR: dataDir });
    const stopping = new AbortController();
    const run = simulateInShares(
      config,
      events,
      AGREEING["earn's points doubled"],
      { top: 100, signal: stopping.signal },
      0,
    );
    stopping.abort();
    await expect(run).rejects.toEqual(new SimulationStopped('stopping'));
  });
});

/** A trigger on training, unlimited in the base game, one activation over all players in variant `scarce`. */
const VARIANT_CATALOG = `
version: 1
actions:
  - { uid: act-train, identifier: train, points: 3 }
triggers:
  - { uid: t-scarce, label: Scarce, type: OneTimeOnly, points: 5, conditions: [{ action: train }] }
experiments:
  - uid: exp-scarce
    label: A scarce trigger
    variants:
      - { uid: control, weight: 1 }
      - { uid: scarce, weight: 1, patch: { triggers: { t-scarce: { limited: true, limit: 1 } } } }
`;

describe('a simulation split into shares, with a trigger limited in a variant only', () => {
  const catalog = parse(VARIANT_CATALOG);
  /** The variant's first taker no longer qualifies: the second player of the variant takes the activation instead. */
  const changedTaker = parse(
    VARIANT_CATALOG.replace(
      '{ limited: true, limit: 1 }',
      '{ limited: true, limit: 1, conditions: [{ action: train, challenge: { times: 2 } }] }',
    ),
  );
  /** A new player whose stream is in share `index` of 2 and whom the experiment puts in `variant`. */
  const playerOf = (index: number, variant: string): string => {
    for (;;) {
      const id = playerOfShare(index);
      if (variantFor(catalog.experiments[0], id).uid === variant) return id;
    }
  };
  let events: SqliteEventStore;
  let deps: CommandDeps;

  beforeAll(async () => {
    events = new SqliteEventStore(':memory:');
    await publishYaml(events, VARIANT_CATALOG, Date.UTC(2026, 5, 1), {
      correlationId: 'start',
      causationId: 'start',
      keyName: 'operator',
    });
    deps = commandDepsFor(events, catalog);
    const train = async (playerId: string) => {
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
      expect(done.ok).toBe(true);
    };
    const held = async (playerId: string) =>
      (await deps.players.load(playerId)).state.holdings.filter((h) => h.uid === 't-scarce').length;
    // The variant's taker in share 0, then in share 1 one who trains twice and finds none left; a control player takes it too.
    const taker = playerOf(0, 'scarce');
    const second = playerOf(1, 'scarce');
    const control = playerOf(1, 'control');
    for (const playerId of [taker, second, second, control]) await train(playerId);
    expect(await Promise.all([taker, second, control].map(held))).toEqual([1, 0, 1]);
  });
  afterAll(async () => {
    await deps.jobs.close();
    await events.close();
  });

  const inShares = async (draft: Catalog) => {
    const head = await events.headPosition();
    const parts = [];
    for (const index of [0, 1])
      parts.push((await replayLog(events, draft, { recompute: false, share: { index, count: 2 }, head })).part(100));
    return parts;
  };

  it('reports what the whole replay does under the catalog in force: no player changes', async () => {
    const parts = await inShares(catalog);

    expect(sharesAgree(catalog, parts)).toBe(true);
    const whole = await simulate(events, catalog, { top: 100 });
    expect(whole).toMatchObject({ playersAffected: 0, problems: [] });
    expect(reportOf(parts, 100)).toEqual(whole);
  });

  it("does not agree when the draft changes who takes the variant's activation", async () => {
    const parts = await inShares(changedTaker);

    expect(sharesAgree(changedTaker, parts)).toBe(false);
    // The second player takes it in the whole replay; their share counted the taker's recorded one.
    const whole = await simulate(events, changedTaker, { top: 100 });
    expect(whole.playersAffected).toBe(2);
    expect(reportOf(parts, 100)).not.toEqual(whole);
  });
});
