/**
 * The player's two folds agree: on random histories (actions earning points, currencies, badges,
 * ranks, limited triggers, levels, powerups, streaks, missions and caps, reversals of any of them,
 * powerups activated), the pure evolve, one event at a time, ends where the in-place fold the
 * state cache and the replay use ends, and it never changes the state it is given.
 */
import fc from 'fast-check';
import { playerEventOf, type PlayerEvent } from '../events';
import { activated, catalogOf, DAY, PLAYER, playerSpec, T0 } from '../../test/support/player-spec';
import { evolve, evolveInPlace, foldPlayer, initialPlayerState, PlayerFolding } from './state';

const catalog = catalogOf(`
  version: 1
  settings: { timezone: Europe/Berlin }
  deliverables:
    - { uid: gold, label: Gold, type: Prize, kind: Currency, earnCaps: [{ period: Day, amount: 120 }] }
    - { uid: gems, label: Gems, type: Prize, kind: Currency }
    - { uid: sword, label: Sword, type: Prize }
    - { uid: boost, label: Double gold, type: Prize, kind: Powerup, powerup: { multiplier: 2, maxUseCount: 5, neverExpires: true, targetPrizes: [gold] } }
  actions:
    - { identifier: earn, deliverables: [{ deliverable: gold, amount: 50 }] }
    - { identifier: play, points: 10, cost: 5, costDeliverable: gold, deliverables: [{ deliverable: gems, amount: 3 }] }
    - { identifier: grind, points: 1, caps: [{ period: Day, times: 4 }] }
    - { identifier: get-boost, deliverables: [{ deliverable: boost, amount: 1 }] }
  badges:
    - { uid: b-first, label: First play, type: OneTimeOnly, points: 20, conditions: [{ action: play }], deliverables: [{ deliverable: sword, amount: 1 }] }
    - { uid: b-third, label: Every third, type: Repeatable, points: 7, conditions: [{ action: grind, challenge: { times: 3 } }] }
    - { uid: b-grinder, label: Grinder, type: Ranked, rankSet: rs, conditions: [{ action: grind }] }
  rankSets:
    - { uid: rs, label: Ranks, ranks: [{ rank: 1, label: Bronze, times: 2, points: 1 }, { rank: 2, label: Silver, times: 4, points: 2 }] }
  triggers:
    - { uid: t-play, label: Played, type: OneTimeOnly, points: 2, limited: true, limit: 10, conditions: [{ action: play }] }
  levels:
    - { uid: l1, label: L1, level: 1, target: 0 }
    - { uid: l2, label: L2, level: 2, target: 30, deliverables: [{ deliverable: boost, amount: 1 }] }
  streaks:
    - { uid: s-day, label: Daily, period: Day, conditions: [{ action: earn }], freezes: { max: 1, earnEvery: 2 }, milestones: [{ length: 2, points: 1 }] }
  missions:
    - uid: m-daily
      label: Daily
      repeat: Daily
      steps:
        - { uid: s1, label: Earn, condition: { action: earn } }
        - { uid: s2, label: Grind twice, condition: { action: grind, challenge: { times: 2 } } }
      points: 3
`);

type Step = { kind: 'act'; name: string; day: number } | { kind: 'reverse'; back: number } | { kind: 'activate' };
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('act' as const),
      name: fc.constantFrom('earn', 'play', 'grind', 'get-boost'),
      day: fc.nat(4),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reverse' as const), back: fc.nat(6) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('activate' as const) }) },
);

/** The player events of a random history, as recorded. */
function history(steps: Step[]) {
  const p = playerSpec(catalog);
  const refs: string[] = [];
  steps.forEach((s, i) => {
    if (s.kind === 'act') {
      if (p.tryProcess(s.name, { ref: `r${i}`, at: T0 + s.day * DAY }).ok) refs.push(`r${i}`);
    } else if (s.kind === 'reverse' && refs.length) {
      p.tryReverse(refs[refs.length - 1 - (s.back % refs.length)]);
    } else if (s.kind === 'activate') {
      const idle = [...p.state.powerups].find(([, owned]) => !owned.activated);
      if (idle) p.given(activated(idle[0], T0));
    }
  });
  return p.recorded.map((r) => ({ ...(playerEventOf(r) as PlayerEvent), revision: r.revision }));
}

describe("the player's fold", () => {
  it('pure, event by event, ends where the in-place fold ends, and leaves every state it is given as it was', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 40 }), (steps) => {
        const events = history(steps);
        const inPlace = initialPlayerState(PLAYER);
        for (const e of events) evolveInPlace(inPlace, e);

        let state = initialPlayerState(PLAYER);
        for (const e of events) {
          const before = structuredClone(state);
          const next = evolve(state, e);
          expect(state).toEqual(before);
          state = next;
        }
        expect(state).toEqual(inPlace);
        expect(foldPlayer(PLAYER, events)).toEqual(inPlace);
        const folding = new PlayerFolding(PLAYER);
        for (const e of events) folding.add(e);
        expect(folding.state).toEqual(inPlace);
      }),
      { numRuns: 60 },
    );
  });

  it('folds on from a state it leaves as it was', () => {
    const events = history([
      { kind: 'act', name: 'earn', day: 0 },
      { kind: 'act', name: 'play', day: 0 },
      { kind: 'act', name: 'grind', day: 1 },
      { kind: 'reverse', back: 0 },
    ]);
    const half = foldPlayer(PLAYER, events.slice(0, 2));
    const kept = structuredClone(half);
    expect(foldPlayer(PLAYER, events.slice(2), half)).toEqual(foldPlayer(PLAYER, events));
    expect(half).toEqual(kept);
  });
});
