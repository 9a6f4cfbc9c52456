/**
 * Leagues as deciders (docs/catalog.md, "Leagues"): given the events recorded so far, when an
 * action, a reversal or a cohort's settlement is decided, then the events it writes. A small world
 * records what each decision writes, stream by stream, as the store would.
 */
import type { Catalog } from '../../domain/catalog/types';
import type { DomainEvent } from '../../domain/events';
import type { LeagueFinished } from '../../domain/events/league-events';
import { leagueStream, playerStream } from '../../domain/streams';
import { noEffects } from '../../domain/events/common';
import { deciderSpec, type GivenStreams, type Then } from '../../test/support/decider-spec';
import { catalogOf, testEnv } from '../../test/support/player-spec';
import type { Decision } from '../decision';
import { processActionDecider } from '../process-action/decider';
import { reverseActionDecider } from '../reverse-action/decider';
import { SETTLE_LEAGUE, settleCohortDecider, settleLeagueJobId, type SettleAnswer } from './decider';

const MINUTE = 60_000;
/** A minute's start: 2026-06-01T00:00Z. */
const P0 = Date.UTC(2026, 5, 1);
const PERIOD0 = { start: P0, end: P0 + MINUTE };
const PERIOD1 = { start: P0 + MINUTE, end: P0 + 2 * MINUTE };

const CATALOG = (settleAfterSeconds = 0, cohortSize = 2) =>
  catalogOf(`
  version: 1
  deliverables: [{ uid: beans, label: Beans, type: Prize, kind: Currency }]
  actions:
    - { identifier: order, points: 10 }
    - { identifier: visit }
  levels: [{ level: 1, target: 0, label: One }, { level: 2, target: 100, label: Two }]
  leagues:
    - uid: lg
      label: League
      period: { minutes: 1 }
      cohortSize: ${cohortSize}
      settleAfterSeconds: ${settleAfterSeconds}
      tiers:
        - { uid: bronze, label: Bronze, promote: 1, prizes: [{ ranks: [1, 1], points: 100, deliverables: [{ deliverable: beans, amount: 5 }] }] }
        - { uid: silver, label: Silver, promote: 1, demote: 1 }
        - { uid: gold, label: Gold, demote: 1 }
    - { uid: lg-visits, label: Visits, metric: { action: visit }, period: { minutes: 1 }, cohortSize: 5, tiers: [{ uid: all, label: All }] }
`);

const playerIds = ['a', 'b', 'c', 'd', 'e'].map((c) => `0b0e2d9a-6a43-4c43-9b8a-2f6f1d8c000${c}`);
const [ANN, BEN, CY] = playerIds;

/** The log so far, by stream; each decision's writes are recorded into it. */
class World {
  readonly streams: Record<string, DomainEvent[]> = {};
  private refs = 0;
  constructor(public catalog: Catalog) {}

  private record<A>(decided: { ok: true; value: Decision<A> } | { ok: false }): Decision<A> {
    if (!decided.ok) throw new Error(`refused: ${JSON.stringify(decided)}`);
    for (const w of decided.value.writes) (this.streams[w.stream] ??= []).push(...w.events);
    return decided.value;
  }

  private env(now: number) {
    return { ...testEnv(now), catalog: this.catalog };
  }

  act(
    playerId: string,
    name: string,
    timestamp: number,
    now = timestamp,
  ): { ref: string; decision: Decision<unknown> } {
    const ref = `ref-${++this.refs}`;
    const cmd = { playerId, referenceId: ref, name, timestamp, multiplier: 1, details: [] };
    const decided = deciderSpec(processActionDecider).given(this.streams).when(cmd, this.env(now)).decided;
    return { ref, decision: this.record(decided) };
  }

  reverse(playerId: string, ref: string, now: number): void {
    const cmd = { playerId, referenceId: ref, name: 'order' };
    this.record(
      deciderSpec(reverseActionDecider)
        .given(this.streams as GivenStreams)
        .when(cmd, this.env(now)).decided,
    );
  }

  /** Settles the next cohort of a tier, for then-events; what it writes is recorded. */
  settleCohort(tier: string, period: { start: number; end: number }, now: number): Then<SettleAnswer> {
    const cmd = { leagueUid: 'lg', period, settleAt: period.end, tier };
    const then = deciderSpec(settleCohortDecider).given(this.streams).when(cmd, this.env(now));
    if (then.decided.ok) this.record(then.decided);
    return then;
  }

