/**
 * After any sequence of actions and reversals, streaks and caps equal a replay of the remaining
 * actions: each run (length, longest, last period, freezes) equals the run of a fresh player who
 * did only the remaining actions, in the same order; the milestones held are among those that
 * player reaches; and every allowance's use is what the remaining actions' recorded decisions add
 * up to, never above its limit.
 */
import fc from 'fast-check';
import type { ActionProcessed } from '../../domain/events/player-events';
import { allowanceKey } from '../../domain/player/state';
import { periodOf } from '../../domain/time/calendar';
import { catalogOf, DAY, playerSpec, T0 } from '../../test/support/player-spec';

const catalog = catalogOf(`
  version: 1
  settings: { timezone: Europe/Berlin }
  deliverables:
    - { uid: beans, label: Beans, type: Prize, kind: Currency, earnCaps: [{ period: Day, amount: 3 }] }
  actions:
    - { identifier: order }
    - identifier: watch_ad
      points: 10
      deliverables: [{ deliverable: beans, amount: 2 }]
      caps: [{ period: Day, times: 2 }, { period: Week, points: 25 }]
  streaks:
    - uid: s-day
      label: Daily
      period: Day
      conditions: [{ action: order }]
      freezes: { max: 1, earnEvery: 2 }
      milestones: [{ length: 2, points: 1 }, { length: 3, points: 2, deliverables: [{ deliverable: beans, amount: 1 }] }]
    - { uid: s-week, label: Weekly, period: Week, conditions: [{ action: order }], milestones: [{ length: 2, points: 5 }] }
`);
const HOUR = 3_600_000;

type Step = { kind: 'act'; name: 'order' | 'watch_ad'; day: number; hour: number } | { kind: 'reverse'; back: number };
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('act' as const),
      name: fc.constantFrom('order' as const, 'watch_ad' as const),
      day: fc.nat(20),
      hour: fc.nat(23),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reverse' as const), back: fc.nat(10) }) },
);

function run(steps: Step[]) {
  const p = playerSpec(catalog);
  const processed: ActionProcessed[] = [];
  const reversed = new Set<string>();
  steps.forEach((s, i) => {
    if (s.kind === 'act') {
      processed.push(p.process(s.name, { ref: `r${i}`, at: T0 + s.day * DAY + s.hour * HOUR }));
      return;
    }
    const live = processed.filter((a) => !reversed.has(a.referenceId));
    const target = live[live.length - 1 - (s.back % Math.max(1, live.length))];
    if (!target || !p.tryReverse(target.referenceId).ok) return;
    reversed.add(target.referenceId);
  });
  return { p, remaining: processed.filter((a) => !reversed.has(a.referenceId)) };
}

describe('streaks and caps under reversal', () => {
  it('equal a replay of the remaining actions', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 30 }), (steps) => {
        const { p, remaining } = run(steps);

        // Streaks: a fresh player doing only the remaining orders, in the same order.
        const fresh = playerSpec(catalog);
        for (const a of remaining)
          if (a.actionName === 'order') fresh.process('order', { ref: a.referenceId, at: a.timestamp });
        for (const uid of ['s-day', 's-week']) {
          const position = (r: typeof p.state.streaks extends ReadonlyMap<string, infer R> ? R | undefined : never) =>
            r
              ? { length: r.length, longest: r.longest, lastPeriod: r.lastPeriod, freezes: r.freezes }
              : { length: 0, longest: 0, lastPeriod: null, freezes: 0 };
          expect([uid, position(p.state.streaks.get(uid))]).toEqual([uid, position(fresh.state.streaks.get(uid))]);
          const reachable = new Set(
            (fresh.state.streaks.get(uid)?.milestones ?? []).map((m) => `${m.length}@${m.period}`),
          );
          for (const m of p.state.streaks.get(uid)?.milestones ?? [])
            expect([uid, reachable.has(`${m.length}@${m.period}`)]).toEqual([uid, true]);
        }

        // Caps: the remaining actions' recorded decisions, added up by period.
        const expected = new Map<string, number>();
        const add = (
          kind: 'times' | 'points' | 'earn',
          of: string,
          period: 'Day' | 'Week',
          ts: number,
          used: number,
        ) => {
          if (used <= 0) return;
          const key = allowanceKey({ kind, of, period, ordinal: periodOf(ts, period, 'Europe/Berlin') });
          expected.set(key, Math.round(((expected.get(key) ?? 0) + used) * 1e6) / 1e6);
        };
        for (const a of remaining) {
          if (a.actionName === 'watch_ad' && !a.timesCapped) {
            add('times', 'watch_ad', 'Day', a.timestamp, 1);
            add('points', 'watch_ad', 'Week', a.timestamp, a.actionPoints);
          }
          const beans = (a.result.deliverables ?? [])
            .filter((g) => g.uid === 'beans')
            .reduce((sum, g) => sum + g.amount, 0);
          // A milestone revoked by a later reversal gave its beans back.
          const revoked = (a.streaks ?? []).flatMap((s) =>
            s.milestones.filter(
              (m) =>
                !p.state.streaks
                  .get(s.uid)
                  ?.milestones.some((h) => h.awardedBy === a.referenceId && h.length === m.length),
            ),
          );
          add(
            'earn',
            'beans',
            'Day',
            a.timestamp,
            beans - revoked.flatMap((m) => m.grants).reduce((sum, g) => sum + g.amount, 0),
          );
        }
        expect(new Map(p.state.allowances)).toEqual(expected);
        for (const [key, used] of p.state.allowances) {
          const limit = key.startsWith('times') ? 2 : key.startsWith('points') ? 25 : 3;
          expect([key, used <= limit]).toEqual([key, true]);
        }
      }),
      { numRuns: 300, seed: 20261125 },
    );
  });
});
