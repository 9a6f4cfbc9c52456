/** Streaks (docs/catalog.md, "streaks"): given a player's actions, when another comes or one is reversed, then the run. */
import type { PlayerEvent } from '../../domain/events';
import type { ActionProcessed } from '../../domain/events/player-events';
import { catalogOf, DAY, PLAYER, playerSpec, T0, type PlayerSpec } from '../../test/support/player-spec';

const HOUR = 3_600_000;
const NO_EFFECTS = { points: 0, balances: [], powerupsGranted: [], powerupsRemoved: [], powerupUses: [] };

const game = (streak: string, extra = '') =>
  catalogOf(`
    version: 1
    deliverables:
      - { uid: beans, label: Beans, type: Prize, kind: Currency }
    actions:
      - { identifier: order }
      - { identifier: browse }
      - { identifier: watch_ad, caps: [{ period: Day, times: 1 }] }
    streaks:
      - uid: s-daily
        label: Daily order
        ${streak}
    ${extra}
  `);

const daily = game(`
        period: Day
        conditions:
          - { action: order, filters: [{ name: amount, op: gt, value: 0 }] }
          - { action: watch_ad }
        milestones:
          - { length: 3, points: 10 }
          - { length: 5, points: 50, deliverables: [{ deliverable: beans, amount: 20 }] }
`);
const withFreezes = (max: number, earnEvery: number) =>
  game(`
        period: Day
        conditions: [{ action: order }]
        freezes: { max: ${max}, earnEvery: ${earnEvery} }
`);

/** An order on day `day` (0: 2026-06-01) at `hour` UTC. */
const order = (
  p: PlayerSpec,
  day: number,
  options: { ref?: string; hour?: number; amount?: number } = {},
): ActionProcessed =>
  p.process('order', {
    ref: options.ref ?? `d${day}-${p.recorded.length}`,
    at: T0 + day * DAY + (options.hour ?? 12) * HOUR,
    details: { amount: options.amount ?? 5 },
  });
const streakOf = (processed: ActionProcessed) => processed.result.streaks?.[0];
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

describe('a daily streak', () => {
  it('given no run, the first qualifying action starts one at length 1', () => {
    const p = playerSpec(daily);
    expect(streakOf(order(p, 0))).toEqual({
      uid: 's-daily',
      label: 'Daily order',
      length: 1,
      extended: false,
      freezesUsed: 0,
      freezesLeft: 0,
      milestones: [],
    });
  });

  it('an action of another action, or failing the filters, counts for no streak: streaks is null', () => {
    const p = playerSpec(daily);
    expect(p.process('browse').result.streaks).toBeNull();
    expect(order(p, 0, { amount: 0 }).result.streaks).toBeNull();
    expect(p.state.streaks.size).toBe(0);
  });

  it('a second action the same day changes nothing; the next day extends the run', () => {
    const p = playerSpec(daily);
    order(p, 0, { hour: 8 });
    expect(streakOf(order(p, 0, { hour: 20 }))).toMatchObject({ length: 1, extended: false });
    expect(streakOf(order(p, 1))).toMatchObject({ length: 2, extended: true });
  });

  it('a missed day without freezes ends the run: a new one starts at 1, and longest keeps the old', () => {
    const p = playerSpec(daily);
    order(p, 0);
    order(p, 1);
    expect(streakOf(order(p, 3))).toMatchObject({ length: 1, extended: false, freezesUsed: 0 });
    expect(p.state.streaks.get('s-daily')).toMatchObject({ length: 1, longest: 2 });
  });

  it('an action dated before the last counted day changes nothing', () => {
    const p = playerSpec(daily);
    order(p, 0);
    order(p, 2);
    expect(streakOf(order(p, 1))).toMatchObject({ length: 1, extended: false });
    expect(p.state.streaks.get('s-daily')!.lastPeriod).toBe(T0 / DAY + 2);
  });

  it('milestones are awarded when the run reaches their length, once per run, with points and deliverables; a later run earns them again', () => {
    const p = playerSpec(daily);
    order(p, 0);
    order(p, 1);
    const third = order(p, 2);
    expect(streakOf(third)!.milestones).toEqual([{ length: 3, points: 10, deliverables: [] }]);
    expect(third.result.earnedPoints).toBe(10);
    expect(streakOf(order(p, 2, { hour: 18 }))!.milestones).toEqual([]);
    order(p, 3);
    const fifth = order(p, 4);
    expect(streakOf(fifth)!.milestones).toEqual([
      { length: 5, points: 50, deliverables: [expect.objectContaining({ uid: 'beans', amount: 20 })] },
    ]);
    expect(fifth.result.deliverables).toEqual([expect.objectContaining({ uid: 'beans', amount: 20 })]);
    expect([p.state.points, p.state.balances.get('beans')]).toEqual([60, 20]);
    // A break, then a new run reaching 3 again.
    order(p, 10);
    order(p, 11);
    expect(streakOf(order(p, 12))!.milestones).toEqual([{ length: 3, points: 10, deliverables: [] }]);
  });

  it('an action past a times cap counts for no streak', () => {
    const p = playerSpec(daily);
    expect(streakOf(p.process('watch_ad', { at: T0 }))).toMatchObject({ length: 1 });
    const capped = p.process('watch_ad', { at: T0 + DAY + HOUR });
    p.process('watch_ad', { at: T0 + DAY + 2 * HOUR });
    expect(streakOf(p.process('watch_ad', { at: T0 + DAY + 3 * HOUR }))).toBeUndefined();
    expect(streakOf(capped)).toMatchObject({ length: 2 });
  });
});

