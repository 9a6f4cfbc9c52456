/** The streaks step of a decision: the step the action makes in each streak it counts for, and what it records. */
import type { Catalog } from '../../../domain/catalog/schema';
import type { Grant } from '../../../domain/events/common';
import type { StreakStep } from '../../../domain/events/player-events';
import { appliesTo } from '../../../domain/player/segments';
import type { PlayerView } from '../../../domain/player/state';
import { countsFor, milestonesAt, NO_RUN, step } from '../../../domain/rules/streaks';
import { periodOf } from '../../../domain/time/calendar';
import type { ProcessActionCommand } from './command';

export type StreakMove = ReturnType<typeof streakMovesOf>[number];

/** Each active streak the action counts for, with the step it makes in the period of its timestamp and the milestones it reaches. */
export function streakMovesOf(
  catalog: Catalog,
  player: PlayerView,
  cmd: Pick<ProcessActionCommand, 'name' | 'timestamp'>,
  details: ReadonlyMap<string, string>,
  timeZone: string,
) {
  return catalog.streaks
    .filter((streak) => countsFor(streak, cmd.name, details) && appliesTo(catalog, streak.segment, player))
    .map((streak) => {
      const period = periodOf(cmd.timestamp, streak.period, timeZone);
      const s = step(streak, player.streaks.get(streak.uid) ?? NO_RUN, period, timeZone);
      return { streak, period, step: s, milestones: milestonesAt(streak, s) };
    });
}

/** The moves as the event records them, each milestone with its grants as granted (`granted`: one list per milestone, in order). */
export function streakStepsRecorded(moves: readonly StreakMove[], granted: readonly Grant[][]): StreakStep[] {
  let nextMilestone = 0;
  return moves.map(({ streak, period, step: s, milestones: reached }) => ({
    uid: streak.uid,
    label: streak.label,
    period,
    length: s.run.length,
    longest: s.run.longest,
    lastPeriod: s.run.lastPeriod ?? period,
    freezes: s.run.freezes,
    freezesUsed: s.freezesUsed,
    extended: s.extended,
    milestones: reached.map((m) => ({
      length: m.length,
      points: m.points,
      grants: granted[nextMilestone++],
    })),
  }));
}
