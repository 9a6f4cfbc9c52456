/**
 * Season prizes as deciders (docs/catalog.md, "leaderboards"): given the events recorded so far,
 * when an action is processed or a season's settlement is decided on the standings the job read,
 * then the events it writes and the jobs it schedules.
 */
import type { Catalog } from '../../domain/catalog/types';
import type { DomainEvent } from '../../domain/events';
import type { LeaderboardSeasonFinished } from '../../domain/events/season-events';
import { playerStream, seasonStream } from '../../domain/streams';
import { noEffects } from '../../domain/events/common';
import { deciderSpec, readPlayer, type Then } from '../../test/support/decider-spec';
import { catalogOf, testEnv } from '../../test/support/player-spec';
import type { Decision } from '../decision';
import { processActionDecider } from '../process-action/decider';
import {
  SETTLE_SEASON,
  settleSeasonDecider,
  settleSeasonJobId,
  type SeasonStanding,
  type SettleSeasonAnswer,
} from './decider';

const DAY = 86_400_000;
/** 2026-06-01T00:00Z: the season `2026-06-01` of a daily board in UTC. */
const D0 = Date.UTC(2026, 5, 1);
const SEASON = { key: '2026-06-01', start: D0, end: D0 + DAY };

const CATALOG = (prizes = PRIZES, extra = '') =>
  catalogOf(`
  version: 1
  settings: { timezone: UTC }
  deliverables: [{ uid: beans, label: Beans, type: Prize, kind: Currency }]
  actions:
    - { identifier: order, points: 10 }
    - { identifier: visit }
  levels: [{ level: 1, target: 0, label: One }, { level: 2, target: 100, label: Two }]
  leaderboards:
    - { uid: lb-day, label: Daily, period: Day, settleAfterSeconds: 30, prizes: ${prizes} }
    - { uid: lb-visits, label: Visits, period: Day, metric: { action: visit }, prizes: [{ ranks: [1, 1], points: 1 }] }
    - { uid: lb-all, label: All time }
${extra}`);
const PRIZES =
  '[{ ranks: [1, 1], points: 100, deliverables: [{ deliverable: beans, amount: 5 }] }, { ranks: [2, 3], points: 10 }]';

const playerIds = ['a', 'b', 'c', 'd'].map((c) => `0b0e2d9a-6a43-4c43-9b8a-2f6f1d8c000${c}`);
const [ANN, BEN, CY, DEE] = playerIds;
const SETTLE_AT = SEASON.end + 30_000;

/** The log so far, by stream; each decision's writes are recorded into it. */
class World {
  readonly streams: Record<string, DomainEvent[]> = {};
  private refs = 0;
  constructor(public catalog: Catalog) {}

  record<A>(decided: { ok: true; value: Decision<A> } | { ok: false }): Decision<A> {
    if (!decided.ok) throw new Error(`refused: ${JSON.stringify(decided)}`);
    for (const w of decided.value.writes) (this.streams[w.stream] ??= []).push(...w.events);
    return decided.value;
  }

  act(playerId: string, name: string, timestamp: number, now = timestamp): Decision<unknown> {
    const cmd = { playerId, referenceId: `ref-${++this.refs}`, name, timestamp, multiplier: 1, details: [] };
    return this.record(
      deciderSpec(processActionDecider)
        .given(this.streams)
        .when(cmd, { ...testEnv(now), catalog: this.catalog }).decided,
    );
  }

  /** The season's settlement on the standings given, for then-events; what it writes is recorded. */
  settle(standings: SeasonStanding[], now = SETTLE_AT, leaderboardUid = 'lb-day'): Then<SettleSeasonAnswer> {
    const cmd = { leaderboardUid, season: SEASON, settleAt: SETTLE_AT, standings };
    const then = deciderSpec(settleSeasonDecider)
      .given(this.streams)
      .when(cmd, { ...testEnv(now), catalog: this.catalog });
    if (then.decided.ok) this.record(then.decided);
    return then;
  }
}

const job = (leaderboardUid: string, settleAt: number) => ({
  type: SETTLE_SEASON,
  id: settleSeasonJobId(leaderboardUid, SEASON.key),
  runAt: settleAt,
  payload: { leaderboardUid, season: SEASON, settleAt },
  oncePerProcess: true,
});

const BOUNDS = { start: SEASON.start, end: SEASON.end };
type Finished = Pick<LeaderboardSeasonFinished, 'rank' | 'score'> & Partial<LeaderboardSeasonFinished>;

/**
 * What a settlement writes: each rewarded player's LeaderboardSeasonFinished on their stream (a
 * prize of `points` alone unless told), and the season settled on its own stream with the standings it used.
 */
const seasonSettled = (standings: SeasonStanding[], rewarded: [string, Finished][]) => ({
  ...Object.fromEntries(
    rewarded.map(([playerId, finished]) => [
      playerStream(playerId),
      [
        {
          type: 'LeaderboardSeasonFinished',
          data: {
            playerId,
            leaderboardUid: 'lb-day',
            season: SEASON.key,
            bounds: BOUNDS,
            grants: [],
            levels: [],
            settledAt: SETTLE_AT,
            ...finished,
          },
        },
      ],
    ]),
  ),
  [seasonStream('lb-day', SEASON.key)]: [
    {
      type: 'LeaderboardSeasonSettled',
      data: { leaderboardUid: 'lb-day', season: SEASON.key, bounds: BOUNDS, standings, settledAt: SETTLE_AT },
    },
  ],
});
/** A prize of points alone. */
const pointsPrize = (points: number) => ({
  prize: { points, deliverables: [] },
  effects: { ...noEffects(), points },
});

