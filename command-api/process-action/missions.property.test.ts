/**
 * After any sequence of actions and reversals, missions equal a replay of the remaining actions:
 * each period's steps (their entries and whether completed) equal those of a fresh player who did
 * only the remaining actions, in the same order; every completion held is one that player holds
 * too; and the player's points and beans are the remaining actions' own plus the completions held.
 */
import fc from 'fast-check';
import type { ActionProcessed } from '../../domain/events/player-events';
import type { PlayerState } from '../../domain/player/state';
import { catalogOf, DAY, playerSpec, T0 } from '../../test/support/player-spec';

const catalog = catalogOf(`
  version: 1
  settings: { timezone: Europe/Berlin }
  deliverables:
    - { uid: beans, label: Beans, type: Prize, kind: Currency }
  actions:
    - { identifier: check_in }
    - { identifier: order, points: 1, actionObjects: [{ label: amount, type: Number }] }
  missions:
    - uid: m-ordered
      label: Ordered weekly
      ordered: true
      repeat: Weekly
      steps:
        - { uid: s1, label: Check in, condition: { action: check_in } }
        - { uid: s2, label: Order twice, condition: { action: order, challenge: { times: 2 } } }
      points: 10
      deliverables: [{ deliverable: beans, amount: 1 }]
    - uid: m-daily
      label: Unordered daily
      repeat: Daily
      steps:
        - { uid: s1, label: Spend 5, condition: { action: order, challenge: { sum: { field: amount, atLeast: 5 } } } }
        - { uid: s2, label: Two check-ins, condition: { action: check_in, challenge: { times: 2 } } }
      points: 3
    - uid: m-once
      label: Three orders
      steps: [{ uid: s1, label: Three orders, condition: { action: order, challenge: { times: 3 } } }]
      points: 7
      deliverables: [{ deliverable: beans, amount: 2 }]
`);
const HOUR = 3_600_000;

type Step =
  | { kind: 'act'; name: 'order' | 'check_in'; day: number; hour: number; amount: number }
  | { kind: 'reverse'; back: number };
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('act' as const),
      name: fc.constantFrom('order' as const, 'check_in' as const),
      day: fc.nat(9),
      hour: fc.nat(23),
      amount: fc.nat(4),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reverse' as const), back: fc.nat(10) }) },
);

/** Each mission period's steps and completion, comparable across players. */
function missionsOf(state: PlayerState) {
  const out = new Map<string, { steps: { refs: string[]; completed: boolean }[]; completedBy: string | null }>();
  for (const [uid, run] of state.missions) {
    for (const [period, p] of run.periods) {
      const steps = [0, 1].slice(0, catalog.missions.find((m) => m.uid === uid)!.steps.length).map((i) => ({
        refs: (p.steps[i]?.entries ?? []).map((e) => e.ref),
        completed: p.steps[i]?.completed ?? false,
      }));
      // A period whose progress all went away is the same as one never started.
      if (steps.some((s) => s.refs.length > 0) || p.completion)
        out.set(`${uid}@${period}`, { steps, completedBy: p.completion?.awardedBy ?? null });
    }
  }
  return out;
}

describe('missions under reversal', () => {
  it('equal a replay of the remaining actions', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 30 }), (steps) => {
        const p = playerSpec(catalog);
        const processed: ActionProcessed[] = [];
        const reversed = new Set<string>();
        steps.forEach((s, i) => {
          if (s.kind === 'act') {
            processed.push(
              p.process(s.name, {
                ref: `r${i}`,
                at: T0 + s.day * DAY + s.hour * HOUR + i,
                details: { amount: s.amount },
              }),
            );
            return;
          }
          const live = processed.filter((a) => !reversed.has(a.referenceId));
          const target = live[live.length - 1 - (s.back % Math.max(1, live.length))];
          if (!target || !p.tryReverse(target.referenceId).ok) return;
          reversed.add(target.referenceId);
        });
        const remaining = processed.filter((a) => !reversed.has(a.referenceId));
        const fresh = playerSpec(catalog);
        for (const a of remaining)
          fresh.process(a.actionName, {
            ref: a.referenceId,
            at: a.timestamp,
            details: Object.fromEntries(a.details.map((d) => [d.name, d.value])),
          });

        const mine = missionsOf(p.state);
        const theirs = missionsOf(fresh.state);
        expect([...mine.keys()].sort()).toEqual([...theirs.keys()].sort());
        for (const [key, m] of mine) {
          expect([key, m.steps]).toEqual([key, theirs.get(key)!.steps]);
          // A completion the reversed action made is not made again by a later one until the next action of the period.
          if (m.completedBy !== null) expect([key, theirs.get(key)!.completedBy !== null]).toEqual([key, true]);
        }

        const held = [...p.state.missions.entries()].flatMap(([uid, run]) =>
          [...run.periods.values()].flatMap((period) => (period.completion ? [{ uid, ...period.completion }] : [])),
        );
        const orders = remaining.filter((a) => a.actionName === 'order').length;
        expect(p.state.points).toBe(orders + held.reduce((sum, c) => sum + c.points, 0));
        expect(p.state.balances.get('beans') ?? 0).toBe(
          held.flatMap((c) => c.grants).reduce((sum, g) => sum + g.amount, 0),
        );
      }),
      { numRuns: 300, seed: 20261126 },
    );
  });
});
