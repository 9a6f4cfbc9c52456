/** The catalog's `moments` (docs/catalog.md, "moments"): defaults, and each problem named by its path. */
import { parseCatalog } from './load';

const parse = (yaml: string) => parseCatalog(`version: 1\n${yaml}`, 'catalog.yaml');

describe('moments', () => {
  it('is absent unless given (a catalog without it keeps its hash), and each kind named takes its defaults', () => {
    const bare = parse('');
    expect(bare.ok && bare.catalog.moments).toBeUndefined();
    const given = parse('moments: { streakAtRisk: {}, missionEnding: {}, inactive: { afterDays: [3] } }');
    expect(given.ok && given.catalog.moments).toEqual({
      streakAtRisk: { atLocalTime: '20:00', minLength: 2 },
      missionEnding: { hoursBefore: 24 },
      inactive: { afterDays: [3], atLocalTime: '20:00' },
    });
  });

  it('names every problem by its path', () => {
    const result = parse(
      'moments: { streakAtRisk: { atLocalTime: "24:00", minLength: 0 }, missionEnding: { hoursBefore: 9000 }, inactive: { afterDays: [7, 3] }, leagueEnding: {} }',
    );
    expect(result.ok ? [] : result.problems.sort()).toEqual([
      'moments.inactive.afterDays[1]: must be greater than the one before (7)',
      // Not yet: leagues come first.
      'moments.leagueEnding: unknown field',
      'moments.missionEnding.hoursBefore: must be at most 8,784 (hours)',
      'moments.streakAtRisk.atLocalTime: must be a local time HH:MM (00:00 to 23:59), got "24:00"',
      'moments.streakAtRisk.minLength: must be at least 1',
    ]);
  });
});
