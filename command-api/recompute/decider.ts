/**
 * Recompute, for one player: from the player as recorded and as replayed under the published
 * catalog (command-api/replay/replay.ts), the PlayerRecomputed event that makes the replayed
 * history the player's own, or null when nothing would change.
 */
import { subtractAmounts } from '../../domain/amount';
import { noEffects, type Effects } from '../../domain/events/common';
import type { ActionProcessed, PlayerRecomputed } from '../../domain/events/player-events';
import { snapshotOf } from '../../domain/player/snapshot';
import type { PlayerView } from '../../domain/player/state';
import { mutableCopy, type DeepReadonly } from '../../domain/deep-readonly';
import { activationsHeld, badgesOf, balanceChangesOf, triggerLimitsOfAnyGame, type Replayed } from '../replay/replay';
import { ok } from '../../domain/result';
import { playerStream, RECOMPUTE_STREAM, stockStream, TRIGGER_ACTIVATIONS } from '../../domain/streams';
import { ERRORS, refuse } from '../../domain/errors';
import type { Catalog } from '../../domain/catalog/schema';
import { decision, type Decider, type StreamWrite } from '../decision';
import { folded, type Reads, type UseCase } from '../use-case';
import { RECOMPUTES_FOLD, unfinishedOf } from '../../domain/recomputes';

/** One player's part of a recompute: the run, and the catalog version it replays under. */
export interface RecomputePlayerCommand {
  recomputeUid: string;
  catalogVersion: number;
}

/**
 * The state is the player as recorded and as replayed, with the limited triggers' stocks as read;
 * the decision appends PlayerRecomputed to the player's stream at the revision the replay read, or
 * nothing (answer null) when nothing changes. The activations of limited triggers the player gains
 * or loses move with it, in the same append: units taken at the stock's revision read (refused,
 * TOO_MANY_CONCURRENT_CHANGES, when the stock as read has no room left: another change must give
 * units back first), units given back at any revision (a return never exceeds the limit).
 */
export const decideRecompute: Decider<RecomputePlayerCommand, Replayed, PlayerRecomputed | null> = (
  cmd,
  player,
  env,
) => {
  // An erased player is not recomputed: the boards would rank them again, and their key is gone.
  if (player.before.erased) return ok(decision(null, []));
  const event = recomputedEvent(cmd, player, env.now);
  if (!event) return ok(decision(null, []));
  const writes: StreamWrite[] = [
    { stream: playerStream(event.playerId), events: [{ type: 'PlayerRecomputed', data: event }] },
  ];
  for (const { uid, units } of activationsMoved(player)) {
    const stream = stockStream(TRIGGER_ACTIVATIONS, uid);
    const data = { resourceUid: uid, holder: cmd.recomputeUid, playerId: event.playerId, units: Math.abs(units) };
    if (units < 0) {
      writes.push({ stream, events: [{ type: TRIGGER_ACTIVATIONS.returned, data }], expectedRevision: 'any' });
      continue;
    }
    const left = activationsLeft(env.catalog, uid, player.stocks.get(stream)?.taken ?? 0);
    if (left < units)
      return refuse(
        ERRORS.TOO_MANY_CONCURRENT_CHANGES,
        `limited trigger ${uid} has ${left} activations left, player ${event.playerId} gains ${units}`,
      );
    writes.push({ stream, events: [{ type: TRIGGER_ACTIVATIONS.taken, data }] });
  }
  return ok(decision(event, writes));
};

/** The activations of each limited trigger the player gains (positive) or loses (negative) by the recompute. */
function activationsMoved(player: DeepReadonly<Replayed>): { uid: string; units: number }[] {
  const had = activationsHeld(player.before);
  const has = activationsHeld(player.after);
  return [...new Set([...had.keys(), ...has.keys()])]
    .map((uid) => ({ uid, units: (has.get(uid) ?? 0) - (had.get(uid) ?? 0) }))
    .filter((m) => m.units !== 0);
}

/**
 * A trigger no longer limited in any game of the catalog has no limit to keep. One a variant limits
 * is held to it as the base game's are; one limited in several games to the largest limit (a gain
 * does not say which game it is under: each game's decisions, replayed, kept to their own).
 */
function activationsLeft(catalog: Catalog, uid: string, taken: number): number {
  const limits = triggerLimitsOfAnyGame(catalog).get(uid);
  return limits ? Math.max(...limits) - taken : Infinity;
}

