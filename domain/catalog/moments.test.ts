/** The catalog's `moments` (docs/catalog.md, "moments"): defaults, and each problem named by its path. */
import { parseCatalog } from './load';

const parse = (yaml: string) => parseCatalog(`version: 1\n${yaml}`, 'catalog.yaml');

describe('moments', () => {
  it('is absent unless given (a catalog without it keeps its hash), and each kind named takes its defaults', () => {
    const bare = parse('');
    expect(bare.ok && bare.catalog.moments).toBeUndefined();
    const given = parse(
      'moments: { streakAtRisk: {}, missionEnding: {}, leagueEnding: {}, inactive: { afterDays: [3] } }',
    );
    expect(given.ok && given.catalog.moments).toEqual({
      streakAtRisk: { atLocalTime: '20:00', minLength: 2 },
      missionEnding: { hoursBefore: 24 },
      leagueEnding: { hoursBefore: 12, zones: ['Promotion', 'Demotion'] },
      inactive: { afterDays: [3], atLocalTime: '20:00' },
    });
  });

  it('names every problem by its path', () => {
    const result = parse(
      'moments: { streakAtRisk: { atLocalTime: "24:00", minLength: 0 }, missionEnding: { hoursBefore: 9000 }, inactive: { afterDays: [7, 3] }, leagueEnding: { hoursBefore: 0, zones: [Promotion, Top] } }',
    );
    expect(result.ok ? [] : result.problems.sort()).toEqual([
      'moments.inactive.afterDays[1]: must be greater than the one before (7)',
      'moments.leagueEnding.hoursBefore: must be at least 1',
      'moments.leagueEnding.zones[1]: must be one of Promotion, Safe, Demotion, got "Top"',
      'moments.missionEnding.hoursBefore: must be at most 8,784 (hours)',
      'moments.streakAtRisk.atLocalTime: must be a local time HH:MM (00:00 to 23:59), got "24:00"',
      'moments.streakAtRisk.minLength: must be at least 1',
    ]);
  });

  it('takes each zone of leagueEnding once, at least one', () => {
    const problems = (yaml: string) => {
      const result = parse(`moments: { leagueEnding: { zones: ${yaml} } }`);
      return result.ok ? [] : result.problems;
    };
    expect(problems('[Safe, Safe]')).toEqual(['moments.leagueEnding.zones: each zone at most once']);
    expect(problems('[]')).toEqual(['moments.leagueEnding.zones: at least one zone is required']);
  });
});