  /** Settles every cohort of the period's tiers, as the job does; answers what each append settled. */
  settle(period: { start: number; end: number }, now: number, leagueUid = 'lg'): SettleAnswer[] {
    const settled: SettleAnswer[] = [];
    const league = this.catalog.leagues.find((l) => l.uid === leagueUid)!;
    for (const tier of league.tiers)
      for (;;) {
        const cmd = { leagueUid, period, settleAt: period.end, tier: tier.uid };
        const decision = this.record(
          deciderSpec(settleCohortDecider)
            .given(this.streams as GivenStreams)
            .when(cmd, this.env(now)).decided,
        );
        if (decision.answer === null) break;
        settled.push(decision.answer);
      }
    return settled;
  }
}

describe('entering a period', () => {
  it('enters the lowest tier with the first action that adds to the metric, records it on the tier stream once, and schedules the settlement', () => {
    const w = new World(CATALOG());
    const first = w.act(ANN, 'order', P0 + 1000);
    expect(first.decision.writes.find((x) => x.stream === playerStream(ANN))?.events.at(-1)).toMatchObject({
      type: 'ActionProcessed',
      data: {
        leagues: [{ uid: 'lg', period: PERIOD0, settleAt: PERIOD0.end, tier: 'bronze', amount: 10, entered: true }],
      },
    });
    expect(w.streams[leagueStream('lg', P0, 'bronze')]).toEqual([
      {
        type: 'LeagueEntered',
        data: { leagueUid: 'lg', period: PERIOD0, tier: 'bronze', playerId: ANN, cohortSize: 2 },
      },
    ]);
    expect(first.decision.jobs).toEqual([
      {
        type: SETTLE_LEAGUE,
        id: settleLeagueJobId('lg', P0),
        runAt: PERIOD0.end,
        payload: { leagueUid: 'lg', period: PERIOD0, settleAt: PERIOD0.end },
        oncePerProcess: true,
      },
    ]);
    const second = w.act(ANN, 'order', P0 + 2000);
    expect(second.decision.jobs).toEqual([]);
    expect(w.streams[leagueStream('lg', P0, 'bronze')]).toHaveLength(1);
  });

  it('counts an action metric by its action only; an action that adds nothing enters nobody', () => {
    const w = new World(CATALOG());
    w.act(ANN, 'visit', P0 + 1000);
    expect(w.streams[leagueStream('lg', P0, 'bronze')]).toBeUndefined();
    expect(w.streams[leagueStream('lg-visits', P0, 'all')]).toHaveLength(1);
  });
});

describe('cohorts and standings', () => {
  it('fills cohorts in the order of entry, the last one smaller, and ranks by metric with ties to who reached it first', () => {
    const w = new World(CATALOG());
    w.act(ANN, 'order', P0 + 1000);
    w.act(BEN, 'order', P0 + 2000);
    w.act(CY, 'order', P0 + 3000);
    w.act(BEN, 'order', P0 + 4000);
    // Ann reaches 20 after Ben: Ben wins the tie.
    w.act(ANN, 'order', P0 + 5000);
    const at = PERIOD0.end;
    const first = w.settleCohort('bronze', PERIOD0, at).thenWrites(
      cohortSettled({ tier: 'bronze', cohort: 1, at }, [
        [BEN, { rank: 1, metric: 20, outcome: 'Promoted', nextTier: 'silver', ...BRONZE_WIN }],
        [ANN, { rank: 2, metric: 20, outcome: 'Stayed', nextTier: 'bronze' }],
      ]),
    );
    expect(first.answer).toEqual({ cohort: 1, players: [BEN, ANN] });
    // A cohort of one: rank 1, promoted.
    w.settleCohort('bronze', PERIOD0, at).thenWrites(
      cohortSettled({ tier: 'bronze', cohort: 2, at }, [
        [CY, { rank: 1, metric: 10, outcome: 'Promoted', nextTier: 'silver', ...BRONZE_WIN }],
      ]),
    );
    // Every cohort settled; the other tiers have none.
    for (const tier of ['bronze', 'silver', 'gold'])
      expect(w.settleCohort(tier, PERIOD0, at).thenWrites({}).answer).toBeNull();
  });
});

