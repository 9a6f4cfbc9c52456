/** Caps (docs/catalog.md, "Caps"): given a player's events, when actions come, then what they earn and use. */
import { parseCatalog } from '../../domain/catalog/load';
import type { PlayerEvent } from '../../domain/events';
import { catalogOf, DAY, PLAYER, playerSpec, T0 } from '../../test/support/player-spec';

const HOUR = 3_600_000;
const game = (sections: string, settings = '') =>
  catalogOf(
    `
    version: 1
    ${settings}
    deliverables:
      - { uid: beans, label: Beans, type: Prize, kind: Currency, earnCaps: [{ period: Day, amount: 3 }] }
      - { uid: gold, label: Gold, type: Prize, kind: Currency }
  `,
    sections,
  );

const catalog = game(`
  actions:
    - identifier: watch_ad
      points: 10
      deliverables: [{ deliverable: gold, amount: 1 }]
      caps: [{ period: Day, times: 2 }]
    - identifier: quiz
      points: 10
      caps: [{ period: Week, points: 25 }]
    - identifier: harvest
      deliverables: [{ deliverable: beans, amount: 2 }]
  badges:
    - { uid: b-viewer, label: Viewer, type: Repeatable, points: 5, conditions: [{ action: watch_ad, challenge: { times: 2 } }] }
    - { uid: b-farmer, label: Farmer, type: OneTimeOnly, conditions: [{ action: harvest, challenge: { times: 2 } }], deliverables: [{ deliverable: beans, amount: 1 }] }
`);

const NO_EFFECTS = { points: 0, balances: [], powerupsGranted: [], powerupsRemoved: [], powerupUses: [] };
/** A player registered in a time zone. */
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
const updatedZone = (timeZone: string | null): PlayerEvent => ({
  type: 'PlayerUpdated',
  data: { playerId: PLAYER, username: PLAYER, imageName: null, timeZone, updatedAt: T0, effects: NO_EFFECTS },
});

describe('a times cap', () => {
  it('given two actions today, the third is recorded but earns nothing and counts for no rule', () => {
    const p = playerSpec(catalog);
    p.repeat(2, 'watch_ad');
    expect(p.state.points).toBe(25);
    const third = p.process('watch_ad', { at: T0 + HOUR });
    expect(third.result).toMatchObject({
      earnedPoints: 0,
      badges: null,
      deliverables: null,
      capped: [{ period: 'Day', kind: 'times', limit: 2 }],
    });
    expect([third.timesCapped, third.progress, third.allowances]).toEqual([true, [], undefined]);
    expect([p.state.points, p.state.balances.get('gold'), p.state.processed.has(third.referenceId)]).toEqual([
      25,
      2,
      true,
    ]);
  });

  it("resets at the player's midnight: the next day counts again", () => {
    const p = playerSpec(catalog);
    p.repeat(2, 'watch_ad', { at: T0 + 22 * HOUR });
    expect(p.process('watch_ad', { at: T0 + 23 * HOUR }).result.capped).not.toBeNull();
    expect(p.process('watch_ad', { at: T0 + DAY }).result).toMatchObject({ earnedPoints: 10, capped: null });
  });

  it('resets at midnight in Pacific/Kiritimati (UTC+14), not at UTC midnight', () => {
    // 09:00 UTC is 23:00 in Kiritimati; 10:30 UTC is 00:30 the next local day.
    const p = playerSpec(catalog).given(registeredIn('Pacific/Kiritimati'));
    p.repeat(2, 'watch_ad', { at: T0 + 9 * HOUR });
    expect(p.process('watch_ad', { at: T0 + 10.5 * HOUR }).result.capped).toBeNull();
    // The same instants for a player on UTC: one day, so the third is capped.
    const utc = playerSpec(catalog);
    utc.repeat(2, 'watch_ad', { at: T0 + 9 * HOUR });
    expect(utc.process('watch_ad', { at: T0 + 10.5 * HOUR }).result.capped).toEqual([
      { period: 'Day', kind: 'times', limit: 2 },
    ]);
  });

  it('resets at midnight in Pacific/Pago_Pago (UTC-11): 10:00 and 12:00 UTC are two local days', () => {
    const p = playerSpec(catalog).given(registeredIn('Pacific/Pago_Pago'));
    p.repeat(2, 'watch_ad', { at: T0 + 10 * HOUR });
    expect(p.process('watch_ad', { at: T0 + 12 * HOUR }).result.capped).toBeNull();
    expect(p.process('watch_ad', { at: T0 + 13 * HOUR }).result.capped).toBeNull();
    expect(p.process('watch_ad', { at: T0 + 14 * HOUR }).result.capped).not.toBeNull();
  });

  it('counts in the zone in force when each action is processed: a change applies from the next action on', () => {
    const p = playerSpec(catalog);
    p.repeat(2, 'watch_ad', { at: T0 + 9 * HOUR }); // 2026-06-01 in UTC
    p.given(updatedZone('Pacific/Kiritimati'));
    // 10:30 UTC is 2026-06-02 in Kiritimati: a new day with its own allowance.
    expect(p.process('watch_ad', { at: T0 + 10.5 * HOUR }).result.capped).toBeNull();
  });

  it('when an action is reversed, its use is given back and the next one counts', () => {
    const p = playerSpec(catalog);
    p.process('watch_ad', { ref: 'a' });
    p.process('watch_ad', { ref: 'b' });
    const reversed = p.reverse('a');
    expect(reversed.allowancesReturned).toEqual([
      { ref: 'a', use: { kind: 'times', of: 'watch_ad', period: 'Day', ordinal: T0 / DAY, used: 1 } },
    ]);
    expect(p.process('watch_ad').result.capped).toBeNull();
    expect(p.process('watch_ad').result.capped).not.toBeNull();
  });

  it('a capped action reversed gives back nothing, since it used nothing', () => {
    const p = playerSpec(catalog);
    p.repeat(2, 'watch_ad');
    p.process('watch_ad', { ref: 'capped' });
    const reversed = p.reverse('capped');
    expect([reversed.timesCapped, reversed.allowancesReturned, reversed.effects.points]).toEqual([true, undefined, 0]);
    expect(p.process('watch_ad').result.capped).not.toBeNull();
  });
});

