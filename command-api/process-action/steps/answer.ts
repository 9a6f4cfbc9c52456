/** The answer of a decision: what the caller is told the action earned, from what the steps decided. */
import type { ExperimentInForce } from '../../../domain/catalog/experiments';
import type { Grant } from '../../../domain/events/common';
import type {
  ActionProcessed,
  ActionResult,
  Award,
  CapCut,
  LevelReached,
  MissionMove,
  StreakStep,
} from '../../../domain/events/player-events';
import type { ProcessActionCommand } from './command';
import type { MissionStep } from './missions';

/** The answer: badges and triggers (in award order), the last level reached, points, grants, streaks, the missions the action moved, caps. */
export function answerOf(
  cmd: Pick<ProcessActionCommand, 'playerId' | 'referenceId'>,
  awards: readonly Award[],
  levels: readonly LevelReached[],
  earnedPoints: number,
  grants: Grant[],
  cost: ActionProcessed['cost'],
  streakSteps: readonly StreakStep[],
  missionMoves: readonly MissionMove[],
  missionSteps: readonly MissionStep[],
  capped: CapCut[] | null,
  experiments: ExperimentInForce[],
): ActionResult {
  const achieved = levels[levels.length - 1];
  const result: ActionResult = {
    playerId: cmd.playerId,
    referenceId: cmd.referenceId,
    badges: nullIfEmpty(
      awards
        .filter((a) => a.kind === 'badge')
        .map((a) => ({
          uid: a.uid,
          label: a.label,
          type: a.ruleType,
          points: a.points,
          imageName: a.imageName,
          rank: a.rank,
        })),
    ),
    triggers: nullIfEmpty(
      awards.filter((a) => a.kind === 'trigger').map((a) => ({ uid: a.uid, label: a.label, points: a.points })),
    ),
    achievedLevel: achieved
      ? {
          uid: achieved.uid,
          label: achieved.label,
          level: achieved.level,
          target: achieved.target,
          imageName: achieved.imageName,
        }
      : null,
    earnedPoints,
    deliverables: nullIfEmpty(grants),
    ...(cost ? { provisionUid: cost.provisionUid } : {}),
    streaks: nullIfEmpty(
      streakSteps.map((s) => ({
        uid: s.uid,
        label: s.label,
        length: s.length,
        extended: s.extended,
        freezesUsed: s.freezesUsed,
        freezesLeft: s.freezes,
        milestones: s.milestones.map((m) => ({ length: m.length, points: m.points, deliverables: m.grants })),
      })),
    ),
    missions: nullIfEmpty(
      missionMoves.flatMap((m, i) =>
        m.counted.length > 0 || m.completion !== null
          ? [
              {
                uid: m.uid,
                label: m.label,
                stepsCompleted: m.completedSteps.length,
                stepsTotal: missionSteps[i].mission.steps.length,
                completed: m.completion !== null,
              },
            ]
          : [],
      ),
    ),
    capped,
  };
  if (experiments.length) result.experiments = experiments;
  return result;
}

const nullIfEmpty = <T>(xs: T[]): T[] | null => (xs.length ? xs : null);
