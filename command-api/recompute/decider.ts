/**
 * Recompute, for one player: from the player as recorded and as replayed under the published
 * catalog (command-api/simulate/replay.ts), the PlayerRecomputed event that makes the replayed
 * history the player's own, or null when nothing would change.
 */
import { subtractAmounts } from '../../shared/domain/amount';
import { noEffects, type Effects } from '../../shared/domain/events/common';
import type { PlayerRecomputed } from '../../shared/domain/events/player-events';
import { snapshotOf } from '../../shared/domain/player/snapshot';
import type { PlayerState } from '../../shared/domain/player/state';
import type { Replayed } from '../simulate/replay';
import { ok } from '../../shared/domain/result';
import { playerStream, RECOMPUTE_STREAM } from '../../shared/domain/streams';
import { ERRORS, refuse } from '../../shared/domain/errors';
import { decision, type Decider } from '../decision';

/** One player's part of a recompute: the run, and the catalog version it replays under. */
export interface RecomputePlayerCommand {
  recomputeUid: string;
  catalogVersion: number;
}

/**
 * The state is the player as recorded and as replayed; the decision appends PlayerRecomputed to
 * the player's stream at the revision the replay read, or nothing (answer null) when nothing changes.
 */
export const decideRecompute: Decider<RecomputePlayerCommand, Replayed, PlayerRecomputed | null> = (
  cmd,
  player,
  env,
) => {
  const event = recomputedEvent(cmd, player, env.now);
  return ok(
    event
      ? decision(event, [{ stream: playerStream(event.playerId), events: [{ type: 'PlayerRecomputed', data: event }] }])
      : decision(null, []),
  );
};

function recomputedEvent(
  cmd: RecomputePlayerCommand,
  player: Readonly<Replayed>,
  now: number,
): PlayerRecomputed | null {
  const { before, after } = player;
  const had = badgesOf(before);
  const has = badgesOf(after);
  const balances = [...new Set([...before.balances.keys(), ...after.balances.keys()])]
    .map((deliverableUid) => ({
      deliverableUid,
      before: before.balances.get(deliverableUid) ?? 0,
      after: after.balances.get(deliverableUid) ?? 0,
    }))
    .filter((b) => b.before !== b.after);
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
  const unchanged =
    before.points === after.points &&
    balances.length === 0 &&
    scores.length === 0 &&
    sameSet(had, has) &&
    sameLevels(before, after) &&
    sameJson([...before.recomputedActions.values()], actions) &&
    sameJson(snapshotOf({ ...before, recomputedActions: after.recomputedActions }), snapshotOf(after));
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
    actions,
    state: snapshotOf(after),
    effects: effectsBetween(before, after, balances),
  };
}

/** What the recompute changes in the player's holdings, as every player event says it. */
function effectsBetween(
  before: PlayerState,
  after: PlayerState,
  balances: { deliverableUid: string; before: number; after: number }[],
): Effects {
  return {
    ...noEffects(),
    points: subtractAmounts(after.points, before.points),
    balances: balances.map((b) => ({ deliverableUid: b.deliverableUid, amount: subtractAmounts(b.after, b.before) })),
    powerupsGranted: [...after.powerups.values()]
      .filter((p) => !before.powerups.has(p.instance.uid))
      .map((p) => p.instance),
    powerupsRemoved: [...before.powerups.keys()].filter((uid) => !after.powerups.has(uid)),
  };
}

const badgesOf = (state: PlayerState): Set<string> =>
  new Set(state.holdings.filter((h) => h.kind === 'badge').map((h) => h.uid));

const sameSet = (a: Set<string>, b: Set<string>): boolean => a.size === b.size && [...a].every((x) => b.has(x));

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

const sameLevels = (a: PlayerState, b: PlayerState): boolean =>
  sameJson([...a.levelsReached].sort(), [...b.levelsReached].sort());

function levelOf(state: PlayerState): number | null {
  let level: number | null = null;
  for (const l of state.levelsReached.values()) if (level === null || l > level) level = l;
  return level;
}

export interface StartRecomputeCommand {
  /** Unix ms: actions before it stand as recorded. */
  from?: number;
  dryRun: boolean;
  /** The published catalog's version, which the run replays under. */
  catalogVersion: number;
}

/** The recompute stream as read: the recomputes started and not finished, and those this process runs. */
export interface StartRecomputeState {
  unfinished: readonly string[];
  running: ReadonlySet<string>;
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
