/**
 * A recompute from a date agrees with a full one whenever the draft changes only actions dated
 * from it on: over random histories whose actions arrive out of timestamp order (an action dated
 * before the date processed after one dated after it, reaching a level, a badge), with reversals,
 * each player's replayed points, balances, badges and levels are the same from the date as from
 * the start.
 */
import fc from 'fast-check';
import { SqliteEventStore } from '../../shared/adapters/event-store/sqlite';
import type { PlayerState } from '../../domain/player/state';
import { catalogOfYaml, commandDepsFor, publishYaml } from '../../test/support/command-deps';
import type { CommandOrigin } from '../deps';
import { processAction } from '../process-action/handler';
import { reverseAction } from '../reverse-action/handler';
import { replayLog } from '../replay/replay-log';

const CATALOG = `
version: 1
deliverables:
  - { uid: token, label: Token, type: Prize, kind: Currency }
actions:
  - { uid: act-big, identifier: big, points: 40 }
  - { uid: act-small, identifier: small, points: 30 }
badges:
  - { uid: b-regular, label: Regular, type: OneTimeOnly, points: 15, conditions: [{ action: small, challenge: { times: 2 } }], deliverables: [{ deliverable: token, amount: 5 }] }
levels:
  - { uid: lvl-1, label: One, level: 1, target: 0 }
  - { uid: lvl-2, label: Two, level: 2, target: 100, deliverables: [{ deliverable: token, amount: 1 }] }
  - { uid: lvl-3, label: Three, level: 3, target: 200, deliverables: [{ deliverable: token, amount: 2 }] }
`;
/** Changes only `big`, which every history dates from the start date on. */
const DRAFT = catalogOfYaml(CATALOG.replace('points: 40', 'points: 90'));
const NOW = Date.UTC(2026, 5, 20, 12);
const HOUR = 3_600_000;
const FROM = NOW - 5 * 24 * HOUR;
const metadata = { correlationId: 'test', causationId: 'test', keyName: 'test', catalogVersion: 1 };
const origin: CommandOrigin = { metadata, idempotency: null };
const PLAYERS = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222'];

type Step =
  { kind: 'act'; player: number; name: 'big' | 'small'; hoursAgo: number } | { kind: 'reverse'; back: number };
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('act' as const),
      player: fc.nat(PLAYERS.length - 1),
      name: fc.constantFrom('big' as const, 'small' as const),
      hoursAgo: fc.nat(20 * 24),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reverse' as const), back: fc.nat(10) }) },
);

const holdings = (s: PlayerState) => ({
  points: s.points,
  balances: Object.fromEntries(s.balances),
  badges: s.holdings.map((h) => h.uid).sort(),
  levels: [...s.levelsReached].sort(),
});

describe('recompute from a date', () => {
  it('agrees with a full recompute when the draft changes only actions dated from it on, whatever order they arrived in', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { maxLength: 16 }), async (steps) => {
        const events = new SqliteEventStore(':memory:');
        await publishYaml(events, CATALOG, NOW - 30 * 24 * HOUR, metadata);
        const deps = commandDepsFor(events, catalogOfYaml(CATALOG), () => NOW);
        try {
          const done: { playerId: string; referenceId: string; name: string }[] = [];
          for (const [i, step] of steps.entries()) {
            if (step.kind === 'reverse') {
              const target = done.splice(done.length - 1 - (step.back % Math.max(1, done.length)), 1)[0];
              if (target) expect((await reverseAction(target, origin, deps)).ok).toBe(true);
              continue;
            }
            const action = { playerId: PLAYERS[step.player], referenceId: `r${i}`, name: step.name };
            // `big` is dated from the start date on, `small` anywhere in the last 20 days.
            const hoursAgo = step.name === 'big' ? step.hoursAgo % (5 * 24) : step.hoursAgo;
            const processed = await processAction(
              { ...action, timestamp: NOW - hoursAgo * HOUR, multiplier: 1, details: [] },
              origin,
              deps,
            );
            expect(processed.ok).toBe(true);
            done.push(action);
          }
          const replayed = async (from?: number) =>
            new Map(
              [...(await replayLog(events, DRAFT, { from })).replayed()].map(([id, p]) => [id, holdings(p.after)]),
            );
          expect(await replayed(FROM)).toEqual(await replayed());
        } finally {
          await deps.jobs.close();
          await events.close();
        }
      }),
      { numRuns: 80 },
    );
  });
});
