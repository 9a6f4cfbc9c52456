/** The CLI's summary of a simulation: a draft with experiments shows each variant's players and totals. */
import { summary } from './simulate';

describe('the summary of a simulation', () => {
  it("lists each experiment of the draft with its variants' players and what they would get", () => {
    const totals = { pointsBefore: 30, pointsAfter: 50, badgesGained: 1, badgesLost: 0, levelsChanged: 0 };
    const lines = summary(
      {
        eventsReplayed: 10,
        actionsRedecided: 4,
        playersAffected: 0,
        totals,
        players: [],
        boards: [],
        problems: [],
        experiments: [
          {
            uid: 'exp-share-points',
            variants: [
              { uid: 'control', players: 2, ...totals, pointsAfter: 30, badgesGained: 0 },
              { uid: 'double', players: 1, ...totals, pointsBefore: 1000, pointsAfter: 2000 },
            ],
          },
        ],
      },
      'draft.yaml',
    );
    expect(lines).toEqual(
      expect.arrayContaining([
        'Experiment exp-share-points, its players under the draft by variant:',
        '  control: 2 players, points 30 -> 30, badges +0 -0, levels changed 0',
        '  double: 1 player, points 1,000 -> 2,000, badges +1 -0, levels changed 0',
      ]),
    );
  });
});
