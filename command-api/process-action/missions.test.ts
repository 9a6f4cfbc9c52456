/** Missions (docs/catalog.md, "missions"): given a player's actions, when another comes, then the mission's progress and completion. */
import type { PlayerEvent } from '../../domain/events';
import type { ActionProcessed } from '../../domain/events/player-events';
import { catalogOf, DAY, PLAYER, playerSpec, T0 } from '../../test/support/player-spec';

const HOUR = 3_600_000;
const NO_EFFECTS = { points: 0, balances: [], powerupsGranted: [], powerupsRemoved: [], powerupUses: [] };

const game = (mission: string, extra = '') =>
  catalogOf(`
    version: 1
    deliverables:
      - { uid: beans, label: Beans, type: Prize, kind: Currency }
    actions:
      - { identifier: check_in }
      - { identifier: order, points: 10, actionObjects: [{ label: amount, type: Number }] }
      - { identifier: browse }
      - { identifier: watch_ad, caps: [{ period: Day, times: 1 }] }
    missions:
      - uid: m-first-week
        label: First week
        ${mission}
    ${extra}
  `);

const steps = `
        steps:
          - { uid: m1-s1, label: Check in, condition: { action: check_in } }
          - { uid: m1-s2, label: Order twice, condition: { action: order, challenge: { times: 2 } } }
        points: 100
        deliverables: [{ deliverable: beans, amount: 50 }]`;
const ordered = game(`ordered: true${steps}`);
const unordered = game(`ordered: false${steps}`);

const missionOf = (processed: ActionProcessed) => processed.result.missions?.[0];
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

describe('an unordered mission', () => {
  it('counts each step in any order; the last step completes it, with its points in earnedPoints and its deliverables', () => {
    const p = playerSpec(unordered);
    expect(missionOf(p.process('order'))).toEqual({
      uid: 'm-first-week',
      label: 'First week',
      stepsCompleted: 0,
      stepsTotal: 2,
      completed: false,
    });
    expect(missionOf(p.process('order'))).toEqual({
      uid: 'm-first-week',
      label: 'First week',
      stepsCompleted: 1,
      stepsTotal: 2,
      completed: false,
    });
    const last = p.process('check_in');
    expect(missionOf(last)).toEqual({
      uid: 'm-first-week',
      label: 'First week',
      stepsCompleted: 2,
      stepsTotal: 2,
      completed: true,
    });
    expect(last.result.earnedPoints).toBe(100);
    expect(last.result.deliverables).toEqual([
      { uid: 'beans', amount: 50, label: 'Beans', type: 1, imageName: null, details: null },
    ]);
    expect(last.missions).toEqual([
      {
        uid: 'm-first-week',
        label: 'First week',
        period: 0,
        matches: [{ step: 0, value: 0 }],
        counted: [0],
        completedSteps: [0, 1],
        completion: { points: 100, grants: last.result.deliverables },
      },
    ]);
    expect([p.state.points, p.state.balances.get('beans')]).toEqual([120, 50]);
  });

  it('once completed (repeat None), counts for nothing more: missions is null and nothing is granted again', () => {
    const p = playerSpec(unordered);
    p.process('check_in');
    p.repeat(2, 'order');
    const later = p.process('check_in', { at: T0 + 30 * DAY });
    expect([later.result.missions, later.result.earnedPoints, p.state.points]).toEqual([null, 0, 120]);
  });

  it('an action meeting no step, or past a times cap, counts for no mission: missions is null', () => {
    const p = playerSpec(
      game(`steps: [{ uid: s1, label: Ads, condition: { action: watch_ad, challenge: { times: 2 } } }]`),
    );
    expect(p.process('browse').result.missions).toBeNull();
    expect(missionOf(p.process('watch_ad'))).toMatchObject({ stepsCompleted: 0 });
    expect(p.process('watch_ad').result.missions).toBeNull(); // the day's one ad is used
    expect(missionOf(p.process('watch_ad', { at: T0 + DAY }))).toMatchObject({ stepsCompleted: 1, completed: true });
  });

  it("a step's filters and challenge.sum count as a badge condition's", () => {
    const p = playerSpec(
      game(
        `steps: [{ uid: s1, label: Spend 30, condition: { action: order, filters: [{ name: amount, op: gt, value: 5 }], challenge: { sum: { field: amount, atLeast: 30 } } } }]`,
      ),
    );
    expect(p.process('order', { details: { amount: 5 } }).result.missions).toBeNull();
    expect(missionOf(p.process('order', { details: { amount: 20 } }))).toMatchObject({ completed: false });
    expect(missionOf(p.process('order', { details: { amount: 10 } }))).toMatchObject({ completed: true });
  });

  it('mission points reach levels', () => {
    const p = playerSpec(
      game(steps, 'levels: [{ level: 1, target: 0, label: One }, { uid: l2, level: 2, target: 100, label: Two }]'),
    );
    p.process('check_in');
    p.process('order');
    expect(p.process('order').result.achievedLevel).toMatchObject({ level: 2 });
  });
});