describe('a points cap', () => {
  it("cuts the action's own points to what is left of the week, then gives none", () => {
    const p = playerSpec(catalog);
    expect(p.process('quiz').actionPoints).toBe(10);
    expect(p.process('quiz', { at: T0 + DAY }).actionPoints).toBe(10);
    const cut = p.process('quiz', { at: T0 + 2 * DAY });
    expect([cut.actionPoints, cut.result.capped]).toEqual([5, [{ period: 'Week', kind: 'points', limit: 25 }]]);
    expect(p.process('quiz', { at: T0 + 3 * DAY }).result).toMatchObject({
      earnedPoints: 0,
      capped: [{ period: 'Week', kind: 'points', limit: 25 }],
    });
    // 2026-06-08 is the next Monday: a new week.
    expect(p.process('quiz', { at: T0 + 7 * DAY }).result).toMatchObject({ earnedPoints: 10, capped: null });
  });

  it('applies after the multiplier', () => {
    const p = playerSpec(catalog);
    const first = p.process('quiz', { multiplier: 3 });
    expect([first.actionPoints, first.result.capped]).toEqual([25, [{ period: 'Week', kind: 'points', limit: 25 }]]);
  });

  it("does not cap a badge's points", () => {
    const capped = game(`
      actions: [{ identifier: quiz, points: 10, caps: [{ period: Day, points: 10 }] }]
      badges: [{ uid: b, label: B, type: Repeatable, points: 7, conditions: [{ action: quiz }] }]
    `);
    const p = playerSpec(capped);
    p.process('quiz');
    expect(p.process('quiz').result).toMatchObject({
      earnedPoints: 7,
      capped: [{ period: 'Day', kind: 'points', limit: 10 }],
    });
  });
});

