/**
 * Streaks (docs/catalog.md, "streaks"): runs of consecutive Days or Weeks of the player's calendar
 * with a qualifying action, kept alive over missed periods by freezes, with milestones on the way.
 * The same step decides an action and replays the remaining actions after a reversal.
 */
import type { Streak } from '../catalog/types';
import type { StreakRun } from '../player/state';
import { periodsBetween } from '../time/calendar';
import { filterMatches } from './conditions';

/** Where a run stands: what a step reads and gives. */
export interface RunPosition {
  length: number;
  longest: number;
  lastPeriod: number | null;
  freezes: number;
}

export interface Step {
  run: RunPosition;
  extended: boolean;
  freezesUsed: number;
  /** The length the run reached with this step (started or extended), or null when nothing changed. */
  reached: number | null;
}

export const NO_RUN: RunPosition = { length: 0, longest: 0, lastPeriod: null, freezes: 0 };

/** Whether an action meets one of the streak's conditions. */
export function countsFor(streak: Streak, actionName: string, details: ReadonlyMap<string, string>): boolean {
  return (
    streak.isActive &&
    streak.conditions.some((c) => c.action === actionName && c.filters.every((f) => filterMatches(f, details)))
  );
}

/**
 * An action of period P on a run whose last counted period is L: no run starts one at 1; P = L or
 * P < L changes nothing; P = L + 1 extends it; with g periods missed, g freezes held are used to
 * extend it, else a new run starts at 1 (freezes held are kept). A freeze is earned each time the
 * length reaches a multiple of earnEvery, up to max held. Only periods that exist in the player's
 * zone `timeZone` can be missed: a day the zone skipped is not.
 */
export function step(streak: Streak, run: RunPosition, period: number, timeZone: string): Step {
  const last = run.lastPeriod;
  if (last !== null && period <= last) return { run, extended: false, freezesUsed: 0, reached: null };
  const missed = last === null ? 0 : periodsBetween(last, period, streak.period, timeZone, run.freezes);
  const continues = last !== null && missed <= run.freezes;
  const freezesUsed = continues ? missed : 0;
  const length = continues ? run.length + 1 : 1;
  let freezes = run.freezes - freezesUsed;
  if (streak.freezes && length % streak.freezes.earnEvery === 0) freezes = Math.min(streak.freezes.max, freezes + 1);
  return {
    run: { length, longest: Math.max(run.longest, length), lastPeriod: period, freezes },
    extended: continues,
    freezesUsed,
    reached: length,
  };
}

/** Milestone lengths reached by a step. */
export const milestonesAt = (streak: Streak, s: Step) => streak.milestones.filter((m) => m.length === s.reached);

/**
 * The run the actions `hits` give, in the order given, in the zone `timeZone`, and the milestones
 * reached on the way (`length@period`): a reversal keeps the milestones the remaining actions still reach.
 */
export function replay(
  streak: Streak,
  hits: StreakRun['hits'],
  timeZone: string,
): { run: RunPosition; reached: Set<string> } {
  let run = NO_RUN;
  const reached = new Set<string>();
  for (const hit of hits) {
    const s = step(streak, run, hit.period, timeZone);
    for (const m of milestonesAt(streak, s)) reached.add(`${m.length}@${hit.period}`);
    run = s.run;
  }
  return { run, reached };
}
