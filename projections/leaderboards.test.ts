/**
 * Standings after reversals are those of a history without the reversed actions, ties included:
 * any history of actions, chest points and reversals (in any order, some revoking awards of later
 * actions) is projected, and compared with the projection of the same history with the reversed
 * actions left out (and the awards they brought down never granted).
 */
import fc from 'fast-check';
import type { EventStore, RecordedEvent } from '../shared/adapters/event-store/port';
import { SqliteEventStore } from '../shared/adapters/event-store/sqlite';
import { domainEventOf, type EventType } from '../domain/events';
import { MemoryReadStore } from '../shared/adapters/read-store/memory';
import { LEADERBOARD_COLLECTIONS, type ScoreDoc } from '../shared/read-models/leaderboards';
import { playerStream } from '../domain/streams';
import { publishYaml } from '../test/support/command-deps';
import { LATEST_KEPT, leaderboardsProjector } from './leaderboards';
import { replay } from './verify';

const metadata = { correlationId: 'c', causationId: 'c', keyName: 'test', catalogVersion: 1 };
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 3, 6, 12);
const CATALOG = `
version: 1
actions:
  - { uid: act-earn, identifier: earn }
  - { uid: act-play, identifier: play }
leaderboards:
  - { uid: lb-points, label: Points, type: 0 }
  - { uid: lb-daily, label: Daily, type: 1, season: daily }
  - { uid: lb-earners, label: Earners, type: 0, metric: { action: earn } }
`;

type Step =
  | { kind: 'act'; player: number; name: 'earn' | 'play'; points: number; award: number; day: number }
  | { kind: 'chest'; player: number; points: number; day: number }
  /** Reverses the `back`-th latest action still in effect, revoking the `revoke`-th award it can bring down (or none). */
  | { kind: 'reverse'; back: number; revoke: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('act' as const),
      player: fc.nat(1),
      name: fc.constantFrom('earn' as const, 'play' as const),
      points: fc.constantFrom(0, 5, 10),
      award: fc.constantFrom(0, 0, 5),
      day: fc.nat(1),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('chest' as const),
      player: fc.nat(1),
      points: fc.constantFrom(0, 3, 10),
      day: fc.nat(1),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('reverse' as const),
      back: fc.oneof(fc.constant(0), fc.nat(3), fc.nat(40)),
      revoke: fc.nat(3),
    }),
  },
);

interface Action {
  ref: string;
  playerId: string;
  name: string;
  ts: number;
  points: number;
  /** Points of the award the action brought, while it holds it (0: none). */
  award: number;
  awardRevoked: boolean;
  reversed: boolean;
}

interface Written {
  stream: string;
  type: EventType;
  data: object;
}

/** The log a script writes, and the same history without the reversed actions. */
function histories(steps: readonly Step[]): { withReversals: Written[]; without: Written[] } {
  const players = ['0b0e2d9a-6a43-4c43-9b8a-2f6f1d8c0001', '0b0e2d9a-6a43-4c43-9b8a-2f6f1d8c0002'];
  const actions: Action[] = [];
  const log: (Written | { action: Action } | { chest: Written })[] = [];
  steps.forEach((s, n) => {
    if (s.kind === 'act') {
      const action: Action = {
        ref: `r${n}`,
        playerId: players[s.player],
        name: s.name,
        ts: T0 + s.day * DAY + n,
        points: s.points,
        award: s.award,
        awardRevoked: false,
        reversed: false,
      };
      actions.push(action);
      log.push({ action });
    } else if (s.kind === 'chest') {
      const playerId = players[s.player];
      log.push({
        chest: {
          stream: playerStream(playerId),
          type: 'ChestOpened',
          data: { playerId, openingUid: `o${n}`, openedAt: T0 + s.day * DAY + n, effects: { points: s.points } },
        },
      });
    } else {
      const live = actions.filter((a) => !a.reversed);
      if (live.length === 0) return;
      const target = live[live.length - 1 - (s.back % live.length)];
      target.reversed = true;
      const revokedAwards = [];
      if (target.award > 0 && !target.awardRevoked)
        revokedAwards.push({ awardedBy: target.ref, awardedAt: target.ts, points: target.award });
      // A later award of the same player whose condition no longer holds without this action.
      const later = actions.filter(
        (a) =>
          a.playerId === target.playerId &&
          actions.indexOf(a) > actions.indexOf(target) &&
          !a.reversed &&
          a.award > 0 &&
          !a.awardRevoked,
      );
      const revoked = later[s.revoke % (later.length + 1)];
      if (revoked) {
        revoked.awardRevoked = true;
        revokedAwards.push({ awardedBy: revoked.ref, awardedAt: revoked.ts, points: revoked.award });
      }
      log.push({
        stream: playerStream(target.playerId),
        type: 'ActionReversed',
        data: {
          playerId: target.playerId,
          referenceId: target.ref,
          actionName: target.name,
          timestamp: target.ts,
          reversedAt: target.ts,
          actionPoints: target.points,
          revokedAwards,
        },
      });
    }
  });
  const processed = (a: Action, earnedPoints: number): Written => ({
    stream: playerStream(a.playerId),
    type: 'ActionProcessed',
    data: {
      playerId: a.playerId,
      referenceId: a.ref,
      actionName: a.name,
      timestamp: a.ts,
      actionPoints: a.points,
      result: { earnedPoints },
    },
  });
  const withReversals = log.map((w) =>
    'action' in w ? processed(w.action, w.action.points + w.action.award) : 'chest' in w ? w.chest : w,
  );
  const without = log.flatMap((w) => {
    if ('chest' in w) return [w.chest];
    if (!('action' in w)) return [];
    const a = w.action;
    return a.reversed ? [] : [processed(a, a.points + (a.awardRevoked ? 0 : a.award))];
  });
  return { withReversals, without };
}

