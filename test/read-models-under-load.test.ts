/**
 * Issue 44's load, scaled down: 6,000 new players, 100 an append, 8 appends at once, projected
 * while they come (a batch's flush once forgot documents first read during it: shared/adapters/
 * read-store/batched.ts), then the read models checked against a replay, before and after a
 * restart. The read models file keeps 4,000 documents in memory, not 20,000: the players
 * outnumber them by half, as 30,000 players outnumber the service's 20,000, so documents leave
 * memory and are read back from the file during batches as they did, in a fifth of the time. The
 * service's projection path without HTTP or the personal-data codec, whose costs for so many
 * players would take minutes on a loaded machine: the runner over the embedded log and the read
 * models file. The players are copies of one the action handler registered, with ids of their own.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { processAction } from '../command-api/process-action/handler';
import { PROJECTORS } from '../projections/projectors';
import { ProjectionRunner } from '../projections/runner';
import { verifyReadModels } from '../projections/verify';
import type { NewEvent } from '../shared/adapters/event-store/port';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { FileBackedReadStore } from '../shared/adapters/read-store/file-backed';
import { newEventId } from '../domain/ids';
import { PLAYERS_COLLECTION } from '../shared/read-models/players';
import { catalogOfYaml, commandDepsFor, publishYaml } from './support/command-deps';
import { tempDir } from './support/service';

const PLAYERS = 6_000;
/** Documents the read models file keeps in memory: fewer than the players, in the service's proportion. */
const CACHED_DOCUMENTS = 4_000;
const PER_APPEND = 100;
const AT_ONCE = 8;
/** Generous: the machine running the tests may be loaded. */
const PROJECTED_WAIT_MS = 120_000;

const CATALOG = `
version: 1
deliverables:
  - { uid: gold, label: Gold, type: Prize, kind: Currency }
actions:
  - { uid: act-join, identifier: join, points: 10, deliverables: [{ deliverable: gold, amount: 5 }] }
levels:
  - { uid: lvl-1, label: Rookie, level: 1, target: 0 }
leaderboards:
  - { uid: lb-all, label: All-time, type: 0 }
`;
const NOW = Date.UTC(2026, 5, 1);
const TEMPLATE_PLAYER = 'ffffffff-ffff-4fff-8fff-ffffffffffff';
const TEMPLATE_REF = 'template-join';

const log = pino({ level: 'silent' });
let dataDir: string;
let events: SqliteEventStore;
let readStore: FileBackedReadStore;
let runner: ProjectionRunner | undefined;
/** What the read models file refused: nothing, on a healthy disk. */
const writeErrors: unknown[] = [];

/** The projections as the service starts them: the read models file, resumed where it was. */
async function startProjections(): Promise<void> {
  readStore = new FileBackedReadStore(path.join(dataDir, 'read-models.sqlite'), (error) => writeErrors.push(error), {
    cachedDocuments: CACHED_DOCUMENTS,
  });
  runner = new ProjectionRunner(events, readStore, PROJECTORS, log);
  await runner.start();
}

async function stopProjections(): Promise<void> {
  await runner?.stop();
  await readStore.close();
}

async function verified(): Promise<void> {
  const live = runner!;
  expect(await live.waitFor(await events.headPosition(), PROJECTED_WAIT_MS)).toBe(true);
  const verification = await verifyReadModels(events, readStore, PROJECTORS, {
    waitForLive: (position) => live.waitFor(position, PROJECTED_WAIT_MS),
  });
  expect(verification.differences).toEqual([]);
  expect(verification.unsettled).toBe(0);
  expect(writeErrors).toEqual([]);
  expect(await readStore.collection(PLAYERS_COLLECTION).countDocuments({})).toBe(PLAYERS + 1);
}

beforeAll(async () => {
  dataDir = tempDir('under-load-');
  events = new SqliteEventStore(path.join(dataDir, 'events.sqlite'));
  await publishYaml(events, CATALOG, NOW, { correlationId: 'start', causationId: 'start', keyName: 'operator' });
});
afterAll(async () => {
  await stopProjections();
  await events.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it(`keeps the read models of ${PLAYERS.toLocaleString('en')} new players appended ${PER_APPEND} at a time, ${AT_ONCE} appends at once, through a restart`, async () => {
  await startProjections();
  const deps = commandDepsFor(events, catalogOfYaml(CATALOG), () => NOW);
  const before = await events.headPosition();
  const joined = await processAction(
    { playerId: TEMPLATE_PLAYER, referenceId: TEMPLATE_REF, name: 'join', timestamp: NOW, multiplier: 1, details: [] },
    { metadata: { correlationId: 'c', causationId: 'c', keyName: 'backend', catalogVersion: 1 }, idempotency: null },
    deps,
  );
  await deps.jobs.close();
  expect(joined.ok).toBe(true);
  const template = (await events.readAll({ fromPosition: before })).map((e) => ({
    stream: e.streamName,
    type: e.type,
    json: JSON.stringify(e.data),
    metadata: e.metadata,
  }));

  let next = 0;
  const appender = async () => {
    for (let batch = next++; batch < PLAYERS / PER_APPEND; batch = next++) {
      const streams = new Map<string, NewEvent[]>();
      for (let i = 0; i < PER_APPEND; i++) {
        const playerId = randomUUID();
        const own = (text: string) =>
          text.split(TEMPLATE_PLAYER).join(playerId).split(TEMPLATE_REF).join(`join-${batch}-${i}`);
        for (const e of template) {
          const stream = own(e.stream);
          const event = { id: newEventId(), type: e.type, data: JSON.parse(own(e.json)), metadata: e.metadata };
          streams.set(stream, [...(streams.get(stream) ?? []), event]);
        }
      }
      await events.appendToStreams(
        [...streams].map(([stream, list]) => ({ stream, events: list, expectedRevision: 'no_stream' as const })),
      );
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, appender));
  await verified();
  await stopProjections();
  await startProjections();
  await verified();
}, 600_000);
