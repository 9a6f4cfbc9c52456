/**
 * Moments (docs/catalog.md, "moments"): given a player's actions, when the decision that makes a
 * moment due is taken, then its job at the player's local time; when the job runs, then the moment
 * appended once, only while still true.
 */
import type { Decision } from '../decision';
import type { PlayerEvent } from '../../domain/events';
import { momentJobId } from '../../domain/rules/moments';
import { playerStream } from '../../domain/streams';
import { deciderSpec, type Then } from '../../test/support/decider-spec';
import { catalogOf, DAY, PLAYER, playerSpec, T0, type PlayerSpec } from '../../test/support/player-spec';
import { updatePlayerDecider } from '../update-player/decider';
import { momentDecider, type MomentAnswer, type MomentCommand } from './decider';

const HOUR = 3_600_000;
const NO_EFFECTS = { points: 0, balances: [], powerupsGranted: [], powerupsRemoved: [], powerupUses: [] };

const game = catalogOf(`
  version: 1
  actions: [{ identifier: order }, { identifier: browse }, { identifier: pay }]
  streaks:
    - { uid: s-daily, label: Daily order, period: Day, conditions: [{ action: order }] }
  missions:
    - uid: m-daily
      label: Browse then pay
      repeat: Daily
      steps:
        - { uid: st-browse, label: Browse, condition: { action: browse } }
        - { uid: st-pay, label: Pay, condition: { action: pay } }
  moments:
    streakAtRisk: { atLocalTime: "20:00", minLength: 2 }
    missionEnding: { hoursBefore: 4 }
    inactive: { afterDays: [3, 7], atLocalTime: "09:30" }
`);

const registeredIn = (timeZone: string): PlayerEvent => ({
  type: 'PlayerRegistered',
  data: {
    playerId: PLAYER,
    username: PLAYER,
    imageName: null,
    registeredAt: T0,
    timeZone,
    levels: [],
    effects: NO_EFFECTS,
  },
});

/** A player of `timeZone` and the jobs of each decision taken for them. */
function playerIn(timeZone: string) {
  const p = playerSpec(game).given(registeredIn(timeZone));
  const act = (name: string, at: number) => {
    const decided = p.tryProcess(name, { at });
    if (!decided.ok) throw new Error(decided.failure.message);
    return decided.value;
  };
  return { p, act };
}

const moments = deciderSpec(momentDecider);
/** The moment job of a type and subject, run at `now`, for then-events (what it writes is recorded on the player's stream). */
const runJob = (p: PlayerSpec, type: MomentCommand['type'], subject: string, now: number): Then<MomentAnswer> =>
  p.deciding(moments, { playerId: PLAYER, type, subject }, { ...p.env, now, catalog: p.catalog });
/** A moment appended to the player's stream. */
const moment = (type: string, data: Record<string, unknown>) => ({
  [playerStream(PLAYER)]: [{ type, data: { playerId: PLAYER, ...data, effects: NO_EFFECTS } }],
});
const jobOf = (d: Decision<unknown>, id: string) => d.jobs.find((j) => j.id === id);

const STREAK_JOB = momentJobId(PLAYER, 'StreakAtRisk', 's-daily');

