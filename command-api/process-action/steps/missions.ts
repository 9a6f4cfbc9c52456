/** The missions step of a decision: the move the action makes in each mission with a step it matches, and what it records. */
import type { Catalog } from '../../../domain/catalog/schema';
import type { Grant } from '../../../domain/events/common';
import type { MissionMove } from '../../../domain/events/player-events';
import { appliesTo } from '../../../domain/player/segments';
import type { PlayerView } from '../../../domain/player/state';
import {
  advance,
  allStepsCompleted,
  compileMissions,
  isUnlocked,
  missionPeriodOf,
  stepMatches,
  withinWindow,
  type MissionPosition,
} from '../../../domain/rules/missions';
import type { ProcessActionCommand } from './command';

export type MissionStep = ReturnType<typeof missionStepsOf>[number];

/**
 * Each active mission with a step whose condition the action meets, in its window, unlocked by
 * what the player held before the action: the action's period, its step matches, the steps it was
 * an entry of, the position after it, and whether it completes the mission.
 */
export function missionStepsOf(
  catalog: Catalog,
  player: PlayerView,
  cmd: Pick<ProcessActionCommand, 'name' | 'referenceId' | 'timestamp'>,
  details: ReadonlyMap<string, string>,
  timeZone: string,
) {
  return compileMissions(catalog).flatMap((m) => {
    const matches = stepMatches(m, cmd.name, details);
    if (matches.length === 0 || !withinWindow(m, cmd.timestamp) || !isUnlocked(m.def, player)) return [];
    if (!appliesTo(catalog, m.def.segment, player)) return [];
    const period = missionPeriodOf(m.def, cmd.timestamp, timeZone);
    const held = player.missions.get(m.def.uid)?.periods.get(period);
    const before: MissionPosition = {
      // The held steps are the state's: the position the move records is a copy.
      steps: m.conditions.map((_, i) => {
        const step = held?.steps[i];
        return step ? { entries: [...step.entries], completed: step.completed } : { entries: [], completed: false };
      }),
    };
    // A period whose mission is completed counts nothing more; the match is still recorded for replays.
    const done = held?.completion != null;
    const { position, counted } = done
      ? { position: before, counted: [] }
      : advance(m, before, { ref: cmd.referenceId, ts: cmd.timestamp, matches });
    return [{ mission: m.def, period, matches, counted, position, completes: !done && allStepsCompleted(position) }];
  });
}

/** The steps as the event records them, each completion with its grants as granted (`granted`: one list per completion, in order). */
export function missionMovesRecorded(steps: readonly MissionStep[], granted: readonly Grant[][]): MissionMove[] {
  let nextCompletion = 0;
  return steps.map(({ mission, period, matches, counted, position, completes }) => ({
    uid: mission.uid,
    label: mission.label,
    period,
    matches,
    counted,
    completedSteps: position.steps.flatMap((s, i) => (s.completed ? [i] : [])),
    completion: completes ? { points: mission.points, grants: granted[nextCompletion++] } : null,
  }));
}