function recomputedEvent(
  cmd: RecomputePlayerCommand,
  player: DeepReadonly<Replayed>,
  now: number,
): PlayerRecomputed | null {
  const { before, after } = player;
  const had = badgesOf(before);
  const has = badgesOf(after);
  const balances = balanceChangesOf(before, after);
  const scores = [...new Set([...player.scoresBefore.keys(), ...player.scoresAfter.keys()])].flatMap((ref) => {
    const was = player.scoresBefore.get(ref);
    const is = player.scoresAfter.get(ref);
    if ((was?.points ?? 0) === (is?.points ?? 0)) return [];
    const attributes = is?.attributes ?? was?.attributes;
    return [
      {
        ref,
        ts: (is ?? was)!.ts,
        before: was?.points ?? 0,
        after: is?.points ?? 0,
        ...(attributes ? { attributes } : {}),
      },
    ];
  });
  const actions = [...player.changedActions.values()];
  const state = changedFields(before, after);
  const unchanged =
    before.points === after.points &&
    balances.length === 0 &&
    scores.length === 0 &&
    sameSet(had, has) &&
    sameLevels(before, after) &&
    sameJson([...before.recomputedActions.values()], actions) &&
    Object.keys(state).length === 0;
  if (unchanged) return null;
  return {
    playerId: before.playerId,
    recomputeUid: cmd.recomputeUid,
    catalogVersion: cmd.catalogVersion,
    recomputedAt: now,
    readRevision: player.revision,
    changes: {
      pointsBefore: before.points,
      pointsAfter: after.points,
      levelBefore: levelOf(before),
      levelAfter: levelOf(after),
      badgesGained: [...has].filter((uid) => !had.has(uid)),
      badgesLost: [...had].filter((uid) => !has.has(uid)),
      balances,
      actions: actions.map((a) => a.referenceId),
    },
    scores,
    actions: mutableCopy<ActionProcessed[]>(actions),
    state,
    effects: effectsBetween(before, after, balances),
  };
}

/**
 * The fields of the player's state the recompute changes, as snapshot JSON: the event is appended
 * at the revision read, so the stream holds the rest (the actions processed, the chest openings,
 * the provisions, ..., which a recompute never changes and which grow with the history).
 * The re-decided actions travel apart, in the event's `actions`.
 */
function changedFields(before: PlayerView, after: PlayerView): Record<string, unknown> {
  const was = snapshotOf(before) as Record<string, unknown>;
  const is = snapshotOf(after) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(is).filter(([field, value]) => field !== 'recomputedActions' && !sameJson(value, was[field])),
  );
}

/** What the recompute changes in the player's holdings, as every player event says it. */
function effectsBetween(
  before: PlayerView,
  after: PlayerView,
  balances: { deliverableUid: string; before: number; after: number }[],
): Effects {
  return {
    ...noEffects(),
    points: subtractAmounts(after.points, before.points),
    balances: balances.map((b) => ({ deliverableUid: b.deliverableUid, amount: subtractAmounts(b.after, b.before) })),
    powerupsGranted: [...after.powerups.values()]
      .filter((p) => !before.powerups.has(p.instance.uid))
      .map(({ instance }) => ({ ...instance, targetPrizes: [...instance.targetPrizes] })),
    powerupsRemoved: [...before.powerups.keys()].filter((uid) => !after.powerups.has(uid)),
  };
}

const sameSet = (a: Set<string>, b: Set<string>): boolean => a.size === b.size && [...a].every((x) => b.has(x));

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

const sameLevels = (a: PlayerView, b: PlayerView): boolean =>
  sameJson([...a.levelsReached].sort(), [...b.levelsReached].sort());

function levelOf(state: PlayerView): number | null {
  let level: number | null = null;
  for (const l of state.levelsReached.values()) if (level === null || l > level) level = l;
  return level;
}

export interface StartRecomputeCommand {
  /** Unix ms: each player's actions processed before their first one dated from it on stand as they stand now (replayLog's `from`). */
  from?: number;
  dryRun: boolean;
  /** The published catalog's version, which the run replays under. */
  catalogVersion: number;
}

/** The recompute stream as read: the recomputes started and not finished, and those this process runs. */
export interface StartRecomputeState {
  unfinished: readonly string[];
  running: Pick<ReadonlySet<string>, 'has'>;
}

/**
 * Starts a recompute, unless one runs: two at once would each append on what the other changes.
 * One started by a process that stopped is not running (its players are each recomputed or not).
 */
export const decideStartRecompute: Decider<
  StartRecomputeCommand,
  StartRecomputeState,
  { recomputeUid: string; status: 'Running' }
> = (cmd, state, env) => {
  const running = state.unfinished.find((uid) => state.running.has(uid));
  if (running) return refuse(ERRORS.RECOMPUTE_RUNNING, `${running}; wait for it to complete`);
  const recomputeUid = env.newUid();
  return ok(
    decision({ recomputeUid, status: 'Running' as const }, [
      {
        stream: RECOMPUTE_STREAM,
        events: [
          {
            type: 'RecomputeStarted',
            data: {
              recomputeUid,
              ...(cmd.from !== undefined ? { from: cmd.from } : {}),
              dryRun: cmd.dryRun,
              catalogVersion: cmd.catalogVersion,
              startedAt: env.now,
            },
          },
        ],
      },
    ]),
  );
};

/** A start asked of this process, which knows the recomputes it runs (as they are at each attempt). */
export interface StartRecomputeHere extends StartRecomputeCommand {
  running: Pick<ReadonlySet<string>, 'has'>;
}

function* recomputesOf(cmd: StartRecomputeHere): Reads<StartRecomputeState> {
  const { state } = yield* folded(RECOMPUTE_STREAM, RECOMPUTES_FOLD);
  return { unfinished: unfinishedOf(state), running: cmd.running };
}

/** A recompute's start: decided on the recompute stream and the recomputes this process runs. */
export const startRecomputeDecider: UseCase<
  StartRecomputeHere,
  StartRecomputeState,
  { recomputeUid: string; status: 'Running' }
> = {
  read: recomputesOf,
  decide: decideStartRecompute,
};