describe('a streak at risk, at 20:00 of the player’s calendar', () => {
  it.each([
    // zone, the two orders' days (local), the moment's time and the end of the day it warns of
    ['Asia/Tokyo', '2026-06-01T10:00:00+09:00', '2026-06-03T20:00:00+09:00', '2026-06-04T00:00:00+09:00'],
    ['America/New_York', '2026-06-01T10:00:00-04:00', '2026-06-03T20:00:00-04:00', '2026-06-04T00:00:00-04:00'],
    // Clocks go back on 2026-10-25 in Paris: that day has 25 hours, and 20:00 is UTC+1.
    ['Europe/Paris', '2026-10-23T10:00:00+02:00', '2026-10-25T20:00:00+01:00', '2026-10-26T00:00:00+01:00'],
  ])('in %s: scheduled by the order that makes the run 2 long, appended once due', (zone, first, due, ends) => {
    const { p, act } = playerIn(zone);
    const start = Date.parse(first);
    // A run of 1 is below minLength: nothing to warn of.
    expect(jobOf(act('order', start), STREAK_JOB)).toBeUndefined();
    const second = act('order', start + DAY);
    expect(jobOf(second, STREAK_JOB)).toEqual({
      type: 'moment',
      id: STREAK_JOB,
      runAt: Date.parse(due),
      payload: { playerId: PLAYER, type: 'StreakAtRisk', subject: 's-daily' },
    });

    // Early: nothing yet, and the job looks again when it is due.
    const early = runJob(p, 'StreakAtRisk', 's-daily', Date.parse(due) - 1).thenWrites({});
    expect(early.answer.next?.data.dueAt).toBe(Date.parse(due));

    const onTime = runJob(p, 'StreakAtRisk', 's-daily', Date.parse(due)).thenWrites(
      moment('StreakAtRisk', {
        streakUid: 's-daily',
        length: 2,
        endsAt: Date.parse(ends),
        lastPeriod: p.state.streaks.get('s-daily')!.lastPeriod,
        dueAt: Date.parse(due),
      }),
    );
    expect(onTime.answer.next).toBeNull();
  });

  it('is skipped when the player extended the run at 19:59, and comes the next day instead', () => {
    const { p, act } = playerIn('Europe/Paris');
    act('order', Date.parse('2026-06-01T10:00:00+02:00'));
    act('order', Date.parse('2026-06-02T10:00:00+02:00'));
    const extended = act('order', Date.parse('2026-06-03T19:59:00+02:00'));
    // The same job, moved to the next day's 20:00.
    expect(jobOf(extended, STREAK_JOB)?.runAt).toBe(Date.parse('2026-06-04T20:00:00+02:00'));
    // A job of the old time that still runs finds nothing due.
    const stale = runJob(p, 'StreakAtRisk', 's-daily', Date.parse('2026-06-03T20:00:00+02:00')).thenWrites({});
    expect(stale.answer.next?.data).toMatchObject({ length: 3, dueAt: Date.parse('2026-06-04T20:00:00+02:00') });
  });

  it('is never appended twice for one day the run stood still, however often its job runs', () => {
    const { p, act } = playerIn('UTC');
    act('order', Date.UTC(2026, 5, 1, 10));
    act('order', Date.UTC(2026, 5, 2, 10));
    const due = Date.UTC(2026, 5, 3, 20);
    runJob(p, 'StreakAtRisk', 's-daily', due).thenWrites(
      moment('StreakAtRisk', {
        streakUid: 's-daily',
        length: 2,
        endsAt: Date.UTC(2026, 5, 4),
        lastPeriod: p.state.streaks.get('s-daily')!.lastPeriod,
        dueAt: due,
      }),
    );
    for (const now of [due, due + HOUR, due + 3 * HOUR])
      expect(runJob(p, 'StreakAtRisk', 's-daily', now).thenWrites({}).answer.next).toBeNull();
    // Once the run has broken there is nothing left to warn of.
    expect(runJob(p, 'StreakAtRisk', 's-daily', Date.UTC(2026, 5, 4)).thenWrites({}).answer).toEqual({
      appended: null,
      next: null,
    });
  });

  it('moves to the new zone’s 20:00 when the player changes zone: the job is replaced, the old time finds nothing', () => {
    const { p, act } = playerIn('Europe/Paris');
    act('order', Date.parse('2026-06-01T10:00:00+02:00'));
    act('order', Date.parse('2026-06-02T10:00:00+02:00'));
    const update = deciderSpec(updatePlayerDecider);
    const moved = p.when(update, { playerId: PLAYER, timeZone: 'America/Los_Angeles' }, { ...p.env, catalog: game });
    if (!moved.ok) throw new Error(moved.failure.message);
    // The run's last day is still 2026-06-02 (Paris); its next day's 20:00 is now Los Angeles'.
    const due = Date.parse('2026-06-03T20:00:00-07:00');
    expect(jobOf(moved.value, STREAK_JOB)?.runAt).toBe(due);
    const old = runJob(p, 'StreakAtRisk', 's-daily', Date.parse('2026-06-03T20:00:00+02:00')).thenWrites({});
    expect(old.answer.next?.data.dueAt).toBe(due);
    runJob(p, 'StreakAtRisk', 's-daily', due).thenWrites(
      moment('StreakAtRisk', {
        streakUid: 's-daily',
        length: 2,
        endsAt: Date.parse('2026-06-04T00:00:00-07:00'),
        lastPeriod: p.state.streaks.get('s-daily')!.lastPeriod,
        dueAt: due,
      }),
    );
  });

  it('a catalog without moments schedules nothing', () => {
    const bare = catalogOf(`
      version: 1
      actions: [{ identifier: order }]
      streaks: [{ uid: s-daily, label: Daily order, period: Day, conditions: [{ action: order }] }]
    `);
    const p = playerSpec(bare).given(registeredIn('UTC'));
    p.process('order', { at: Date.UTC(2026, 5, 1, 10) });
    const second = p.tryProcess('order', { at: Date.UTC(2026, 5, 2, 10) });
    expect(second.ok && second.value.jobs).toEqual([]);
  });
});