describe('freezes', () => {
  it('are earned each time the length reaches a multiple of earnEvery, up to max', () => {
    const p = playerSpec(withFreezes(2, 2));
    const lefts = [0, 1, 2, 3, 4, 5, 6].map((d) => streakOf(order(p, d))!.freezesLeft);
    expect(lefts).toEqual([0, 1, 1, 2, 2, 2, 2]);
  });

  it('cover one missed day: one is used and the run grows', () => {
    const p = playerSpec(withFreezes(2, 2));
    order(p, 0);
    order(p, 1); // length 2: one freeze
    expect(streakOf(order(p, 3))).toEqual({
      uid: 's-daily',
      label: 'Daily order',
      length: 3,
      extended: true,
      freezesUsed: 1,
      freezesLeft: 0,
      milestones: [],
    });
  });

  it('cover two missed days when two are held', () => {
    const p = playerSpec(withFreezes(2, 1));
    order(p, 0);
    order(p, 1); // two freezes
    const after = streakOf(order(p, 4));
    // Both used, then length 3 earns one back.
    expect(after).toMatchObject({ length: 3, extended: true, freezesUsed: 2, freezesLeft: 1 });
  });

  it('do not cover two missed days when one is held: the run ends, the freeze is kept', () => {
    const p = playerSpec(withFreezes(1, 1));
    order(p, 0);
    order(p, 1);
    expect(streakOf(order(p, 4))).toMatchObject({ length: 1, extended: false, freezesUsed: 0, freezesLeft: 1 });
  });
});

describe("periods of the player's calendar", () => {
  it('a weekly streak counts ISO weeks, Monday first', () => {
    const weekly = game(`
        period: Week
        conditions: [{ action: order }]
    `);
    const p = playerSpec(weekly);
    // 2026-06-01 is a Monday; 06-07 the Sunday of the same week; 06-08 the next Monday.
    order(p, 0);
    expect(streakOf(order(p, 6))).toMatchObject({ length: 1, extended: false });
    expect(streakOf(order(p, 7))).toMatchObject({ length: 2, extended: true });
    expect(streakOf(order(p, 21))).toMatchObject({ length: 1 }); // 06-22: a week missed
  });

  it('in Europe/Berlin the 23-hour day of 2026-03-29 is one day between two others', () => {
    const p = playerSpec(daily).given(registeredIn('Europe/Berlin'));
    const at = (iso: string) => p.process('order', { at: Date.parse(iso), details: { amount: 1 } });
    at('2026-03-28T12:00:00Z');
    expect(streakOf(at('2026-03-28T23:30:00Z'))).toMatchObject({ length: 2, extended: true }); // 03-29 00:30 CET
    expect(streakOf(at('2026-03-29T21:30:00Z'))).toMatchObject({ length: 2, extended: false }); // 03-29 23:30 CEST
    expect(streakOf(at('2026-03-29T22:30:00Z'))).toMatchObject({ length: 3, extended: true }); // 03-30 00:30 CEST
  });

  it('in Europe/Berlin the 25-hour day of 2026-10-25 is one day, where UTC sees two', () => {
    const berlin = playerSpec(daily).given(registeredIn('Europe/Berlin'));
    const utc = playerSpec(daily).given(registeredIn('UTC'));
    for (const p of [berlin, utc])
      p.process('order', { at: Date.parse('2026-10-24T22:30:00Z'), details: { amount: 1 } }); // 10-25 00:30 CEST
    const late = (p: PlayerSpec) =>
      streakOf(p.process('order', { at: Date.parse('2026-10-25T22:30:00Z'), details: { amount: 1 } })); // 10-25 23:30 CET
    expect(late(berlin)).toMatchObject({ length: 1, extended: false });
    expect(late(utc)).toMatchObject({ length: 2, extended: true });
  });

  it('in Pacific/Kiritimati (UTC+14) the day turns at 10:00 UTC', () => {
    const p = playerSpec(daily).given(registeredIn('Pacific/Kiritimati'));
    order(p, 0, { hour: 9 }); // 06-01 23:00
    expect(streakOf(order(p, 0, { hour: 10.5 }))).toMatchObject({ length: 2, extended: true }); // 06-02 00:30
  });

  // Both zones crossed the date line eastwards, from UTC-10 to UTC+14: their clocks went from 23:59:59
  // to 00:00:00 two dates on, and the date between never happened there.
  it.each([
    ['Pacific/Kiritimati', ['1994-12-28', '1994-12-29', '1994-12-30', '1995-01-01', '1995-01-02']],
    ['Pacific/Apia', ['2011-12-27', '2011-12-28', '2011-12-29', '2011-12-31', '2012-01-01']],
  ])('in %s, whose calendar skipped a day, acting on every day it had keeps the run', (zone, days) => {
    const p = playerSpec(daily).given(registeredIn(zone));
    const lengths = days.map((day, i) => {
      const at = Date.parse(`${day}T12:00:00${i < 3 ? '-10:00' : '+14:00'}`);
      return streakOf(p.process('order', { ref: `d${i}`, at, details: { amount: 1 } }));
    });
    expect(lengths.map((s) => [s?.length, s?.freezesUsed])).toEqual([
      [1, 0],
      [2, 0],
      [3, 0],
      [4, 0],
      [5, 0],
    ]);
    // A reversal replays the remaining days in the same calendar: the first day, then the last three.
    expect(p.reverse('d1').streaks).toEqual([expect.objectContaining({ length: 3, longest: 3 })]);
  });

  it('in Pacific/Apia a day missed across the skipped day still ends the run', () => {
    const p = playerSpec(daily).given(registeredIn('Pacific/Apia'));
    const at = (iso: string) => streakOf(p.process('order', { at: Date.parse(iso), details: { amount: 1 } }));
    at('2011-12-29T12:00:00-10:00');
    expect(at('2012-01-01T12:00:00+14:00')).toMatchObject({ length: 1, extended: false }); // 12-31 missed
  });

  it('in Pacific/Pago_Pago (UTC-11) the day turns at 11:00 UTC', () => {
    const p = playerSpec(daily).given(registeredIn('Pacific/Pago_Pago'));
    order(p, 0, { hour: 10 }); // 05-31 23:00
    expect(streakOf(order(p, 0, { hour: 11.5 }))).toMatchObject({ length: 2, extended: true }); // 06-01 00:30
    expect(streakOf(order(p, 1, { hour: 10.5 }))).toMatchObject({ length: 2, extended: false }); // still 06-01
  });
});

