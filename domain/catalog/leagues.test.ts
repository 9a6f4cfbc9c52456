/** The leagues section (docs/catalog.md, "Leagues"): defaults, and what the schema and the cross-entry checks refuse, by path. */
import { parseCatalog } from './load';

const CATALOG = `version: 1
deliverables: [{ uid: beans, label: Beans, type: Prize, kind: Currency }]
actions: [{ identifier: order, points: 10 }]
leagues:
`;

const parse = (leagues: string) => parseCatalog(CATALOG + leagues, 'leagues.yaml');
const problemsOf = (leagues: string) => {
  const parsed = parse(leagues);
  return parsed.ok ? [] : parsed.problems;
};

describe('leagues', () => {
  it("accepts the issue's league, with the defaults applied", () => {
    const parsed = parse(`  - uid: lg-weekly
    label: Weekly league
    period: Week
    cohortSize: 30
    tiers:
      - { uid: bronze, label: Bronze, promote: 7 }
      - { uid: silver, label: Silver, promote: 5, demote: 5 }
      - uid: gold
        label: Gold
        demote: 5
        prizes:
          - { ranks: [1, 1], points: 100, deliverables: [{ deliverable: beans, amount: 50 }] }
          - { ranks: [2, 3], points: 50 }
  - { uid: lg-sprint, label: Sprint, metric: { action: order }, period: { minutes: 1 }, timeZone: Asia/Tokyo, cohortSize: 2, settleAfterSeconds: 30, tiers: [{ uid: only, label: Only }] }
`);
    expect(parsed.ok && parsed.catalog.leagues).toEqual([
      {
        uid: 'lg-weekly',
        label: 'Weekly league',
        metric: 'points',
        period: 'Week',
        timeZone: null,
        cohortSize: 30,
        settleAfterSeconds: 0,
        tiers: [
          { uid: 'bronze', label: 'Bronze', promote: 7, demote: 0, prizes: [] },
          { uid: 'silver', label: 'Silver', promote: 5, demote: 5, prizes: [] },
          {
            uid: 'gold',
            label: 'Gold',
            promote: 0,
            demote: 5,
            prizes: [
              { ranks: [1, 1], points: 100, deliverables: [{ deliverable: 'beans', amount: 50 }] },
              { ranks: [2, 3], points: 50, deliverables: [] },
            ],
          },
        ],
      },
      {
        uid: 'lg-sprint',
        label: 'Sprint',
        metric: { action: 'order' },
        period: { minutes: 1 },
        timeZone: 'Asia/Tokyo',
        cohortSize: 2,
        settleAfterSeconds: 30,
        tiers: [{ uid: 'only', label: 'Only', promote: 0, demote: 0, prizes: [] }],
      },
    ]);
  });

  it('refuses bad values by path', () => {
    expect(
      problemsOf(`  - { uid: a, label: A, period: Month, cohortSize: 2, tiers: [{ uid: t, label: T }] }
  - { uid: b, label: B, period: { minutes: 10081 }, cohortSize: 1001, tiers: [] }
  - { uid: c, label: C, period: Day, timeZone: Mars/Base, cohortSize: 2, tiers: [{ uid: t, label: T, prizes: [{ ranks: [2, 1] }] }] }
`),
    ).toEqual([
      'leagues[0].period: must be Day, Week or { minutes: N }',
      'leagues[1].period.minutes: must be at most 10,080 (a week)',
      'leagues[1].cohortSize: must be at most 1,000',
      'leagues[1].tiers: at least one tier is required',
      'leagues[2].timeZone: unknown time zone "Mars/Base"',
      'leagues[2].tiers[0].prizes[0].ranks: must not end before it starts',
    ]);
  });

  it('refuses tiers that promote off the top or demote off the bottom, duplicate tiers, and prizes that overlap or name nothing', () => {
    expect(
      problemsOf(`  - uid: lg
    label: L
    metric: { action: sell }
    period: Day
    cohortSize: 3
    tiers:
      - { uid: t1, label: One, promote: 4, demote: 1, prizes: [{ ranks: [1, 2], deliverables: [{ deliverable: gems, amount: 1 }] }, { ranks: [2, 4] }] }
      - { uid: t1, label: Two, promote: 1 }
`),
    ).toEqual([
      'leagues[0].metric.action: unknown action "sell"',
      'leagues[0].tiers[0].demote: must be 0 on the lowest tier (there is no tier to demote to)',
      'leagues[0].tiers[0].promote: must be at most cohortSize (3)',
      'leagues[0].tiers[0].prizes[0].deliverables[0].deliverable: unknown deliverable "gems"',
      'leagues[0].tiers[0].prizes[1].ranks: must end at most at cohortSize (3)',
      'leagues[0].tiers[0].prizes[1].ranks: overlaps leagues[0].tiers[0].prizes[0] (ranks 1 to 2)',
      'leagues[0].tiers[1].uid: duplicate tier uid "t1" (first at leagues[0].tiers[0])',
      'leagues[0].tiers[1].promote: must be 0 on the top tier (there is no tier to promote to)',
    ]);
  });

  it('shares the uid space of the catalog', () => {
    expect(
      problemsOf(`  - { uid: beans, label: L, period: Day, cohortSize: 2, tiers: [{ uid: t, label: T }] }
`),
    ).toEqual(['leagues[0].uid: duplicate uid "beans" (first at deliverables[0])']);
  });
});