describe('a mission ending', () => {
  it('warns hoursBefore the day ends, with the steps left, unless the player worked on it since', () => {
    const { p, act } = playerIn('Asia/Tokyo');
    const started = act('browse', Date.parse('2026-06-01T09:00:00+09:00'));
    const due = Date.parse('2026-06-01T20:00:00+09:00');
    const id = momentJobId(PLAYER, 'MissionEnding', 'm-daily');
    expect(jobOf(started, id)?.runAt).toBe(due);
    runJob(p, 'MissionEnding', 'm-daily', due).thenWrites(
      moment('MissionEnding', {
        missionUid: 'm-daily',
        endsAt: Date.parse('2026-06-02T00:00:00+09:00'),
        stepsLeft: 1,
        period: p.state.missions.get('m-daily')!.hits[0].period,
        dueAt: due,
      }),
    );
    runJob(p, 'MissionEnding', 'm-daily', due + HOUR).thenWrites({});

    // The next day: the player browses at 20:30, past the moment's time: no reminder.
    act('browse', Date.parse('2026-06-02T09:00:00+09:00'));
    act('browse', Date.parse('2026-06-02T20:30:00+09:00'));
    runJob(p, 'MissionEnding', 'm-daily', Date.parse('2026-06-02T21:00:00+09:00')).thenWrites({});
  });
});

describe('a player inactive', () => {
  it('is told at each mark of afterDays, once, counted from the latest action’s day', () => {
    const { p, act } = playerIn('America/New_York');
    const last = Date.parse('2026-06-01T23:00:00-04:00');
    const id = momentJobId(PLAYER, 'PlayerInactive', '');
    expect(jobOf(act('order', last), id)?.runAt).toBe(Date.parse('2026-06-04T09:30:00-04:00'));
    // A later action of the same day leaves the job as it is.
    expect(jobOf(act('browse', last + 10 * 60_000), id)).toBeUndefined();
    const three = runJob(p, 'PlayerInactive', '', Date.parse('2026-06-04T09:30:00-04:00')).thenWrites(
      moment('PlayerInactive', {
        days: 3,
        lastActionAt: last + 10 * 60_000,
        dueAt: Date.parse('2026-06-04T09:30:00-04:00'),
      }),
    );
    expect(three.answer.next?.data).toMatchObject({ days: 7, dueAt: Date.parse('2026-06-08T09:30:00-04:00') });
    runJob(p, 'PlayerInactive', '', Date.parse('2026-06-05T09:30:00-04:00')).thenWrites({});
  });

  it('a job that runs late tells the longest mark passed only; an action since makes it tell nothing', () => {
    const { p, act } = playerIn('UTC');
    act('order', Date.UTC(2026, 5, 1, 8));
    const late = runJob(p, 'PlayerInactive', '', Date.UTC(2026, 5, 20)).thenWrites(
      moment('PlayerInactive', { days: 7, lastActionAt: Date.UTC(2026, 5, 1, 8), dueAt: Date.UTC(2026, 5, 8, 9, 30) }),
    );
    expect(late.answer.next).toBeNull();

    act('order', Date.UTC(2026, 5, 21, 8));
    runJob(p, 'PlayerInactive', '', Date.UTC(2026, 5, 22)).thenWrites({});
  });
});