async function project(
  written: readonly Written[],
  log?: (events: EventStore) => EventStore,
): Promise<{ standings: Record<string, [string, number][]>; scores: ScoreDoc[] }> {
  const events = new SqliteEventStore(':memory:');
  try {
    await publishYaml(events, CATALOG, T0 - DAY, metadata);
    for (const w of written) {
      const stream = w.stream;
      await events.appendToStreams([
        {
          stream,
          events: [{ id: crypto.randomUUID(), type: w.type, data: w.data, metadata }],
          expectedRevision: 'any',
        },
      ]);
    }
    const store = new MemoryReadStore();
    await replay(log ? log(events) : events, store, [leaderboardsProjector], { to: await events.headPosition() });
    const scores = await store
      .collection<ScoreDoc>(LEADERBOARD_COLLECTIONS.scores)
      .find({ inStandings: true }, { sort: { board: 1, period: 1, score: -1, reachedAt: 1 } });
    const standings: Record<string, [string, number][]> = {};
    for (const s of scores) (standings[`${s.board} ${s.period}`] ??= []).push([s.playerId, s.score]);
    return { standings, scores };
  } finally {
    await events.close();
  }
}

describe('standings after reversals', () => {
  it('equal those of the history without the reversed actions, ties included, whatever the order of the reversals', async () => {
    let recounts = 0;
    /** The log the projector reads, counting its stream reads: each one is a recount. */
    const counting = (events: EventStore): EventStore =>
      Object.assign(Object.create(events) as EventStore, {
        readStream: (...args: Parameters<EventStore['readStream']>) => (recounts++, events.readStream(...args)),
      });
    await fc.assert(
      // Often ending with a run of reversals of the latest actions, which can take out every
      // contribution a score document keeps one by one.
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 120, size: 'max' }),
        fc.nat(60),
        async (steps, undo) => {
          const { withReversals, without } = histories([
            ...steps,
            ...Array.from({ length: undo }, (): Step => ({ kind: 'reverse', back: 0, revoke: 0 })),
          ]);
          const live = await project(withReversals, counting);
          const replayed = await project(without);
          expect(live.standings).toEqual(replayed.standings);
          for (const s of live.scores) expect(s.latest.length).toBeLessThanOrEqual(LATEST_KEPT);
        },
      ),
      { numRuns: 150, seed: 20261124 },
    );
    // Some histories reversed every contribution a document kept one by one, and were counted again.
    expect(recounts).toBeGreaterThan(0);
  }, 120_000);

  it('a score document applies an event once, however often it is delivered', async () => {
    const { withReversals } = histories([
      { kind: 'act', player: 0, name: 'earn', points: 10, award: 5, day: 0 },
      { kind: 'act', player: 0, name: 'earn', points: 5, award: 5, day: 0 },
      { kind: 'reverse', back: 1, revoke: 0 },
      { kind: 'chest', player: 0, points: 3, day: 0 },
    ]);
    const events = new SqliteEventStore(':memory:');
    try {
      await publishYaml(events, CATALOG, T0 - DAY, metadata);
      for (const w of withReversals)
        await events.appendToStreams([
          {
            stream: w.stream,
            events: [{ id: crypto.randomUUID(), type: w.type, data: w.data, metadata }],
            expectedRevision: 'any',
          },
        ]);
      const once = new MemoryReadStore();
      await replay(events, once, [leaderboardsProjector], { to: await events.headPosition() });
      const twice = new MemoryReadStore();
      const all: RecordedEvent[] = await events.readAll();
      for (const e of all) {
        const typed = domainEventOf(e)!;
        if (!leaderboardsProjector.handles.has(typed.type)) continue;
        await leaderboardsProjector.apply(typed, twice, events);
        await leaderboardsProjector.apply(typed, twice, events);
      }
      expect(await twice.collection(LEADERBOARD_COLLECTIONS.scores).find({})).toEqual(
        await once.collection(LEADERBOARD_COLLECTIONS.scores).find({}),
      );
    } finally {
      await events.close();
    }
  });
});
