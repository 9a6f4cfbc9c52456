/**
 * The season settlement job over a store (command-api/settle-season/job.ts): it reads the standings
 * only once the projector has caught up with the log, settles once however many runs race or
 * repeat (a crash before the append runs it again; one after finds it settled), and runs again
 * later when found early.
 */
import { randomUUID } from 'node:crypto';
import { SqliteEventStore } from '../../shared/adapters/event-store/sqlite';
import { playerStream, seasonStream } from '../../domain/streams';
import { catalogOfYaml, commandDepsFor, publishYaml } from '../../test/support/command-deps';
import type { CommandOrigin } from '../deps';
import { processAction } from '../process-action/handler';
import type { SeasonStanding } from './decider';
import { settleSeason, type SeasonStandingsDeps } from './job';

const CATALOG = `
version: 1
settings: { timezone: UTC }
actions: [{ identifier: order, points: 10 }]
leaderboards:
  - { uid: lb-day, label: Daily, period: Day, prizes: [{ ranks: [1, 2], points: 7 }] }
`;
const DAY = 86_400_000;
const D0 = Date.UTC(2026, 5, 1);
const PAYLOAD = {
  leaderboardUid: 'lb-day',
  season: { key: '2026-06-01', start: D0, end: D0 + DAY },
  settleAt: D0 + DAY,
};
const metadata = { correlationId: 'test', causationId: 'test', keyName: 'test', catalogVersion: 1 };
const origin: CommandOrigin = { metadata, idempotency: null };

describe('the season settlement job', () => {
  let events: SqliteEventStore;
  let deps: SeasonStandingsDeps;
  let projected: boolean;
  let waitedFor: number[];
  let reads: number;
  const [ann, ben] = [randomUUID(), randomUUID()];
  const standings: SeasonStanding[] = [
    { playerId: ann, score: 20 },
    { playerId: ben, score: 10 },
  ];

  beforeEach(async () => {
    events = new SqliteEventStore(':memory:');
    await publishYaml(events, CATALOG, D0 - DAY, metadata);
    const command = commandDepsFor(events, catalogOfYaml(CATALOG), () => D0 + DAY + 1000);
    for (const playerId of [ann, ben]) {
      const cmd = {
        playerId,
        referenceId: randomUUID(),
        name: 'order',
        timestamp: D0 + 1000,
        multiplier: 1,
        details: [],
      };
      const done = await processAction(cmd, origin, { ...command, now: () => D0 + 2000 });
      if (!done.ok) throw new Error(done.failure.message);
    }
    [projected, waitedFor, reads] = [true, [], 0];
    deps = {
      ...command,
      waitForProjected: async (position) => {
        waitedFor.push(position);
        return projected;
      },
      seasonStandings: async (board, season, count) => {
        reads++;
        expect([board, season, count]).toEqual(['lb-day', '2026-06-01', 2]);
        return standings;
      },
    };
  });
  afterEach(async () => {
    await deps.jobs.close();
    await events.close();
  });

  const prizesOf = async (playerId: string) =>
    (await events.readStream(playerStream(playerId))).filter((e) => e.type === 'LeaderboardSeasonFinished');

  it("reads the standings once the projector has reached the log's head, and settles", async () => {
    await settleSeason(PAYLOAD, deps);
    expect(waitedFor).toEqual([(await events.headPosition()) - 3]);
    expect(reads).toBe(1);
    expect((await prizesOf(ann)).map((e) => e.data)).toEqual([expect.objectContaining({ rank: 1, score: 20 })]);
    expect((await prizesOf(ben)).map((e) => e.data)).toEqual([expect.objectContaining({ rank: 2, score: 10 })]);
  });

  it('throws without reading while the projector lags (the job runs again)', async () => {
    projected = false;
    await expect(settleSeason(PAYLOAD, deps)).rejects.toThrow('the read models lag the log');
    expect(reads).toBe(0);
    expect(await events.readStream(seasonStream('lb-day', '2026-06-01'))).toEqual([]);
  });

  it('settles once, whether runs race or repeat', async () => {
    await Promise.all([settleSeason(PAYLOAD, deps), settleSeason(PAYLOAD, deps)]);
    await settleSeason(PAYLOAD, deps);
    expect(await events.readStream(seasonStream('lb-day', '2026-06-01'))).toHaveLength(1);
    expect([(await prizesOf(ann)).length, (await prizesOf(ben)).length]).toEqual([1, 1]);
  });

  it('found early, schedules itself again and reads nothing', async () => {
    await settleSeason(PAYLOAD, { ...deps, now: () => D0 + DAY - 5000 });
    expect([waitedFor, reads]).toEqual([[], 0]);
    expect(await events.readStream(seasonStream('lb-day', '2026-06-01'))).toEqual([]);
  });
});
