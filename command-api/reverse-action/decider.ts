/** Reversing an action: the compensation of everything it granted, and of what fell with it. */
import { leagueReturns } from '../../domain/rules/leagues';
import type { LeagueContribution } from '../../domain/events/league-events';
import { REFERENCE_FOLD, type ReferenceRecord } from '../../domain/reference';
import { mutableCopy, type DeepReadonly } from '../../domain/deep-readonly';
import { addAmounts, subtractAmounts } from '../../domain/amount';
import type { Catalog } from '../../domain/catalog/schema';
import { noEffects, type Effects, type Grant } from '../../domain/events/common';
import type {
  ActionProcessed,
  ActionReversed,
  MissionMove,
  RevokedAward,
  StreakStep,
} from '../../domain/events/player-events';
import { allowanceKey, balanceOf, type Holding, type PlayerState, type PlayerView } from '../../domain/player/state';
import { ERRORS, refuse } from '../../domain/errors';
import { playerEventOf } from '../../domain/events';
import { ok } from '../../domain/result';
import { challengeHolds, compileRules, countedEntries, rankThresholdMet } from '../../domain/rules/conditions';
import { addBalance, giveBack } from '../../domain/rules/grants';
import { allStepsCompleted, compileMissions, replayPeriod } from '../../domain/rules/missions';
import { replay } from '../../domain/rules/streaks';
import { playerStream, provisionStream, referenceStream, stockStream, TRIGGER_ACTIVATIONS } from '../../domain/streams';
import { decision, type Decider, type StreamWrite } from '../decision';
import { eventAt, folded, type Reads, type UseCase } from '../use-case';
import { playerOf } from '../player-reads';

export interface ReverseActionCommand {
  playerId: string;
  referenceId: string;
  name: string;
}

export interface ReverseActionState {
  /** The referenceId's record: the player whose action it is, and whether it was reversed; null when unknown. */
  reference: Pick<ReferenceRecord, 'playerId' | 'reversed'> | null;
  player: PlayerState;
  /** The ActionProcessed to reverse, from the player's stream; null when the player has none of that referenceId. */
  original: DeepReadonly<ReversedAction> | null;
}

/** What a reversal reads of the action it takes back: an ActionProcessed is one. */
export type ReversedAction = Pick<
  ActionProcessed,
  'referenceId' | 'actionName' | 'timestamp' | 'actionPoints' | 'actionGrants' | 'cost' | 'timesCapped' | 'experiments'
> & {
  effects: Pick<Effects, 'powerupUses' | 'lots'>;
  streaks?: Pick<StreakStep, 'uid'>[];
  missions?: Pick<MissionMove, 'uid' | 'period'>[];
  leagues?: Pick<LeagueContribution, 'uid' | 'period' | 'amount'>[];
};

/**
 * Decides the compensation of a processed action: everything it granted, every award (of this
 * or a later action) whose condition no longer holds without it, the levels the lower points
 * no longer reach, and the cost refunded. Written with it, in one append: the reversal on the
 * referenceId's record, the activations of revoked limited triggers given back, and the cost's
 * provision Refunded. 101 with nothing changed when it cannot be done.
 */
