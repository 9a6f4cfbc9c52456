/** Processing an action: every rule it triggers (points, badges, ranks, triggers, levels, powerups, cost), step by step (steps/). */
import { addAmounts, multiplyAmount } from '../../domain/amount';
import { indexCatalog } from '../../domain/catalog/catalog-index';
import type { Catalog } from '../../domain/catalog/schema';
import type { ActionProcessed, ActionResult } from '../../domain/events/player-events';
import type { PlayerState } from '../../domain/player/state';
import { fail, ok } from '../../domain/result';
import { catalogForPlayer, gamesOf } from '../../domain/catalog/experiments';
import { experimentsOfAction } from '../../domain/rules/experiments';
import { compileRules } from '../../domain/rules/conditions';
import { capActionPoints, timesCapReached, type CapClock } from '../../domain/rules/caps';
import { levelsReachedAt } from '../../domain/rules/levels';
import { scopedAttributes } from '../../domain/player/attributes';
import { playerStream, referenceStream, stockStream, TRIGGER_ACTIVATIONS } from '../../domain/streams';
import { decision, type DecideEnv, type Decider } from '../decision';
import { folded, type Reads, type UseCase } from '../use-case';
import { PLAYER_FOLD } from '../../domain/player/fold';
import { REFERENCE_FOLD } from '../../domain/reference';
import { STOCK_FOLD } from '../../domain/stock/stock';
import { leagueStep } from '../league-entry/decider';
import { seasonJobsOfAction } from '../settle-season/decider';
import { ERRORS, refuse } from '../../domain/errors';
import { answerOf } from './steps/answer';
import { awardsOf, type ActivationsTaken } from './steps/awards';
import type { ProcessActionCommand } from './steps/command';
import { allowancesUsed, capsReported } from './steps/caps';
import { costOf } from './steps/cost';
import { detailOutOfRange, detailsByName } from './steps/details';
import { missionMovesRecorded, missionStepsOf } from './steps/missions';
import { actionGrantsOf, earnedPointsOf, pointsAwardedFor } from './steps/points';
import { effectsOfAction, prizesOf } from './steps/prizes';
import { autoRegistration, registeredPlayer } from './steps/registration';
import { streakMovesOf, streakStepsRecorded } from './steps/streaks';
import { jobsOf, playerEventsOf, writesOf } from './steps/writes';

export type { ActivationsTaken, ProcessActionCommand };

export interface ProcessActionState {
  player: PlayerState;
  /** Revision of the player's stream the state is folded up to (-1: a new player). */
  playerRevision: number;
  /** The referenceId is recorded already, by this player or another. */
  referenceTaken: boolean;
  /** Activations taken so far of each limited trigger the action can award, by trigger uid. */
  activationsTaken: ActivationsTaken;
}

/** Limited triggers with a condition on an action: the stocks a decision on it must read. */
export function limitedTriggersOf(catalog: Catalog, actionName: string): { uid: string; limit: number }[] {
  return (compileRules(catalog).byAction.get(actionName) ?? []).flatMap((rule) =>
    'limited' in rule.def && rule.def.limited ? [{ uid: rule.def.uid, limit: rule.def.limit }] : [],
  );
}

/**
 * Each action's limited triggers in any game, by catalog (immutable once published): read for every
 * action, a replay's hundreds of thousands too. Only the catalog's actions: a name a client sends is not kept.
 */
const limitedOfAnyGame = new WeakMap<Catalog, Map<string, readonly { uid: string; limit: number }[]>>();

/** The limited triggers of an action in the base game and in every variant's: whichever the player plays. */
function limitedTriggersOfAnyGame(catalog: Catalog, actionName: string): readonly { uid: string; limit: number }[] {
  if (!indexCatalog(catalog).actionByIdentifier.has(actionName)) return anyGame(catalog, actionName);
  let byAction = limitedOfAnyGame.get(catalog);
  if (!byAction) limitedOfAnyGame.set(catalog, (byAction = new Map()));
  let triggers = byAction.get(actionName);
  if (!triggers) byAction.set(actionName, (triggers = anyGame(catalog, actionName)));
  return triggers;
}