describe('settlement', () => {
  it('grants the rank prize in the same append (points reach levels), never counting toward a league', () => {
    const w = new World(CATALOG());
    w.act(ANN, 'order', P0 + 1000);
    w.act(BEN, 'order', P0 + 2000);
    w.act(BEN, 'order', P0 + 3000);
    w.settleCohort('bronze', PERIOD0, PERIOD0.end).thenWrites(
      cohortSettled({ tier: 'bronze', cohort: 1, at: PERIOD0.end }, [
        [BEN, { rank: 1, metric: 20, outcome: 'Promoted', nextTier: 'silver', ...BRONZE_WIN }],
        [ANN, { rank: 2, metric: 10, outcome: 'Stayed', nextTier: 'bronze' }],
      ]),
    );
    // The prize's 100 points are no action's: the next period starts from the next action alone.
    w.act(BEN, 'order', PERIOD1.start + 1000);
    w.settleCohort('silver', PERIOD1, PERIOD1.end).thenWrites(
      cohortSettled({ tier: 'silver', cohort: 1, at: PERIOD1.end, period: PERIOD1 }, [
        [BEN, { rank: 1, metric: 10, outcome: 'Promoted', nextTier: 'gold' }],
      ]),
    );
  });

  it('promotes, demotes and keeps; the top tier promotes nobody, a rank that is both is promoted', () => {
    const catalog = CATALOG(0, 3);
    const w = new World(catalog);
    // Put four players straight in gold and silver: given their last settled tier.
    const given = (playerId: string, tier: string) =>
      (w.streams[playerStream(playerId)] = [
        {
          type: 'LeagueFinished',
          data: { ...finishedIn(playerId), tier, nextTier: tier },
        },
      ]);
    given(ANN, 'gold');
    given(BEN, 'gold');
    given(CY, 'silver');
    w.act(ANN, 'order', P0 + 1000);
    w.act(BEN, 'order', P0 + 2000);
    w.act(BEN, 'order', P0 + 2500);
    w.act(CY, 'order', P0 + 3000);
    const at = PERIOD0.end;
    // Gold, two players: Ben first stays (top), Ann last is demoted.
    w.settleCohort('gold', PERIOD0, at).thenWrites(
      cohortSettled({ tier: 'gold', cohort: 1, at }, [
        [BEN, { rank: 1, metric: 20, outcome: 'Stayed', nextTier: 'gold' }],
        [ANN, { rank: 2, metric: 10, outcome: 'Demoted', nextTier: 'silver' }],
      ]),
    );
    // Silver, alone: rank 1 is both first and last: promoted.
    w.settleCohort('silver', PERIOD0, at).thenWrites(
      cohortSettled({ tier: 'silver', cohort: 1, at }, [
        [CY, { rank: 1, metric: 10, outcome: 'Promoted', nextTier: 'gold' }],
      ]),
    );
  });

  it('settles each cohort once: a second run writes nothing', () => {
    const w = new World(CATALOG());
    w.act(ANN, 'order', P0 + 1000);
    w.settleCohort('bronze', PERIOD0, PERIOD0.end).thenWrites(
      cohortSettled({ tier: 'bronze', cohort: 1, at: PERIOD0.end }, [
        [ANN, { rank: 1, metric: 10, outcome: 'Promoted', nextTier: 'silver', ...BRONZE_WIN }],
      ]),
    );
    expect(w.settleCohort('bronze', PERIOD0, PERIOD0.end + 5000).thenWrites({}).answer).toBeNull();
    expect(w.settle(PERIOD0, PERIOD0.end + 5000)).toEqual([]);
  });

  it('a skipped period keeps the tier; the next entry is in the tier the last settlement gave', () => {
    const w = new World(CATALOG());
    w.act(ANN, 'order', P0 + 1000);
    w.settle(PERIOD0, PERIOD0.end);
    const later = P0 + 5 * MINUTE;
    w.act(ANN, 'order', later + 1000);
    expect(w.streams[leagueStream('lg', later, 'silver')]).toHaveLength(1);
  });
});