export const decideReverseAction: Decider<ReverseActionCommand, ReverseActionState, ActionReversed> = (
  cmd,
  state,
  env,
) => {
  const { reference, player, original } = state;
  if (!reference || reference.playerId !== cmd.playerId || !original || !player.processed.has(cmd.referenceId))
    return refuse(ERRORS.NOT_REVERSIBLE, 'unknown referenceId for this player');
  if (original.actionName !== cmd.name) return refuse(ERRORS.NOT_REVERSIBLE, 'name does not match the original action');
  if (reference.reversed || player.reversed.has(cmd.referenceId))
    return refuse(ERRORS.NOT_REVERSIBLE, 'already reversed');

  const { catalog, now } = env;
  const revoked = holdingsToRevoke(player, original, catalog);
  const revokedAwards: DeepReadonly<RevokedAward>[] = revoked.map((h) => ({
    kind: h.kind,
    uid: h.uid,
    rank: h.rank?.rank ?? null,
    awardedBy: h.awardedBy,
    awardedAt: h.awardedAt,
    points: h.points,
    grants: h.grants,
    limited: h.limited,
  }));

  const streaks = recomputedStreaks(player, original, catalog);
  const revokedMilestones = streaks.flatMap((s) => s.revoked);
  const missions = recomputedMissions(player, original, catalog);
  const revokedMissions = missions.flatMap((m) => m.revoked);
  const pointsTaken = [...revokedAwards, ...revokedMilestones, ...revokedMissions].reduce(
    (sum, a) => addAmounts(sum, a.points),
    original.actionPoints,
  );
  const pointsAfter = subtractAmounts(player.points, pointsTaken);
  // Levels whose target the remaining points no longer reach are lost, with what they granted.
  const revokedLevels = catalog.levels
    .filter((l) => player.levelsReached.has(l.uid) && l.target > pointsAfter)
    .map((l) => ({ uid: l.uid, level: l.level, grants: player.levelGrants.get(l.uid) ?? [] }));

  const actionGrants = original.actionGrants;
  const taken: DeepReadonly<Grant>[] = [
    ...actionGrants,
    ...revokedAwards.flatMap((a) => a.grants),
    ...revokedLevels.flatMap((l) => l.grants),
    ...revokedMilestones.flatMap((m) => m.grants),
    ...revokedMissions.flatMap((m) => m.grants),
  ];

  const effects = noEffects();
  effects.points = subtractAmounts(0, pointsTaken);
  const powerupDeliverables = new Set(catalog.deliverables.filter((d) => d.kind === 'Powerup').map((d) => d.uid));
  for (const g of taken) if (!powerupDeliverables.has(g.uid)) addBalance(effects, g.uid, -g.amount);
  if (original.cost) giveBack(effects, original.cost, now);
  takeBackLots(effects, player, original, now);
  effects.balances = effects.balances.filter((b) => b.amount !== 0);
  for (const b of effects.balances) {
    if (addAmounts(balanceOf(player, b.deliverableUid), b.amount) < 0)
      return refuse(ERRORS.NOT_REVERSIBLE, `taking back ${b.deliverableUid} would make the balance negative`);
  }
  const revokedGrants = [
    ...revokedAwards.map((a) => ({ origin: a.awardedBy, grants: a.grants })),
    ...revokedMilestones.map((m) => ({ origin: m.awardedBy, grants: m.grants })),
    ...revokedMissions.map((m) => ({ origin: m.awardedBy, grants: m.grants })),
  ];
  effects.powerupsRemoved = powerupsTakenBack(
    player,
    original.referenceId,
    revokedGrants,
    revokedLevels,
    powerupDeliverables,
  );
  effects.powerupUses = original.effects.powerupUses
    .filter((u) => player.powerups.has(u.uid))
    .map((u) => ({ uid: u.uid, uses: -u.uses }));

  // Built from the state's own data (read-only); the event and the answer get a copy of their own.
  const reversal: DeepReadonly<ActionReversed> = {
    playerId: cmd.playerId,
    referenceId: cmd.referenceId,
    actionName: original.actionName,
    timestamp: original.timestamp,
    reversedAt: now,
    actionPoints: original.actionPoints,
    actionGrants,
    revokedAwards,
    revokedLevels,
    refund: original.cost,
    effects,
    ...(original.timesCapped ? { timesCapped: true } : {}),
    ...(original.experiments ? { experiments: original.experiments } : {}),
    ...allowancesReturned(player, original, revokedGrants, revokedLevels),
    ...(streaks.length ? { streaks: streaks.map((s) => s.run), revokedMilestones } : {}),
    ...(missions.length ? { missions: missions.map((m) => m.period), revokedMissions } : {}),
  };
  const reversed = mutableCopy<ActionReversed>(reversal);
  // What the action added to league periods not yet settled; a settled period's results stand.
  const leagues = leagueReturns(player, original.leagues ?? [], now);
  if (leagues.length) reversed.leagues = leagues;
  const writes: StreamWrite[] = [
    { stream: playerStream(cmd.playerId), events: [{ type: 'ActionReversed', data: reversed }] },
    {
      stream: referenceStream(cmd.referenceId),
      events: [
        { type: 'ReferenceReversed', data: { referenceId: cmd.referenceId, playerId: cmd.playerId, reversedAt: now } },
      ],
    },
    // An activation goes back to every player: a return can never exceed the limit, so it needs no revision.
    ...revokedAwards
      .filter((a) => a.limited)
      .map((a): StreamWrite => ({
        stream: stockStream(TRIGGER_ACTIVATIONS, a.uid),
        events: [
          {
            type: TRIGGER_ACTIVATIONS.returned,
            data: { resourceUid: a.uid, holder: a.awardedBy, playerId: cmd.playerId, units: 1 },
          },
        ],
        expectedRevision: 'any',
      })),
  ];
  if (original.cost) {
    const refunded = {
      provisionUid: original.cost.provisionUid,
      playerId: cmd.playerId,
      status: 'Refunded' as const,
      failureReason: null,
      updateDate: now,
    };
    writes.push({
      stream: provisionStream(original.cost.provisionUid),
      events: [{ type: 'ProvisionStatusChanged', data: refunded }],
      expectedRevision: 'any',
    });
  }
  return ok(decision(reversed, writes));
};

