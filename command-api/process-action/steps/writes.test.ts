/** The writes step: given a decided action, the events it writes to each stream and the jobs it schedules. */
import type { PlayerRegistered } from '../../../domain/events/player-events';
import {
  playerStream,
  provisionStream,
  referenceStream,
  stockStream,
  TRIGGER_ACTIVATIONS,
} from '../../../domain/streams';
import { catalogOf, PLAYER, playerSpec, T0, testEnv } from '../../../test/support/player-spec';
import { noEffects } from '../../../domain/events/common';
import { deciderSpec } from '../../../test/support/decider-spec';
import { processActionDecider } from '../decider';
import { jobsOf, playerEventsOf, writesOf } from './writes';

const catalog = catalogOf(`
  version: 1
  deliverables:
    - { uid: gold, label: Gold, type: Prize, kind: Currency }
    - { uid: gems, label: Gems, type: Prize, kind: Currency, expiry: { afterDays: 7 } }
  actions:
    - { identifier: mine, deliverables: [{ deliverable: gold, amount: 10 }] }
    - { identifier: spin, cost: 4, costDeliverable: gold, deliverables: [{ deliverable: gems, amount: 1 }] }
  triggers:
    - { uid: t-spin, label: Spin, type: OneTimeOnly, conditions: [{ action: spin }], limited: true, limit: 5 }
`);

/** A player who mined, and their decided spin (recorded on the spec). */
function spun() {
  const p = playerSpec(catalog);
  p.process('mine');
  const before = p.state;
  return { p, before, processed: p.process('spin', { ref: 'r-spin' }) };
}

describe('the writes step', () => {
  it("puts the registration, the experiments joined and the decision on the player's stream, in that order", () => {
    const { processed } = spun();
    const registered = { playerId: PLAYER } as PlayerRegistered;
    const events = playerEventsOf(processed, registered, [{ experimentUid: 'e', variantUid: 'v' }], 'UTC', processed);
    expect(events.map((e) => e.type)).toEqual(['PlayerRegistered', 'ExperimentJoined', 'ActionProcessed']);
    expect(events[1].data).toMatchObject({
      experimentUid: 'e',
      variantUid: 'v',
      referenceId: 'r-spin',
      timeZone: 'UTC',
    });
  });

  it("writes the player's events, the reference naming their revision, the trigger's activation and the cost's provision", () => {
    const { processed } = spun();
    const events = playerEventsOf(processed, null, [], 'UTC', processed);
    const writes = writesOf(processed, events, 6, null);
    expect(writes.map((w) => w.stream)).toEqual([
      playerStream(PLAYER),
      referenceStream('r-spin'),
      stockStream(TRIGGER_ACTIVATIONS, 't-spin'),
      provisionStream(processed.cost!.provisionUid),
    ]);
    expect(writes[1].events[0].data).toMatchObject({ playerRevision: 7, actionName: 'spin' });
    expect(writes[3]).toMatchObject({ expectedRevision: 'no_stream', events: [{ type: 'ProvisionOpened' }] });
  });

  it('schedules the expiry of the lots granted', () => {
    const { p, before, processed } = spun();
    const jobs = jobsOf(catalog, before, null, processed, 'UTC', p.env.now, null, null);
    expect(jobs).toEqual([expect.objectContaining({ type: 'expire-currency' })]);
    expect(T0).toBeLessThan(jobs[0].runAt);
  });

  it("adds the settlements of the seasons the action counts in after the lots' expiries", () => {
    const { p, before, processed } = spun();
    const season = { type: 'settle-season', id: 'season-lb-weekly-2026-W01', runAt: T0 + 1, payload: {} };
    const jobs = jobsOf(catalog, before, null, processed, 'UTC', p.env.now, null, [season]);
    expect(jobs).toEqual([expect.objectContaining({ type: 'expire-currency' }), season]);
  });
});

describe('the writes of a decided action, as then-events', () => {
  const gold = { uid: 'gold', label: 'Gold', type: 1, imageName: null, amount: 10, details: null };

  it('a first mine: the registration and the decision on the player stream, the reference naming the revision', () => {
    deciderSpec(processActionDecider)
      .given({})
      .when(
        { playerId: PLAYER, referenceId: 'r-mine', name: 'mine', timestamp: T0, multiplier: 1, details: [] },
        { ...testEnv(T0), catalog },
      )
      .thenWrites({
        [playerStream(PLAYER)]: [
          {
            type: 'PlayerRegistered',
            data: {
              playerId: PLAYER,
              username: PLAYER,
              imageName: null,
              registeredAt: T0,
              levels: [],
              effects: noEffects(),
            },
          },
          {
            type: 'ActionProcessed',
            data: {
              playerId: PLAYER,
              referenceId: 'r-mine',
              // The uid the catalog derives for the action (it names none).
              actionUid: catalog.actions[0].uid,
              actionName: 'mine',
              timestamp: T0,
              decidedAt: T0,
              multiplier: 1,
              details: [],
              actionPoints: 0,
              pointsAwarded: true,
              actionGrants: [gold],
              awards: [],
              levels: [],
              progress: [],
              cost: null,
              result: {
                playerId: PLAYER,
                referenceId: 'r-mine',
                earnedPoints: 0,
                deliverables: [gold],
                achievedLevel: null,
                badges: null,
                triggers: null,
                streaks: null,
                missions: null,
                capped: null,
              },
              effects: { ...noEffects(), balances: [{ deliverableUid: 'gold', amount: 10 }] },
            },
          },
        ],
        // The decision is the player's second event: the reference names its revision.
        [referenceStream('r-mine')]: [
          {
            type: 'ReferenceRecorded',
            data: { referenceId: 'r-mine', playerId: PLAYER, playerRevision: 1, actionName: 'mine' },
          },
        ],
      });
  });
});
