/**
 * A league period's tier stream (`league-<uid>/<start>/<tier>`): who entered, in order, and which
 * cohorts are settled. Its fold keeps counts, not the players: a tier of a million entries is
 * folded in constant memory and time per event, and a settlement reads its cohort's entries one
 * by one by revision (`entryRevision`).
 */
import { leagueEventOf } from './events';
import type { StreamFold } from './stream-fold';

export interface LeagueTierState {
  /** Players entered so far. */
  entries: number;
  /** The period's first entry's cohortSize (0: nobody entered). */
  cohortSize: number;
  /** Cohort numbers settled. */
  settled: readonly number[];
  /** Revision of the first settlement (null: none yet): entries before it are at revisions 0, 1, 2, ... */
  firstSettledAt: number | null;
  /** Revisions of entries recorded after a settlement (a clock set apart in another process): rare. */
  lateEntries: readonly number[];
}

export const LEAGUE_TIER_FOLD: StreamFold<LeagueTierState> = {
  initial: () => ({ entries: 0, cohortSize: 0, settled: [], firstSettledAt: null, lateEntries: [] }),
  evolve(state, recorded) {
    const e = leagueEventOf(recorded);
    if (!e) return state;
    if (e.type === 'LeagueEntered')
      return {
        ...state,
        entries: state.entries + 1,
        cohortSize: state.cohortSize || e.data.cohortSize,
        lateEntries: state.firstSettledAt === null ? state.lateEntries : [...state.lateEntries, recorded.revision],
      };
    return {
      ...state,
      settled: [...state.settled, e.data.cohort],
      firstSettledAt: state.firstSettledAt ?? recorded.revision,
    };
  },
};

/** The stream revision of the `index`th entry (from 0). */
export const entryRevision = (state: LeagueTierState, index: number): number =>
  state.firstSettledAt === null || index < state.firstSettledAt
    ? index
    : state.lateEntries[index - state.firstSettledAt];

/** The entry indexes (from 0) of a cohort (from 1). */
export function cohortEntries(state: LeagueTierState, cohort: number): number[] {
  const from = (cohort - 1) * state.cohortSize;
  const to = Math.min(state.entries, cohort * state.cohortSize);
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}

/** How many cohorts the entries make. */
export const cohortCount = (state: LeagueTierState): number =>
  state.cohortSize ? Math.ceil(state.entries / state.cohortSize) : 0;
