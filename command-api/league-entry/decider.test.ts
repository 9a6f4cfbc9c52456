/** The leagues step of a decision: given a player's league periods, what an action adds to each league, who it enters, and the settlement it schedules. */
import { leagueStream } from '../../domain/streams';
import { settleLeagueJob } from '../settle-league/decider';
import { catalogOf, playerSpec, T0 } from '../../test/support/player-spec';
import { leagueStep } from './decider';

const MINUTE = 60_000;
const catalog = catalogOf(`
  version: 1
  actions: [{ identifier: order, points: 10 }, { identifier: visit }]
  leagues:
    - { uid: lg, label: League, period: { minutes: 1 }, cohortSize: 2, tiers: [{ uid: bronze, label: Bronze }] }
`);
const order = (playerId: string, timestamp: number) => ({ name: 'order', timestamp, points: 10, playerId });

describe('the leagues step', () => {
  it("enters the player on their first action of a period, with the period's settlement; adds to it after", () => {
    const p = playerSpec(catalog);
    const period = { start: T0, end: T0 + MINUTE };
    const first = leagueStep(catalog, p.state, order(p.state.playerId, T0), T0);
    expect(first.contributions).toEqual([
      expect.objectContaining({ uid: 'lg', period, settleAt: period.end, tier: 'bronze', amount: 10, entered: true }),
    ]);
    // The step is part of an action's decision, not a use case: its writes, stated exactly.
    expect(first.writes).toEqual([
      {
        stream: leagueStream('lg', T0, 'bronze'),
        events: [
          {
            type: 'LeagueEntered',
            data: { leagueUid: 'lg', period, tier: 'bronze', playerId: p.state.playerId, cohortSize: 2 },
          },
        ],
        expectedRevision: 'any',
      },
    ]);
    expect(first.jobs).toEqual([settleLeagueJob({ leagueUid: 'lg', period, settleAt: period.end })]);

    p.process('order', { at: T0 });
    const second = leagueStep(catalog, p.state, order(p.state.playerId, T0 + 1000), T0 + 1000);
    expect(second.contributions).toEqual([expect.objectContaining({ uid: 'lg', amount: 10, entered: false })]);
    expect(second.writes).toEqual([]);
    expect(second.jobs).toEqual([]);
    expect(leagueStep(catalog, p.state, order(p.state.playerId, T0 + MINUTE), T0 + MINUTE).contributions).toEqual([
      expect.objectContaining({ entered: true }),
    ]);
  });

  it('adds nothing where the catalog has no league', () => {
    const plain = catalogOf(`
      version: 1
      actions: [{ identifier: order, points: 10 }]
    `);
    const step = leagueStep(plain, playerSpec(plain).state, order('p', T0), T0);
    expect(step).toEqual({ contributions: [], writes: [], jobs: [] });
  });
});