/**
 * The allowance uses a reversal gives back: all of the reversed action's, and for each revoked
 * award or level of a later action, the earn use of what it had granted, from that action's uses.
 */
function allowancesReturned(
  state: PlayerView,
  original: DeepReadonly<ReversedAction>,
  revokedGrants: { origin: string; grants: readonly DeepReadonly<Grant>[] }[],
  revokedLevels: { uid: string; grants: readonly DeepReadonly<Grant>[] }[],
): Pick<ActionReversed, 'allowancesReturned'> {
  const ref = original.referenceId;
  const returned = (state.allowancesByRef.get(ref) ?? []).map((use) => ({ ref, use: { ...use } }));
  const later = [
    ...revokedGrants,
    ...revokedLevels.map((l) => ({ origin: state.levelOrigins.get(l.uid) ?? ref, grants: l.grants })),
  ].filter((x) => x.origin !== ref);
  const left = new Map<string, number>();
  for (const { origin, grants } of later) {
    for (const g of grants) {
      for (const use of state.allowancesByRef.get(origin) ?? []) {
        if (use.kind !== 'earn' || use.of !== g.uid) continue;
        const key = `${origin} ${allowanceKey(use)}`;
        const back = Math.min(g.amount, left.get(key) ?? use.used);
        if (back <= 0) continue;
        left.set(key, subtractAmounts(left.get(key) ?? use.used, back));
        returned.push({ ref: origin, use: { ...use, used: back } });
      }
    }
  }
  return returned.length ? { allowancesReturned: returned } : {};
}

/**
 * Every streak the action counted for, replayed from the player's remaining actions as if it had
 * never happened; the milestones the replay no longer reaches fall (the action's own always do).
 */
function recomputedStreaks(state: PlayerView, original: DeepReadonly<ReversedAction>, catalog: Catalog) {
  const ref = original.referenceId;
  const streaks = new Map(catalog.streaks.map((s) => [s.uid, s]));
  return (original.streaks ?? []).flatMap(({ uid }) => {
    const streak = streaks.get(uid);
    const run = state.streaks.get(uid);
    if (!streak || !run) return [];
    const replayed = replay(
      streak,
      run.hits.filter((h) => h.ref !== ref),
      state.timeZone ?? catalog.settings.timezone,
    );
    const revoked = run.milestones
      .filter((m) => m.awardedBy === ref || !replayed.reached.has(`${m.length}@${m.period}`))
      .map((m) => ({
        streakUid: uid,
        length: m.length,
        period: m.period,
        awardedBy: m.awardedBy,
        awardedAt: m.awardedAt,
        points: m.points,
        grants: m.grants,
      }));
    return [{ run: { uid, ...replayed.run }, revoked }];
  });
}

/**
 * Each mission period the action had a step match in, replayed from the period's remaining actions
 * as if it had never happened; its completion falls when the replay no longer completes every step,
 * or when the reversed action made it.
 */
function recomputedMissions(state: PlayerView, original: DeepReadonly<ReversedAction>, catalog: Catalog) {
  const ref = original.referenceId;
  const missions = new Map(compileMissions(catalog).map((m) => [m.def.uid, m]));
  return (original.missions ?? []).flatMap(({ uid, period }) => {
    const mission = missions.get(uid);
    const run = state.missions.get(uid);
    if (!mission || !run) return [];
    const replayed = replayPeriod(
      mission,
      run.hits.filter((h) => h.period === period && h.ref !== ref),
    );
    const completion = run.periods.get(period)?.completion ?? null;
    const falls = completion !== null && (completion.awardedBy === ref || !allStepsCompleted(replayed));
    return [
      {
        period: {
          uid,
          period,
          steps: replayed.steps.map((s) => ({ refs: s.entries.map((e) => e.ref), completed: s.completed })),
        },
        revoked: falls
          ? [
              {
                missionUid: uid,
                period,
                awardedBy: completion.awardedBy,
                awardedAt: completion.awardedAt,
                points: completion.points,
                grants: completion.grants,
              },
            ]
          : [],
      },
    ];
  });
}