describe('reversal', () => {
  it('in the middle of a run recomputes it from the remaining actions and takes back milestones no longer reached', () => {
    const p = playerSpec(daily);
    for (const d of [0, 1, 2, 3, 4]) order(p, d, { ref: `d${d}` });
    expect([p.state.points, p.state.balances.get('beans')]).toEqual([60, 20]);
    const reversed = p.reverse('d2');
    expect(reversed.streaks).toEqual([{ uid: 's-daily', length: 2, longest: 2, lastPeriod: T0 / DAY + 4, freezes: 0 }]);
    expect(reversed.revokedMilestones!.map((m) => [m.length, m.awardedBy, m.points])).toEqual([
      [3, 'd2', 10],
      [5, 'd4', 50],
    ]);
    expect([p.state.points, p.state.balances.get('beans') ?? 0]).toEqual([0, 0]);
    expect(p.state.streaks.get('s-daily')).toMatchObject({ length: 2, longest: 2, milestones: [] });
    // The run goes on from the remaining actions: day 5 makes 3, and the milestone is earned again.
    expect(streakOf(order(p, 5))).toMatchObject({
      length: 3,
      milestones: [{ length: 3, points: 10, deliverables: [] }],
    });
  });

  it('of a second action of a day changes nothing in the run and keeps the milestones', () => {
    const p = playerSpec(daily);
    order(p, 0, { ref: 'a' });
    order(p, 1, { ref: 'b' });
    order(p, 1, { ref: 'b2', hour: 20 });
    order(p, 2, { ref: 'c' });
    const reversed = p.reverse('b2');
    expect([reversed.streaks![0].length, reversed.revokedMilestones]).toEqual([3, []]);
    expect(p.state.points).toBe(10);
  });

  it('within a run kept by freezes: the freezes are recomputed too', () => {
    const p = playerSpec(withFreezes(2, 2));
    for (const d of [0, 1, 3, 4]) order(p, d, { ref: `d${d}` }); // day 2 covered by a freeze
    expect(p.state.streaks.get('s-daily')).toMatchObject({ length: 4, freezes: 1 });
    const reversed = p.reverse('d1');
    // Day 0, then 3 (two missed, none held): a new run 3, 4 earning one freeze at length 2.
    expect(reversed.streaks).toEqual([{ uid: 's-daily', length: 2, longest: 2, lastPeriod: T0 / DAY + 4, freezes: 1 }]);
  });

  it('takes back a level that milestone points reached', () => {
    const leveled = game(
      `
        period: Day
        conditions: [{ action: order }]
        milestones: [{ length: 2, points: 100 }]
      `,
      `levels:
      - { uid: l1, label: One, level: 1, target: 0 }
      - { uid: l2, label: Two, level: 2, target: 100 }`,
    );
    const p = playerSpec(leveled);
    order(p, 0, { ref: 'a' });
    expect(order(p, 1, { ref: 'b' }).result.achievedLevel).toMatchObject({ level: 2 });
    const reversed = p.reverse('a');
    expect([reversed.revokedLevels.map((l) => l.level), reversed.effects.points]).toEqual([[2], -100]);
  });
});