describe('late actions and reversals', () => {
  it('counts an action dated in the period until its settlement time, nothing after; one in the next period during the grace enters the tier the player had', () => {
    const w = new World(CATALOG(30));
    w.act(ANN, 'order', P0 + 1000);
    // Late but within the 30 s grace: counts.
    w.act(ANN, 'order', P0 + 2000, PERIOD0.end + 10_000);
    // The next period, during the grace: Ann enters bronze, the tier she has until the settlement.
    w.act(ANN, 'order', PERIOD1.start + 1000, PERIOD0.end + 15_000);
    expect(w.streams[leagueStream('lg', PERIOD1.start, 'bronze')]).toHaveLength(1);
    w.settleCohort('bronze', PERIOD0, PERIOD0.end + 30_000).thenWrites(
      cohortSettled({ tier: 'bronze', cohort: 1, at: PERIOD0.end + 30_000 }, [
        [ANN, { rank: 1, metric: 20, outcome: 'Promoted', nextTier: 'silver', ...BRONZE_WIN }],
      ]),
    );
    // Dated in the settled period, decided after: nothing for the league.
    const late = w.act(ANN, 'order', P0 + 3000, PERIOD0.end + 31_000);
    expect(late.decision.writes.find((x) => x.stream === playerStream(ANN))?.events.at(-1)?.data).not.toHaveProperty(
      'leagues',
    );
  });

  it('an action decided before the settlement time but recorded after the settlement (its retry after losing the race) adds nothing', () => {
    const w = new World(CATALOG());
    w.act(ANN, 'order', P0 + 1000);
    w.settle(PERIOD0, PERIOD0.end);
    const retried = w.act(ANN, 'order', P0 + 2000, PERIOD0.end - 1);
    expect(retried.decision.writes.map((x) => x.stream)).not.toContain(leagueStream('lg', P0, 'bronze'));
    expect(retried.decision.writes.find((x) => x.stream === playerStream(ANN))?.events.at(-1)?.data).not.toHaveProperty(
      'leagues',
    );
  });

  it('a reversal before the settlement moves the standings; one after it changes nothing', () => {
    const w = new World(CATALOG());
    const ann = w.act(ANN, 'order', P0 + 1000);
    w.act(ANN, 'order', P0 + 1500);
    w.act(BEN, 'order', P0 + 2000);
    w.reverse(ANN, ann.ref, P0 + 3000);
    const ben = w.act(BEN, 'order', P0 + 4000);
    w.settleCohort('bronze', PERIOD0, PERIOD0.end).thenWrites(
      cohortSettled({ tier: 'bronze', cohort: 1, at: PERIOD0.end }, [
        [BEN, { rank: 1, metric: 20, outcome: 'Promoted', nextTier: 'silver', ...BRONZE_WIN }],
        [ANN, { rank: 2, metric: 10, outcome: 'Stayed', nextTier: 'bronze' }],
      ]),
    );
    w.reverse(BEN, ben.ref, PERIOD0.end + 1000);
    const reversal = w.streams[playerStream(BEN)].at(-1)!;
    expect(reversal.type).toBe('ActionReversed');
    expect(reversal.data).not.toHaveProperty('leagues');
    expect(w.settle(PERIOD0, PERIOD0.end + 2000)).toEqual([]);
  });
});

/** The bronze rank-1 prize: 100 points, which reach level 2, and 5 beans. */
const BRONZE_WIN = {
  prize: { points: 100, deliverables: [{ deliverable: 'beans', amount: 5 }] },
  grants: [{ uid: 'beans', label: 'Beans', type: 1, imageName: null, amount: 5, details: null }],
  // The level's uid is the one the catalog derives for it (it names none).
  levels: [{ uid: CATALOG().levels[1].uid, label: 'Two', level: 2, target: 100, imageName: null, grants: [] }],
  effects: { ...noEffects(), points: 100, balances: [{ deliverableUid: 'beans', amount: 5 }] },
};

type Standing = Pick<LeagueFinished, 'rank' | 'metric' | 'outcome' | 'nextTier'> & Partial<LeagueFinished>;
/**
 * What a cohort's settlement writes: each member's LeagueFinished on their stream (in rank order),
 * and the cohort settled on the tier's stream.
 */
function cohortSettled(
  o: { tier: string; cohort: number; at: number; period?: { start: number; end: number } },
  standings: [string, Standing][],
) {
  const { tier, cohort, at, period = PERIOD0 } = o;
  const finished = (playerId: string, standing: Standing): LeagueFinished => ({
    playerId,
    leagueUid: 'lg',
    period,
    tier,
    cohort,
    prize: null,
    grants: [],
    levels: [],
    settledAt: at,
    effects: noEffects(),
    ...standing,
  });
  return {
    ...Object.fromEntries(
      standings.map(([playerId, standing]) => [
        playerStream(playerId),
        [{ type: 'LeagueFinished', data: finished(playerId, standing) }],
      ]),
    ),
    [leagueStream('lg', period.start, tier)]: [
      {
        type: 'LeagueCohortSettled',
        data: { leagueUid: 'lg', period, tier, cohort, players: standings.map(([id]) => id), settledAt: at },
      },
    ],
  };
}

/** A settled period's LeagueFinished with nothing granted (the tier given by the test). */
function finishedIn(playerId: string): Omit<LeagueFinished, 'tier' | 'nextTier'> {
  return {
    playerId,
    leagueUid: 'lg',
    period: { start: P0 - MINUTE, end: P0 },
    cohort: 1,
    rank: 1,
    metric: 1,
    outcome: 'Stayed',
    prize: null,
    grants: [],
    levels: [],
    settledAt: P0,
    effects: { points: 0, balances: [], powerupsGranted: [], powerupsRemoved: [], powerupUses: [] },
  };
}