/** Holdings that fall with the action: its own awards, and those whose condition no longer holds. */
function holdingsToRevoke(
  state: PlayerView,
  original: DeepReadonly<ReversedAction>,
  catalog: Catalog,
): DeepReadonly<Holding>[] {
  const rules = compileRules(catalog);
  const ref = original.referenceId;
  const revoked = new Set<DeepReadonly<Holding>>();
  for (const h of state.holdings) {
    if (h.awardedBy === ref) {
      revoked.add(h);
      continue;
    }
    const rule = rules.rules.get(h.uid);
    if (!rule) continue;
    if (h.rank) {
      // A rank stands while the remaining qualifying actions still meet its threshold.
      const remaining = (state.progress.get(h.uid) ?? []).map((entries) => entries.filter((e) => e.ref !== ref));
      const rank = rule.ranks.find((r) => r.rank === h.rank!.rank);
      if (rank && !rankThresholdMet(rank, remaining)) revoked.add(h);
    } else if (h.consumed.some((entries) => entries.some((e) => e.ref === ref))) {
      const without = h.consumed.map((entries) => entries.filter((e) => e.ref !== ref));
      const still = rule.conditions.every((c, i) =>
        challengeHolds(c, countedEntries(c, without[i] ?? [], h.awardedAt)),
      );
      if (!still) revoked.add(h);
    }
  }
  // A rule that requires a badge the player no longer holds falls with it, transitively.
  let changed = true;
  while (changed) {
    changed = false;
    for (const h of state.holdings) {
      if (revoked.has(h)) continue;
      const required = rules.rules.get(h.uid)?.def.requiredBadge;
      if (!required) continue;
      const stillHeld = state.holdings.some((x) => x.uid === required && !revoked.has(x));
      if (!stillHeld) {
        revoked.add(h);
        changed = true;
      }
    }
  }
  return state.holdings.filter((h) => revoked.has(h));
}

/**
 * Powerup instances to take back: all those the reversed action created, and for each award or
 * level of a later action that is revoked, as many instances of its powerups as it granted.
 */
function powerupsTakenBack(
  state: PlayerView,
  ref: string,
  revokedGrants: { origin: string; grants: readonly DeepReadonly<Grant>[] }[],
  revokedLevels: { uid: string; grants: readonly DeepReadonly<Grant>[] }[],
  powerupDeliverables: ReadonlySet<string>,
): string[] {
  const owned = [...state.powerupOrigins.entries()].filter(([uid]) => state.powerups.has(uid));
  const taken = new Set(owned.filter(([, origin]) => origin === ref).map(([uid]) => uid));
  const revoked: { origin: string | null; grants: readonly DeepReadonly<Grant>[] }[] = [
    ...revokedGrants,
    ...revokedLevels.map((l) => ({ origin: state.levelOrigins.get(l.uid) ?? null, grants: l.grants })),
  ];
  // What the reversed action itself granted is all taken above.
  const later = revoked.filter((x) => x.origin !== ref);
  for (const { origin, grants } of later) {
    for (const g of grants) {
      if (!powerupDeliverables.has(g.uid)) continue;
      let count = Math.floor(g.amount);
      for (const [uid, o] of owned) {
        if (count === 0) break;
        if (
          taken.has(uid) ||
          (origin !== null && o !== origin) ||
          state.powerups.get(uid)!.instance.deliverableUid !== g.uid
        )
          continue;
        taken.add(uid);
        count--;
      }
    }
  }
  return [...taken];
}

/**
 * The lots the action granted of currencies that expire are taken back from their lots; a lot that
 * has expired and been recorded is gone already, so its amount is not taken from the balance again.
 */
function takeBackLots(effects: Effects, player: PlayerView, original: DeepReadonly<ReversedAction>, now: number): void {
  for (const lot of original.effects.lots ?? []) {
    if (lot.amount <= 0) continue;
    const held = player.lots.get(lot.deliverableUid)?.find(([expiresAt]) => expiresAt === lot.expiresAt)?.[1] ?? 0;
    const taken = Math.min(held, lot.amount);
    if (taken > 0) (effects.lots ??= []).push({ ...lot, amount: -taken });
    if (lot.expiresAt <= now) addBalance(effects, lot.deliverableUid, subtractAmounts(lot.amount, taken));
  }
}

/** The referenceId's record, the player, and the action it names on the player's stream. */
function* reversalOf(cmd: ReverseActionCommand): Reads<ReverseActionState> {
  const { state: reference } = yield* folded(referenceStream(cmd.referenceId), REFERENCE_FOLD);
  const player = yield* playerOf(cmd.playerId);
  if (reference?.playerId !== cmd.playerId) return { reference, player, original: null };
  const recorded = yield* eventAt(playerStream(cmd.playerId), reference.playerRevision);
  const typed = recorded && playerEventOf(recorded);
  // A recompute that decided it differently: that decision is the one taken back.
  const original =
    typed?.type === 'ActionProcessed' ? (player.recomputedActions.get(cmd.referenceId) ?? typed.data) : null;
  return { reference, player, original };
}

/** A reversal: decided on the referenceId's record, the player and the original action. */
export const reverseActionDecider: UseCase<ReverseActionCommand, ReverseActionState, ActionReversed> = {
  read: reversalOf,
  decide: decideReverseAction,
};
