/** A league period's tier stream folded: counts, not players; entries found by revision, late ones too. */
import { recordedOf } from '../test/support/decider-spec';
import { cohortCount, cohortEntries, entryRevision, LEAGUE_TIER_FOLD } from './league-stream';
import { foldStream } from './stream-fold';

const period = { start: 0, end: 60_000 };
const entered = (playerId: string) => ({
  type: 'LeagueEntered',
  data: { leagueUid: 'lg', period, tier: 't', playerId, cohortSize: 2 },
});
const settled = (cohort: number) => ({
  type: 'LeagueCohortSettled',
  data: { leagueUid: 'lg', period, tier: 't', cohort, players: [], settledAt: 1 },
});

it('numbers cohorts by entry, the last smaller, and finds an entry recorded after a settlement by its revision', () => {
  const events = [entered('a'), entered('b'), entered('c'), settled(1), entered('d')];
  const { state } = foldStream('s', LEAGUE_TIER_FOLD, recordedOf({ s: events }, 's'));
  expect(state).toMatchObject({ entries: 4, cohortSize: 2, settled: [1], firstSettledAt: 3, lateEntries: [4] });
  expect(cohortCount(state)).toBe(2);
  expect(cohortEntries(state, 1)).toEqual([0, 1]);
  expect(cohortEntries(state, 2).map((i) => entryRevision(state, i))).toEqual([2, 4]);
});
