/** A league period's tier stream (`league-<uid>/<start>/<tier>`): who entered, in order, and which cohorts are settled. */
import { leagueEventOf } from './events';
import type { StreamFold } from './stream-fold';

export interface LeagueTierState {
  /** Players in the order they entered. */
  entries: string[];
  /** The period's first entry's cohortSize (0: nobody entered). */
  cohortSize: number;
  /** Cohort numbers settled. */
  settled: number[];
}

export const LEAGUE_TIER_FOLD: StreamFold<LeagueTierState> = {
  initial: () => ({ entries: [], cohortSize: 0, settled: [] }),
  evolve(state, recorded) {
    const e = leagueEventOf(recorded);
    if (!e) return state;
    if (e.type === 'LeagueEntered')
      return {
        ...state,
        entries: [...state.entries, e.data.playerId],
        cohortSize: state.cohortSize || e.data.cohortSize,
      };
    return { ...state, settled: [...state.settled, e.data.cohort] };
  },
};

/** The players of a cohort (from 1), in the order they entered. */
export const cohortMembers = (state: { entries: readonly string[]; cohortSize: number }, cohort: number): string[] =>
  state.entries.slice((cohort - 1) * state.cohortSize, cohort * state.cohortSize);

/** How many cohorts the entries make. */
export const cohortCount = (state: { entries: readonly string[]; cohortSize: number }): number =>
  state.cohortSize ? Math.ceil(state.entries.length / state.cohortSize) : 0;