describe('scheduling a season', () => {
  it("an action counted on a prize board names its season's settlement, at the end plus the board's grace", () => {
    const w = new World(CATALOG());
    expect(w.act(ANN, 'order', D0 + 1000).jobs).toEqual([job('lb-day', SETTLE_AT)]);
    expect(w.act(ANN, 'visit', D0 + 2000).jobs).toEqual([job('lb-visits', SEASON.end)]);
  });

  it('an action counted after the settlement time names none (the season is settled); nor does a catalog without prizes', () => {
    const late = new World(CATALOG());
    expect(late.act(ANN, 'order', D0 + 1000, SETTLE_AT).jobs).toEqual([]);
    expect(new World(CATALOG('[]')).act(ANN, 'order', D0 + 1000).jobs).toEqual([]);
  });
});

describe('settling a season', () => {
  const played = () => {
    const w = new World(CATALOG());
    w.act(ANN, 'order', D0 + 1000);
    w.act(ANN, 'order', D0 + 2000);
    w.act(BEN, 'order', D0 + 3000);
    w.act(CY, 'order', D0 + 4000);
    w.act(DEE, 'order', D0 + 5000);
    return w;
  };
  const STANDINGS = [
    { playerId: ANN, score: 20 },
    { playerId: BEN, score: 10 },
    { playerId: CY, score: 10 },
  ];

  /** The settlement on STANDINGS: 100 points (level 2) and 5 beans for the first, 10 points for the next two. */
  const settledOnStandings = (w: World) =>
    seasonSettled(STANDINGS, [
      [
        ANN,
        {
          rank: 1,
          score: 20,
          prize: { points: 100, deliverables: [{ deliverable: 'beans', amount: 5 }] },
          grants: [{ uid: 'beans', label: 'Beans', type: 1, imageName: null, amount: 5, details: null }],
          // The level's uid is the one the catalog derives for it (it names none).
          levels: [{ uid: w.catalog.levels[1].uid, label: 'Two', level: 2, target: 100, imageName: null, grants: [] }],
          effects: { ...noEffects(), points: 100, balances: [{ deliverableUid: 'beans', amount: 5 }] },
        },
      ],
      [BEN, { rank: 2, score: 10, ...pointsPrize(10) }],
      [CY, { rank: 3, score: 10, ...pointsPrize(10) }],
    ]);

  it("rewards each ranked player with their rank's prize and records the standings it used, once, in one append", () => {
    const w = played();
    const decision = w.settle(STANDINGS).thenWrites(settledOnStandings(w));
    expect(decision.answer).toEqual({ rewarded: [ANN, BEN, CY] });
    expect(decision.writes.map((x) => [x.stream, x.expectedRevision])).toEqual([
      [playerStream(ANN), undefined],
      [playerStream(BEN), undefined],
      [playerStream(CY), undefined],
      [seasonStream('lb-day', SEASON.key), 'no_stream'],
    ]);
    // The prize counts like any points: towards levels and the balance.
    const state = readPlayer(w.streams, ANN);
    expect(state.points).toBe(120);
    expect([...state.levelsReached.values()]).toContain(2);
    expect(state.balances.get('beans')).toBe(5);
  });

  it('a second settlement (a rerun, a crash after the append) finds the season settled and rewards nobody', () => {
    const w = played();
    w.settle(STANDINGS).thenWrites(settledOnStandings(w));
    const again = w.settle([{ playerId: DEE, score: 99 }], SETTLE_AT + 60_000).thenWrites({});
    expect(again.answer).toBeNull();
  });

  it('a rank between prize ranges, or past the last, wins nothing; nobody ranked still records the settlement', () => {
    const w = new World(CATALOG('[{ ranks: [1, 1], points: 5 }, { ranks: [3, 3], points: 1 }]'));
    for (const p of [ANN, BEN, CY]) w.act(p, 'order', D0 + 1000);
    const decision = w.settle(STANDINGS).thenWrites(
      seasonSettled(STANDINGS, [
        [ANN, { rank: 1, score: 20, ...pointsPrize(5) }],
        [CY, { rank: 3, score: 10, ...pointsPrize(1) }],
      ]),
    );
    expect(decision.answer).toEqual({ rewarded: [ANN, CY] });
    const empty = new World(CATALOG());
    expect(empty.settle([]).thenWrites(seasonSettled([], [])).answer).toEqual({ rewarded: [] });
  });

  it('a ranked player not registered (or erased since) keeps their place and wins nothing', () => {
    const w = played();
    const stranger = '0b0e2d9a-6a43-4c43-9b8a-2f6f1d8c00ff';
    const standings = [{ playerId: stranger, score: 50 }, ...STANDINGS.slice(0, 2)];
    const decision = w.settle(standings).thenWrites(
      seasonSettled(standings, [
        [ANN, { rank: 2, score: 20, ...pointsPrize(10) }],
        [BEN, { rank: 3, score: 10, ...pointsPrize(10) }],
      ]),
    );
    expect(decision.answer).toEqual({ rewarded: [ANN, BEN] });
  });

  it('a board without prizes now (or gone) settles nothing', () => {
    const w = played();
    w.catalog = CATALOG('[]');
    expect(w.settle(STANDINGS).thenWrites({}).answer).toBeNull();
    expect(w.settle(STANDINGS, SETTLE_AT, 'lb-gone').thenWrites({}).answer).toBeNull();
  });
});
