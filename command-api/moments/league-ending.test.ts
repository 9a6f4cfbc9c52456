/**
 * The leagueEnding moment (docs/catalog.md, "moments"): given a league period's entries and
 * actions, when a player enters the period, then the job `hoursBefore` its end; when the job runs,
 * then LeagueEnding with the rank and zone of the player's cohort as they are then, only in one of
 * the catalog's zones, once per period.
 */
import type { Catalog } from '../../domain/catalog/types';
import type { DomainEvent } from '../../domain/events';
import { momentJobId } from '../../domain/rules/moments';
import { noEffects } from '../../domain/events/common';
import { playerStream } from '../../domain/streams';
import { deciderSpec, type Then } from '../../test/support/decider-spec';
import { catalogOf, testEnv } from '../../test/support/player-spec';
import type { Decision } from '../decision';
import { processActionDecider } from '../process-action/decider';
import { momentDecider, type MomentAnswer } from './decider';

const HOUR = 3_600_000;
/** A day of the league (UTC): 2026-06-01. */
const P0 = Date.UTC(2026, 5, 1);
const P1 = P0 + 24 * HOUR;
const DUE = P1 - 12 * HOUR;

const catalog = (zones = '[Promotion, Demotion]') =>
  catalogOf(`
  version: 1
  settings: { timezone: UTC }
  actions: [{ identifier: order, points: 10 }, { identifier: big, points: 30 }]
  leagues:
    - uid: lg
      label: League
      period: Day
      cohortSize: 3
      tiers: [{ uid: bronze, label: Bronze, promote: 1 }, { uid: silver, label: Silver }]
  moments:
    leagueEnding: { hoursBefore: 12, zones: ${zones} }
`);

const [ANN, BEN, CY, DEE] = ['a', 'b', 'c', 'd'].map((c) => `0b0e2d9a-6a43-4c43-9b8a-2f6f1d8c000${c}`);
const jobOf = (playerId: string) => momentJobId(playerId, 'LeagueEnding', 'lg');

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

  act(playerId: string, name: string, timestamp: number): Decision<unknown> {
    const cmd = { playerId, referenceId: `ref-${++this.refs}`, name, timestamp, multiplier: 1, details: [] };
    return this.record(deciderSpec(processActionDecider).given(this.streams).when(cmd, this.env(timestamp)).decided);
  }

  /** The moment job of the player's league, run at `now`, for then-events; what it writes is recorded. */
  job(playerId: string, now: number): Then<MomentAnswer> {
    const cmd = { playerId, type: 'LeagueEnding' as const, subject: 'lg' };
    const then = deciderSpec(momentDecider).given(this.streams).when(cmd, this.env(now));
    if (then.decided.ok) this.record(then.decided);
    return then;
  }
}

/** The LeagueEnding a job appends to the player's stream: their rank and zone in their bronze cohort of the day. */
const leagueEnding = (playerId: string, zone: string, rank: number, periodStart = P0) => ({
  [playerStream(playerId)]: [
    {
      type: 'LeagueEnding',
      data: {
        playerId,
        leagueUid: 'lg',
        periodStart,
        endsAt: periodStart + 24 * HOUR,
        tier: 'bronze',
        zone,
        rank,
        dueAt: periodStart + 12 * HOUR,
        effects: noEffects(),
      },
    },
  ],
});

/** ANN 30 points, BEN 20, CY 10: ranks 1, 2, 3 of one cohort. */
function cohortOfThree(zones?: string) {
  const w = new World(catalog(zones));
  const entries = [w.act(ANN, 'big', P0 + HOUR), w.act(BEN, 'order', P0 + 2 * HOUR), w.act(CY, 'order', P0 + 3 * HOUR)];
  w.act(BEN, 'order', P0 + 4 * HOUR);
  return { w, entries };
}

describe('LeagueEnding', () => {
  it('is scheduled hoursBefore the period’s end by the action that enters the player, not by their later ones', () => {
    const w = new World(catalog());
    expect(w.act(ANN, 'order', P0 + HOUR).jobs.find((j) => j.id === jobOf(ANN))).toMatchObject({
      runAt: DUE,
      payload: { playerId: ANN, type: 'LeagueEnding', subject: 'lg' },
    });
    expect(w.act(ANN, 'order', P0 + 2 * HOUR).jobs.find((j) => j.id === jobOf(ANN))).toBeUndefined();
  });

  it('tells the player in the zones their rank when due, once per period; the safe ones get nothing', () => {
    const { w } = cohortOfThree();
    const ann = w.job(ANN, DUE).thenWrites(leagueEnding(ANN, 'Promotion', 1));
    expect(ann.answer.next).toBeNull();
    w.job(BEN, DUE).thenWrites({});
    w.job(CY, DUE).thenWrites({});
    // Run again (a retry, a restart): appended already.
    w.job(ANN, DUE + 2).thenWrites({});
  });

  it('takes the standing as it is when the job runs: overtaken before then, the player is told nothing', () => {
    const { w } = cohortOfThree();
    // Found early: nothing yet, looked at again when due.
    const early = w.job(ANN, DUE - HOUR).thenWrites({});
    expect(early.answer.next).toMatchObject({ type: 'LeagueEnding', data: { dueAt: DUE } });
    w.act(BEN, 'big', DUE - 30 * 60_000);
    w.job(ANN, DUE).thenWrites({});
    w.job(BEN, DUE).thenWrites(leagueEnding(BEN, 'Promotion', 1));
  });

  it('ranks the player within their own cohort, and follows the zones the catalog names', () => {
    const { w } = cohortOfThree('[Safe]');
    // The fourth entry opens a second cohort, where DEE is alone: first, in Promotion.
    w.act(DEE, 'order', P0 + 5 * HOUR);
    w.job(DEE, DUE).thenWrites({});
    w.job(BEN, DUE).thenWrites(leagueEnding(BEN, 'Safe', 2));
    w.job(CY, DUE).thenWrites(leagueEnding(CY, 'Safe', 3));
    w.job(ANN, DUE).thenWrites({});
  });

  it('comes again in the next period, and not for a period over', () => {
    const { w } = cohortOfThree();
    w.job(ANN, DUE).thenWrites(leagueEnding(ANN, 'Promotion', 1));
    w.job(ANN, P1 + HOUR).thenWrites({});
    const next = w.act(ANN, 'order', P1 + HOUR);
    expect(next.jobs.find((j) => j.id === jobOf(ANN))?.runAt).toBe(DUE + 24 * HOUR);
    w.job(ANN, DUE + 24 * HOUR).thenWrites(leagueEnding(ANN, 'Promotion', 1, P1));
  });
});
