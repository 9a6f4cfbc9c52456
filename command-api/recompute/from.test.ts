import { randomUUID } from 'node:crypto';
import { SqliteEventStore } from '../../shared/adapters/event-store/sqlite';
import { catalogOfYaml, commandDepsFor, publishYaml } from '../../test/support/command-deps';
import type { CommandDeps, CommandOrigin } from '../deps';
import { processAction } from '../process-action/handler';
import { recompute } from './run';

const CATALOG = `
version: 1
deliverables:
  - { uid: token, label: Token, type: Prize, kind: Currency }
actions:
  - { uid: act-big, identifier: big, points: 60 }
  - { uid: act-small, identifier: small, points: 50 }
levels:
  - { uid: lvl-1, label: One, level: 1, target: 0 }
  - { uid: lvl-2, label: Two, level: 2, target: 100, deliverables: [{ deliverable: token, amount: 1 }] }
`;
const NOW = Date.UTC(2026, 5, 20, 12);
const DAY = 86_400_000;
const metadata = { correlationId: 'test', causationId: 'test', keyName: 'test', catalogVersion: 1 };
const origin: CommandOrigin = { metadata, idempotency: null };

describe('recompute from a date: a player whose actions arrived out of timestamp order', () => {
  let events: SqliteEventStore;
  let deps: CommandDeps;
  beforeEach(async () => {
    events = new SqliteEventStore(':memory:');
    await publishYaml(events, CATALOG, NOW - 30 * DAY, metadata);
    deps = commandDepsFor(events, catalogOfYaml(CATALOG), () => NOW);
  });
  afterEach(async () => {
    await deps.jobs.close();
    await events.close();
  });

  it('given an action dated before the start that reached a level after one dated after it, when recomputed from the start, then the level is granted once, as a full recompute grants it', async () => {
    const player = randomUUID();
    for (const [name, timestamp] of [
      ['big', NOW],
      ['small', NOW - 10 * DAY],
    ] as const) {
      const done = await processAction(
        { playerId: player, referenceId: randomUUID(), name, timestamp, multiplier: 1, details: [] },
        origin,
        deps,
      );
      if (!done.ok) throw new Error(done.failure.message);
    }
    const published = { version: 2, catalog: catalogOfYaml(CATALOG.replace('points: 60', 'points: 120')) };
    const run = (from?: number) =>
      recompute(
        { ...deps, catalog: () => published },
        { recomputeUid: randomUUID(), from, dryRun: true, top: 10, metadata },
      );
    const full = (await run()).report.players;
    expect(full).toEqual([expect.objectContaining({ pointsBefore: 110, pointsAfter: 170, balances: [] })]);
    expect((await run(NOW - DAY)).report.players).toEqual(full);
  });
});