describe('an ordered mission', () => {
  it('counts an action only for the first step not completed', () => {
    const p = playerSpec(ordered);
    expect(p.process('order').result.missions).toBeNull(); // step 2 before step 1: no progress
    expect(missionOf(p.process('check_in'))).toMatchObject({ stepsCompleted: 1, completed: false });
    expect(missionOf(p.process('order'))).toMatchObject({ stepsCompleted: 1, completed: false });
    expect(missionOf(p.process('order'))).toMatchObject({ stepsCompleted: 2, completed: true });
  });

  it('an action completing a step is no entry of the next one, even when it meets its condition', () => {
    const p = playerSpec(
      game(`ordered: true
        steps:
          - { uid: s1, label: First order, condition: { action: order } }
          - { uid: s2, label: Two more, condition: { action: order, challenge: { times: 2 } } }`),
    );
    const first = p.process('order');
    expect([first.missions![0].counted, first.missions![0].matches.map((m) => m.step)]).toEqual([[0], [0, 1]]);
    expect(missionOf(p.process('order'))).toMatchObject({ stepsCompleted: 1 });
    expect(missionOf(p.process('order'))).toMatchObject({ stepsCompleted: 2, completed: true });
  });
});

describe('a repeated mission', () => {
  const daily = game(`repeat: Daily
        steps: [{ uid: s1, label: Two check-ins, condition: { action: check_in, challenge: { times: 2 } } }]
        points: 5`);

  it('starts over at the midnight of the player, and is completed once per day', () => {
    const p = playerSpec(daily).given(registeredIn('Asia/Tokyo')); // UTC+9: the day turns at 15:00 UTC
    expect(missionOf(p.process('check_in', { at: T0 + 10 * HOUR }))).toMatchObject({ stepsCompleted: 0 });
    expect(missionOf(p.process('check_in', { at: T0 + 14 * HOUR }))).toMatchObject({ completed: true });
    expect(p.process('check_in', { at: T0 + 14.5 * HOUR }).result.missions).toBeNull(); // the same day: completed
    expect(missionOf(p.process('check_in', { at: T0 + 15.5 * HOUR }))).toMatchObject({
      stepsCompleted: 0,
      completed: false,
    }); // the next day
    const again = p.process('check_in', { at: T0 + 16 * HOUR });
    expect([missionOf(again)?.completed, again.result.earnedPoints, p.state.points]).toEqual([true, 5, 10]);
  });

  it('in UTC the same actions fall on one day: completed once', () => {
    const p = playerSpec(daily).given(registeredIn('UTC'));
    for (const h of [10, 14, 14.5, 15.5, 16]) p.process('check_in', { at: T0 + h * HOUR });
    expect(p.state.points).toBe(5);
  });

  it('Weekly starts over on the Monday of the ISO week, and records each period', () => {
    const p = playerSpec(
      game(`repeat: Weekly
        steps: [{ uid: s1, label: Check in, condition: { action: check_in } }]`),
    );
    // 2026-06-01 is a Monday; 06-07 the Sunday of that week.
    const moves = [0, 6, 7].map((d) => p.process('check_in', { at: T0 + d * DAY + 12 * HOUR }).missions![0]);
    expect(moves.map((m) => [m.period - moves[0].period, m.completion !== null])).toEqual([
      [0, true],
      [0, false],
      [1, true],
    ]);
  });
});

describe('requires', () => {
  const withBadge = game(
    `requires: { badge: b-vip, level: null }
        steps: [{ uid: s1, label: Check in, condition: { action: check_in } }]`,
    'badges: [{ uid: b-vip, label: VIP, type: OneTimeOnly, conditions: [{ action: browse }] }]',
  );

  it('locked until the player holds the badge: actions before count for nothing', () => {
    const p = playerSpec(withBadge);
    expect(p.process('check_in').result.missions).toBeNull();
    p.process('browse');
    expect(missionOf(p.process('check_in'))).toMatchObject({ completed: true });
  });

  it('locked until the player has reached the level, held before the action (the action reaching it does not count)', () => {
    const p = playerSpec(
      game(
        `requires: { level: 2 }
        steps: [{ uid: s1, label: Order, condition: { action: order } }]`,
        'levels: [{ level: 1, target: 0, label: One }, { level: 2, target: 10, label: Two }]',
      ),
    );
    const reaching = p.process('order');
    expect([reaching.result.achievedLevel?.level, reaching.result.missions]).toEqual([2, null]);
    expect(missionOf(p.process('order'))).toMatchObject({ completed: true });
  });

  it('a mission outside its window counts for nothing', () => {
    const p = playerSpec(
      game(`startDate: 2026-06-10T00:00:00
        steps: [{ uid: s1, label: Check in, condition: { action: check_in } }]`),
    );
    expect(p.process('check_in', { at: T0 }).result.missions).toBeNull();
    expect(missionOf(p.process('check_in', { at: T0 + 10 * DAY }))).toMatchObject({ completed: true });
  });
});