describe('an earn cap', () => {
  it('cuts what actions and badges grant of the deliverable to what is left of the day, and leaves out a grant cut to nothing', () => {
    const p = playerSpec(catalog);
    expect(p.process('harvest').result.deliverables).toEqual([expect.objectContaining({ uid: 'beans', amount: 2 })]);
    // The badge's bean is cut too: 2 + 1 would pass 3 after the first 2.
    const second = p.process('harvest');
    expect(second.result.badges).toEqual([expect.objectContaining({ uid: 'b-farmer' })]);
    expect(second.result.deliverables).toEqual([expect.objectContaining({ uid: 'beans', amount: 1 })]);
    expect(second.result.capped).toEqual([{ period: 'Day', kind: 'earn', limit: 3, deliverable: 'beans' }]);
    expect(second.awards[0].grants).toEqual([]);
    const third = p.process('harvest');
    expect([third.result.deliverables, third.result.capped]).toEqual([
      null,
      [{ period: 'Day', kind: 'earn', limit: 3, deliverable: 'beans' }],
    ]);
    expect(p.state.balances.get('beans')).toBe(3);
    expect(p.process('harvest', { at: T0 + DAY }).result.deliverables).toEqual([
      expect.objectContaining({ uid: 'beans', amount: 2 }),
    ]);
  });

  it('when an action is reversed, it gives back what it and the awards that fall with it had used', () => {
    const p = playerSpec(catalog);
    p.process('harvest', { ref: 'h1' }); // 2 beans
    p.process('harvest', { ref: 'h2' }); // 1 bean (cut), the badge's bean cut to nothing
    const reversed = p.reverse('h2');
    expect(reversed.allowancesReturned).toEqual([
      { ref: 'h2', use: { kind: 'earn', of: 'beans', period: 'Day', ordinal: T0 / DAY, used: 1 } },
    ]);
    expect(p.process('harvest').result.deliverables).toEqual([expect.objectContaining({ uid: 'beans', amount: 1 })]);
  });

  it("gives back the use of a later action's award revoked with the reversal", () => {
    const rich = game(`
      actions: [{ identifier: plant }]
      badges: [{ uid: b-two, label: Two, type: OneTimeOnly, conditions: [{ action: plant, challenge: { times: 2 } }], deliverables: [{ deliverable: beans, amount: 2 }] }]
    `);
    const p = playerSpec(rich);
    p.process('plant', { ref: 'p1' });
    p.process('plant', { ref: 'p2' }); // the badge: 2 beans, used by p2
    const reversed = p.reverse('p1');
    expect(reversed.revokedAwards.map((a) => a.uid)).toEqual(['b-two']);
    expect(reversed.allowancesReturned).toEqual([
      { ref: 'p2', use: { kind: 'earn', of: 'beans', period: 'Day', ordinal: T0 / DAY, used: 2 } },
    ]);
    expect([...p.state.allowances.values()]).toEqual([]);
  });
});

describe('caps in the catalog', () => {
  const problems = (sections: string) => {
    const parsed = parseCatalog(`version: 1\n${sections}`, 'caps.yaml');
    return parsed.ok ? [] : parsed.problems;
  };

  it('accepts Day, Week and Month caps of each kind', () => {
    expect(
      problems(
        'actions: [{ identifier: a, caps: [{ period: Day, times: 5 }, { period: Week, points: 200 }, { period: Month, times: 100 }] }]\ndeliverables: [{ uid: d, label: D, type: Prize, earnCaps: [{ period: Day, amount: 100 }, { period: Month, amount: 1000 }] }]',
      ),
    ).toEqual([]);
  });

  it.each([
    [
      'actions: [{ identifier: a, caps: [{ period: Day, times: 5, points: 3 }] }]',
      'must give exactly one of times and points',
    ],
    ['actions: [{ identifier: a, caps: [{ period: Day }] }]', 'must give exactly one of times and points'],
    ['actions: [{ identifier: a, caps: [{ period: Day, times: 0 }] }]', 'must be at least 1'],
    ['actions: [{ identifier: a, caps: [{ period: Day, times: 1.5 }] }]', 'integer'],
    ['actions: [{ identifier: a, caps: [{ period: Day, points: 0 }] }]', 'must be greater than 0'],
    ['actions: [{ identifier: a, caps: [{ period: Year, times: 1 }] }]', 'Day'],
    [
      'actions: [{ identifier: a, caps: [{ period: Day, times: 1 }, { period: Day, times: 2 }] }]',
      'a second times cap for Day',
    ],
    [
      'deliverables: [{ uid: d, label: D, type: Prize, earnCaps: [{ period: Week, amount: 0 }] }]',
      'must be greater than 0',
    ],
    [
      'deliverables: [{ uid: d, label: D, type: Prize, earnCaps: [{ period: Week, amount: 1 }, { period: Week, amount: 2 }] }]',
      'a second earn cap for Week',
    ],
  ])('refuses %s', (yaml, message) => {
    expect(problems(yaml).join('\n')).toContain(message);
  });
});