function anyGame(catalog: Catalog, actionName: string): { uid: string; limit: number }[] {
  if (!catalog.experiments?.length) return limitedTriggersOf(catalog, actionName);
  const byUid = new Map<string, { uid: string; limit: number }>();
  for (const game of gamesOf(catalog))
    for (const trigger of limitedTriggersOf(game, actionName))
      if (!byUid.has(trigger.uid)) byUid.set(trigger.uid, trigger);
  return [...byUid.values()];
}

/**
 * Decides everything one action earns, in named pure steps (steps/*.ts and domain/rules), in the
 * order of a decision: registration and experiments (the player and game the action finds),
 * caps, cost and points, badges and triggers, streaks, missions, levels, leagues, then prizes
 * (powerups and earn caps), the answer, and what it writes and schedules. The whole decision goes
 * into one ActionProcessed event, so replays and reversals never re-run the rules. Written with
 * it, in one append: the referenceId's record (expected not to exist: a second one is the
 * duplicate), one activation of each limited trigger awarded, and the cost's provision.
 */
export const decideProcessAction: Decider<ProcessActionCommand, ProcessActionState, ActionResult> = (
  cmd,
  state,
  baseEnv,
) => {
  const base = baseEnv.catalog;
  // The player as the action finds them: registered by it when new. Its registration is refused
  // below, after the refusals that come first; the levels it reaches count for segments and the cost.
  const registration = autoRegistration(base, state.player, cmd.playerId, baseEnv);
  const registered = registration?.ok ? registration.value : null;
  const player = registered ? registeredPlayer(state.player, registered) : state.player;
  // The action is decided under the player's variant of each experiment in force (base + patches).
  const experiments = experimentsOfAction(base, player, cmd.playerId, cmd.timestamp);
  const catalog = catalogForPlayer(base, experiments.inForce);
  const env = catalog === base ? baseEnv : { ...baseEnv, catalog };
  const index = indexCatalog(catalog);
  const action = index.actionByIdentifier.get(cmd.name);
  if (!action || !action.isActive) return refuse(ERRORS.ACTION_INACTIVE);
  if (state.referenceTaken || state.player.processed.has(cmd.referenceId)) return refuse(ERRORS.DUPLICATE_ACTION);
  if (!state.player.registered) {
    if (!base.settings.autoRegisterPlayers) return refuse(ERRORS.PLAYER_DOES_NOT_EXIST);
    if (registration && !registration.ok) return registration;
  }

  // Caps count periods of the player's calendar, in the zone in force now.
  const clock: CapClock = { timestamp: cmd.timestamp, timeZone: player.timeZone ?? catalog.settings.timezone };
  // Past a times cap the action is recorded but counts for nothing: no cost, points, grants or rules.
  const timesCap = timesCapReached(action, player, clock);
  const counts = timesCap === null;

  const deliverables = index.deliverableByUid;
  const charged = costOf(action, player, deliverables, counts, env);
  if (!charged.ok) return charged;
  const cost = charged.value;

  const pointsAwarded = pointsAwardedFor(action, player, cmd.timestamp, counts);
  const pointsCapped = capActionPoints(
    action,
    player,
    clock,
    pointsAwarded ? multiplyAmount(action.points, cmd.multiplier) : 0,
  );
  const actionPoints = pointsCapped.points;
  const actionGrants = actionGrantsOf(action, deliverables, cmd.multiplier, counts);

  const details = detailsByName(cmd.details);
  const outOfRange = detailOutOfRange(catalog, cmd.name, details);
  if (outOfRange) return fail(1001, outOfRange);
  const { progress, awards } = counts
    ? awardsOf(cmd, player, env, details, deliverables, state.activationsTaken)
    : { progress: [], awards: [] };

  const streakMoves = counts ? streakMovesOf(catalog, player, cmd, details, clock.timeZone) : [];
  const milestones = streakMoves.flatMap((s) => s.milestones);
  const missionSteps = counts ? missionStepsOf(catalog, player, cmd, details, clock.timeZone) : [];
  const completed = missionSteps.filter((m) => m.completes).map((m) => m.mission);

  const earnedPoints = earnedPointsOf(actionPoints, awards, milestones, completed);
  const levels = levelsReachedAt(catalog, player, addAmounts(player.points, earnedPoints));

  const prizes = prizesOf(player, env, deliverables, clock, actionGrants, awards, levels, milestones, completed);
  const streakSteps = streakStepsRecorded(streakMoves, prizes.milestoneGrants);
  const missionMoves = missionMovesRecorded(missionSteps, prizes.completionGrants);
  const granted = effectsOfAction(catalog, prizes, earnedPoints, cost, env, clock);
  if (!granted.ok) return granted;

  const result = answerOf(
    cmd,
    prizes.awards,
    prizes.levels,
    earnedPoints,
    prizes.all,
    cost,
    streakSteps,
    missionMoves,
    missionSteps,
    capsReported(timesCap, pointsCapped.cuts, prizes.earnCuts),
    experiments.inForce,
  );
  const allowances = allowancesUsed(action, clock, counts, pointsCapped.uses, prizes.earnUses);

  const processed: ActionProcessed = {
    playerId: cmd.playerId,
    referenceId: cmd.referenceId,
    actionUid: action.uid,
    actionName: action.identifier,
    timestamp: cmd.timestamp,
    multiplier: cmd.multiplier,
    details: cmd.details,
    actionPoints,
    pointsAwarded,
    actionGrants: prizes.actionGrants,
    cost,
    progress,
    awards: prizes.awards,
    levels: prizes.levels,
    result,
    effects: granted.value,
    decidedAt: env.now,
  };
  // The optional fields, where they say something, in this order (set one by one: a spread of each made an object more).
  if (timesCap) processed.timesCapped = true;
  if (allowances.length) processed.allowances = allowances;
  if (streakSteps.length) processed.streaks = streakSteps;
  if (missionMoves.length) processed.missions = missionMoves;
  // The leaderboard scopes the action counts on: the player's values now, whatever they become later.
  const scopes = scopedAttributes(catalog, player.attributes);
  if (scopes) processed.attributes = scopes;
  if (experiments.inForce.length) processed.experiments = experiments.inForce;
  const leagues = counts
    ? leagueStep(
        catalog,
        player,
        { name: action.identifier, timestamp: cmd.timestamp, points: earnedPoints, playerId: cmd.playerId },
        env.now,
      )
    : null;
  if (leagues?.contributions.length) processed.leagues = leagues.contributions;
  // Most catalogs have no season prizes: nothing to look through.
  const seasons =
    counts && catalog.leaderboards.length
      ? seasonJobsOfAction(
          catalog,
          { name: action.identifier, timestamp: cmd.timestamp, points: earnedPoints },
          env.now,
        )
      : null;
  const playerEvents = playerEventsOf(cmd, registered, experiments.joins, clock.timeZone, processed);
  return ok(
    decision(
      result,
      writesOf(processed, playerEvents, state.playerRevision, leagues),
      jobsOf(catalog, player, registered, processed, clock.timeZone, env.now, leagues, seasons),
    ),
  );
};

/** The player (with their stream's revision), the activations of the limited triggers the action can award, and the referenceId's record. */
function* actionOf(cmd: ProcessActionCommand, env: DecideEnv): Reads<ProcessActionState> {
  const { state: player, revision: playerRevision } = yield* folded(playerStream(cmd.playerId), PLAYER_FOLD);
  const activationsTaken = new Map<string, number>();
  for (const trigger of limitedTriggersOfAnyGame(env.catalog, cmd.name))
    activationsTaken.set(
      trigger.uid,
      (yield* folded(stockStream(TRIGGER_ACTIVATIONS, trigger.uid), STOCK_FOLD)).state.taken,
    );
  const reference = yield* folded(referenceStream(cmd.referenceId), REFERENCE_FOLD);
  return { player, playerRevision, referenceTaken: reference.state !== null, activationsTaken };
}

/** An action: decided on the player, the limited triggers' stocks and the referenceId's record. */
export const processActionDecider: UseCase<ProcessActionCommand, ProcessActionState, ActionResult> = {
  read: actionOf,
  decide: decideProcessAction,
};