describe('reversal', () => {
  it('of the completing action takes the completion back with its points, deliverables and levels; the next action completes it again', () => {
    const p = playerSpec(
      game(
        `ordered: true${steps}`,
        'levels: [{ level: 1, target: 0, label: One }, { uid: l2, level: 2, target: 100, label: Two }]',
      ),
    );
    p.process('check_in', { ref: 'c' });
    p.process('order', { ref: 'o1' });
    p.process('order', { ref: 'o2' });
    expect([p.state.points, p.state.balances.get('beans'), p.state.levelsReached.get('l2')]).toEqual([120, 50, 2]);
    const reversed = p.reverse('o2');
    expect(reversed.revokedMissions).toEqual([
      {
        missionUid: 'm-first-week',
        period: 0,
        awardedBy: 'o2',
        awardedAt: T0,
        points: 100,
        grants: [expect.objectContaining({ uid: 'beans', amount: 50 })],
      },
    ]);
    expect(reversed.missions).toEqual([
      {
        uid: 'm-first-week',
        period: 0,
        steps: [
          { refs: ['c'], completed: true },
          { refs: ['o1'], completed: false },
        ],
      },
    ]);
    expect([reversed.effects.points, reversed.revokedLevels.map((l) => l.level)]).toEqual([-110, [2]]);
    expect([p.state.points, p.state.balances.get('beans') ?? 0]).toEqual([10, 0]);
    expect(missionOf(p.process('order', { ref: 'o3' }))).toMatchObject({ stepsCompleted: 2, completed: true });
    expect(p.state.points).toBe(120);
  });

  it('of an earlier action the completion rests on takes back the completion a later action made (ordered: the later orders no longer follow a check-in)', () => {
    const p = playerSpec(ordered);
    p.process('check_in', { ref: 'c' });
    p.process('order', { ref: 'o1' });
    p.process('order', { ref: 'o2' });
    const reversed = p.reverse('c');
    expect(reversed.revokedMissions!.map((m) => [m.awardedBy, m.points])).toEqual([['o2', 100]]);
    expect(reversed.missions![0].steps).toEqual([
      { refs: [], completed: false },
      { refs: [], completed: false },
    ]);
    expect([p.state.points, p.state.balances.get('beans') ?? 0]).toEqual([20, 0]);
  });

  it('keeps a completion the remaining actions still reach (unordered: an order made after completion takes the place of the reversed one)', () => {
    const p = playerSpec(unordered);
    p.process('check_in', { ref: 'c' });
    p.process('order', { ref: 'o1' });
    p.process('order', { ref: 'o2' });
    p.process('order', { ref: 'o3' }); // counted for nothing: the mission is completed
    const reversed = p.reverse('o1');
    expect([reversed.revokedMissions, reversed.missions![0].steps[1]]).toEqual([
      [],
      { refs: ['o2', 'o3'], completed: true },
    ]);
    expect(p.state.points).toBe(120); // o2 and o3, and the mission's 100
  });

  it('of the completing action takes the completion back even when the rest still complete every step; the next action meeting a step completes it anew', () => {
    const p = playerSpec(unordered);
    for (const [name, ref] of [
      ['check_in', 'c'],
      ['order', 'o1'],
      ['order', 'o2'],
      ['order', 'o3'],
    ])
      p.process(name, { ref });
    const reversed = p.reverse('o2');
    expect([reversed.revokedMissions!.map((m) => m.awardedBy), reversed.missions![0].steps[1]]).toEqual([
      ['o2'],
      { refs: ['o1', 'o3'], completed: true },
    ]);
    expect(p.state.points).toBe(20);
    expect(missionOf(p.process('check_in', { ref: 'c2' }))).toEqual({
      uid: 'm-first-week',
      label: 'First week',
      stepsCompleted: 2,
      stepsTotal: 2,
      completed: true,
    });
    expect(p.state.points).toBe(120);
  });

  it('in a repeated mission touches only the period of the reversed action', () => {
    const p = playerSpec(
      game(`repeat: Daily
        steps: [{ uid: s1, label: Check in, condition: { action: check_in } }]
        points: 5`),
    );
    p.process('check_in', { ref: 'd0', at: T0 });
    p.process('check_in', { ref: 'd1', at: T0 + DAY });
    const reversed = p.reverse('d0');
    expect(reversed.revokedMissions!.map((m) => m.awardedBy)).toEqual(['d0']);
    expect(p.state.points).toBe(5);
    expect(missionOf(p.process('check_in', { ref: 'd0b', at: T0 + HOUR }))).toMatchObject({ completed: true });
  });
});
