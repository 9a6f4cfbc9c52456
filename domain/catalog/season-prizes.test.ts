/** Season boards' prizes (docs/catalog.md, "leaderboards"): defaults, and what validation refuses, by path. */
import { parseCatalog } from './load';

const CATALOG = `version: 1
deliverables: [{ uid: beans, label: Beans, type: Prize, kind: Currency }]
actions: [{ identifier: order, points: 10 }]
leaderboards:
`;

const parse = (boards: string) => parseCatalog(CATALOG + boards, 'boards.yaml');
const problemsOf = (boards: string) => {
  const parsed = parse(boards);
  return parsed.ok ? [] : parsed.problems;
};

describe('season prizes', () => {
  it('a Season board takes prizes by rank range and a grace; a board without them has none', () => {
    const parsed = parse(`  - uid: lb-week
    label: Weekly
    period: Week
    settleAfterSeconds: 60
    prizes:
      - { ranks: [1, 1], points: 100, deliverables: [{ deliverable: beans, amount: 50 }] }
      - { ranks: [2, 10], points: 5 }
  - { uid: lb-all, label: All time }
`);
    expect(parsed.ok && parsed.catalog.leaderboards.map((b) => [b.prizes, b.settleAfterSeconds])).toEqual([
      [
        [
          { ranks: [1, 1], points: 100, deliverables: [{ deliverable: 'beans', amount: 50 }] },
          { ranks: [2, 10], points: 5, deliverables: [] },
        ],
        60,
      ],
      [[], 0],
    ]);
  });

  it.each([
    [
      'on an all-time board',
      `  - { uid: lb, label: L, prizes: [{ ranks: [1, 1], points: 1 }] }`,
      'leaderboards[0].prizes: only for Season leaderboards (a period)',
    ],
    [
      'on a scoped board',
      `  - { uid: lb, label: L, period: Day, scope: country, prizes: [{ ranks: [1, 1], points: 1 }] }`,
      'leaderboards[0].prizes: only for a board without scope',
    ],
    [
      'past rank 100',
      `  - { uid: lb, label: L, period: Day, prizes: [{ ranks: [1, 101], points: 1 }] }`,
      'leaderboards[0].prizes[0].ranks: must end at most at 100',
    ],
    [
      'overlapping',
      `  - { uid: lb, label: L, period: Day, prizes: [{ ranks: [2, 5], points: 1 }, { ranks: [1, 2], points: 2 }] }`,
      'leaderboards[0].prizes[0].ranks: overlaps leaderboards[0].prizes[1] (ranks 1 to 2)',
    ],
    [
      'an unknown deliverable',
      `  - { uid: lb, label: L, period: Day, prizes: [{ ranks: [1, 1], deliverables: [{ deliverable: gems, amount: 1 }] }] }`,
      'leaderboards[0].prizes[0].deliverables[0].deliverable',
    ],
    [
      'ending before they start',
      `  - { uid: lb, label: L, period: Day, prizes: [{ ranks: [3, 1], points: 1 }] }`,
      'leaderboards[0].prizes[0].ranks: must not end before it starts',
    ],
  ])('refuses prizes %s', (_, boards, expected) => {
    expect(problemsOf(boards).join('\n')).toContain(expected);
  });
});
