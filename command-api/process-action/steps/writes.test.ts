/** The writes step: given a decided action, the events it writes to each stream and the jobs it schedules. */
import type { PlayerRegistered } from '../../../domain/events/player-events';
import {
  playerStream,
  provisionStream,
  referenceStream,
  stockStream,
  TRIGGER_ACTIVATIONS,
} from '../../../domain/streams';
import { catalogOf, PLAYER, playerSpec, T0 } from '../../../test/support/player-spec';
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
