/**
 * What-if: the log replayed on a scratch state as if a draft catalog had always been in force.
 * Every ActionProcessed is decided again from its recorded inputs by the service's own decider,
 * every reversal is decided again against the re-decided action, and every other player event
 * (registrations, purchases and their provisions, chest openings with their recorded draws,
 * powerup uses) is applied as recorded. Nothing is written: the answer compares each player's
 * recorded state with the replayed one. This file reads nothing: replay-log.ts hands it the log's
 * events.
 */
import { createHash } from 'node:crypto';
import { addAmounts, subtractAmounts } from '../../domain/amount';
import type { Catalog } from '../../domain/catalog/schema';
import { catalogForPlayer, gamesOf } from '../../domain/catalog/experiments';
import { catalogPutInForce } from '../../domain/catalog/versions';
import { mutableCopy } from '../../domain/deep-readonly';
import type { RecordedEvent } from '../../domain/events/recorded';
import { operatorEventOf, playerEventOf, stockEventOf, type PlayerEvent } from '../../domain/events';
import type { ActionProcessed, ActionReversed, PlayerRecomputed } from '../../domain/events/player-events';
import {
  evolveInPlace,
  ERASED_FIELD,
  evolveStandingInPlace,
  initialPlayerState,
  type PlayerState,
  type PlayerView,
} from '../../domain/player/state';
import { evolveStock } from '../../domain/stock/stock';
import {
  boardChanges,
  boardsOfCatalog,
  isScoring,
  periodOf,
  type BoardChange,
  type BoardDoc,
} from '../../shared/read-models/leaderboards';
import { rollPicking } from '../../domain/rules/weighted-pick';
import { playerIdOfStream, playerStream, shareOf, TRIGGER_ACTIVATIONS } from '../../domain/streams';
import type { DecideEnv } from '../decision';
import {
  limitedTriggersOf,
  processActionDecider,
  type ActivationsTaken,
  type ProcessActionCommand,
} from '../process-action/decider';
import { reverseActionDecider, type ReversedAction } from '../reverse-action/decider';
import { ReplayAnswers, type CountedActivations } from './answers';
import type {
  ExperimentTotals,
  PlayerChange,
  RankedLeader,
  ReplayProblem,
  ReportTotals,
  SimulationReport,
  VariantTotals,
} from './report';
import { ReplayedPlayers } from './replayed-players';

export const ACTIVATIONS_PREFIX = `${TRIGGER_ACTIVATIONS.prefix}-`;
const MAX_PROBLEMS = 1_000;
const BOARD_TOP = 10;

/** The players' streams of one share of `count` (domain/streams.ts shareOf), replayed apart from the others' (replayLog's `share`). */
export interface Share {
  index: number;
  count: number;
}

/** An action's contribution to a points leaderboard, by reference. */
export type Contributions = Map<string, { ts: number; points: number; attributes?: Record<string, string> }>;

/** A player as recorded and as replayed under the draft. */
export interface Replayed {
  /** As recorded; when the replay does not follow what a recompute writes, only what a report reads (evolveStandingInPlace). */
  before: PlayerState;
  after: PlayerState;
  /** The revision of the player's last event replayed. */
  revision: number;
  /** Each action's contribution to a points board, as recorded and as replayed (empty when the replay does not follow them). */
  scoresBefore: Contributions;
  scoresAfter: Contributions;
  /**
   * The player's live contributions to the all-time boards the report ranks, as recorded and as
   * replayed (Standings): kept here, spilled with the player, rather than in the standings, which
   * keep only each player's score on each board.
   */
  boardsBefore: BoardContributions;
  boardsAfter: BoardContributions;
  /** Re-decided actions whose decision differs from the recorded one, by referenceId (as a reversal reads them; empty when the replay does not follow them). */
  changedActions: Map<string, ActionProcessed>;
  /** Whether one of the player's actions has been decided again so far (from the start date). */
  redecidedFrom: boolean;
  /**
   * What a later reversal takes back of each of the player's actions as replayed, by referenceId.
   * One map per player: the inserts into one for the whole log (hundreds of thousands of actions)
   * took about 4 % of a simulation's CPU.
   */
  reversible: Map<string, ReversedAction>;
  /** The limited triggers' stocks as the replay read them, by stream: what a recompute moves its units from. */
  stocks: ReadonlyMap<string, StockRead>;
}

/** A stock as read: the units taken, at the stream's revision (-1: no events). */
export interface StockRead {
  taken: number;
  revision: number;
}

/** Activations of each limited trigger a player holds, by trigger uid: the units of its stock the player keeps. */
export function activationsHeld(state: PlayerView): Map<string, number> {
  const held = new Map<string, number>();
  for (const h of state.holdings) if (h.kind === 'trigger' && h.limited) held.set(h.uid, (held.get(h.uid) ?? 0) + 1);
  return held;
}

/** The badges a player holds, by uid. */
export const badgesOf = (state: PlayerView): Set<string> =>
  new Set(state.holdings.filter((h) => h.kind === 'badge').map((h) => h.uid));

/** Each balance that differs between two states of a player. */
export function balanceChangesOf(
  before: PlayerView,
  after: PlayerView,
): { deliverableUid: string; before: number; after: number }[] {
  return [...new Set([...before.balances.keys(), ...after.balances.keys()])]
    .map((deliverableUid) => ({
      deliverableUid,
      before: before.balances.get(deliverableUid) ?? 0,
      after: after.balances.get(deliverableUid) ?? 0,
    }))
    .filter((b) => b.before !== b.after);
}

/** A board of all points: each action's own contribution, as boardChanges gives it. */
const POINTS_BOARD = { action: null } as BoardDoc;

export class Replay {
  /** Activations of each limited trigger taken so far in the replay, and those players not replayed hold. */
  private readonly activations: ActivationCounts;
  private readonly stocksRead = new Map<string, StockRead>();
  /** The draft's all-time boards: the standings under the draft. */
  private readonly boards: BoardDoc[];
  private readonly env: ReplayEnv;
  /** The reads of each decision made again, answered from the replay's state. */
  private readonly answers: ReplayAnswers;
  /** The all-time boards in force at each point of the log, as the projector follows them: the standings now. */
  private liveBoards: BoardDoc[] = [];
  private readonly before = new Standings();
  private readonly after = new Standings();
  /**
   * The contributions of the players not replayed (a replay of some players: a report's, a
   * recompute's later pass), in memory: a replayed player's are in their record (Replayed).
   */
  private readonly notReplayed = new Map<string, PlayerTally>();
  private readonly problems: ReplayProblem[] = [];
  private problemsLeftOut = 0;
  private eventsReplayed = 0;
  private actionsRedecided = 0;
  /** Actions dated before the start date and decided again all the same (decidesAgain), by referenceId: out of order, so few. */
  private readonly redecidedBeforeFrom = new Set<string>();

  constructor(
    private readonly draft: Catalog,
    private readonly only: ReadonlySet<string> | undefined,
    private readonly from: number | undefined,
    standing: ReadonlyMap<string, number> = new Map(),
    /** Whether each player's contributions and changed actions are followed: a recompute writes them, a report does not need them. */
    private readonly recompute = true,
    /** The share of the players replayed, when the log is split (replayLog's `share`). */
    private readonly share?: Share,
    /** Where the players replayed are kept: in memory by default, or some spilled to a scratch file. */
    private readonly players = new ReplayedPlayers(),
    /** Whether the boards are ranked (replayLog's `ranked`): without them there is no report. */
    private readonly ranked = true,
  ) {
    this.boards = allTime(draft);
    this.env = new ReplayEnv(draft);
    this.activations = new ActivationCounts(draft, standing, share !== undefined);
    this.answers = new ReplayAnswers(this.activations, this.stocksRead);
  }

  apply(recorded: RecordedEvent): void {
    this.activations.position = recorded.position;
    const published = operatorEventOf(recorded);
    // The boards as the projector follows them: a version scheduled later from its CatalogVersionInForce.
    const inForce = published && catalogPutInForce(published);
    if (inForce) this.liveBoards = allTime(mutableCopy<Catalog>(inForce.catalog));
    if (recorded.streamName.startsWith(ACTIVATIONS_PREFIX)) {
      const moved = this.share && stockEventOf(recorded);
      // Another share's player: its decisions are replayed elsewhere, counted here as recorded.
      if (moved && shareOf(playerStream(moved.data.playerId), this.share.count) !== this.share.index)
        this.activations.recordedElsewhere(
          moved.data.resourceUid,
          moved.type.endsWith('Taken') ? moved.data.units : -moved.data.units,
        );
      const stock = this.stocksRead.get(recorded.streamName) ?? { taken: 0, revision: -1 };
      this.stocksRead.set(recorded.streamName, {
        taken: evolveStock(stock, recorded).taken,
        revision: recorded.revision,
      });
      return;
    }
    const playerId = playerIdOfStream(recorded.streamName);
    const event = playerId === null ? null : playerEventOf(recorded);
    if (!event || playerId === null) return;
    if (this.only && !this.only.has(playerId)) {
      // Not replayed: it stands as recorded, in the standings (its activations are counted from the start).
      let tally = this.notReplayed.get(playerId);
      if (!tally) this.notReplayed.set(playerId, (tally = { boardsBefore: new Map(), boardsAfter: new Map() }));
      this.forgetErased(playerId, tally, event);
      this.score(this.before, tally.boardsBefore, this.liveBoards, playerId, event, recorded.position);
      this.score(this.after, tally.boardsAfter, this.boards, playerId, event, recorded.position);
      return;
    }
    this.eventsReplayed += 1;
    let player = this.players.get(playerId);
    if (!player)
      this.players.add(
        playerId,
        (player = {
          before: initialPlayerState(playerId),
          after: initialPlayerState(playerId),
          revision: recorded.revision,
          scoresBefore: new Map(),
          scoresAfter: new Map(),
          boardsBefore: new Map(),
          boardsAfter: new Map(),
          changedActions: new Map(),
          redecidedFrom: false,
          reversible: new Map(),
          stocks: this.stocksRead,
        }),
      );
    player.revision = recorded.revision;
    this.forgetErased(playerId, player, event);
    if (this.recompute) evolveInPlace(player.before, event);
    else evolveStandingInPlace(player.before, event);
    this.score(this.before, player.boardsBefore, this.liveBoards, playerId, event, recorded.position);
    if (this.recompute) contribute(player.scoresBefore, event);
    if (event.type === 'PlayerRecomputed') {
      this.earlierRecompute(player, event.data, recorded);
      return;
    }
    const replayed =
      event.type === 'ActionProcessed' && this.decidesAgain(player, event.data)
        ? this.redecideAction(player, event.data, recorded)
        : event.type === 'ActionReversed'
          ? this.redecideReversal(player, event.data, recorded)
          : this.applyRecorded(player, event, recorded);
    for (const e of replayed) {
      this.score(this.after, player.boardsAfter, this.boards, playerId, e, recorded.position);
      if (this.recompute) contribute(player.scoresAfter, e);
    }
  }

  /**
   * Whether an action is decided again: from the start date, each of a player's actions from the
   * first one dated on or after it, in the order they were processed. One dated before but
   * processed after it is decided again too: it met the state the re-decided actions left (a
   * level they reached already, which it must not reach a second time). An erased player's action
   * with details is not: its details read [erased], the inputs it was decided on are gone, and it
   * stands as recorded (decided again from [erased], a summed detail would add nothing).
   */
  private decidesAgain(player: Replayed, action: ActionProcessed): boolean {
    if (detailsErased(action)) return false;
    if (this.from === undefined || action.timestamp >= this.from) return true;
    if (player.redecidedFrom) this.redecidedBeforeFrom.add(action.referenceId);
    return player.redecidedFrom;
  }

  /** Every replayed player, as recorded and as replayed. */
  replayed(): ReplayedPlayers {
    return this.players;
  }

  /** The limited triggers' stocks as read, by stream. */
  stocks(): ReadonlyMap<string, StockRead> {
    return this.stocksRead;
  }

  /**
   * An earlier recompute is the outcome of a replay, not a fact: a replay of the whole history
   * makes its own. From a date, though, the actions before it stand as they stand now, that is as
   * the earlier recompute decided them: while none of the player's actions has been decided again
   * yet, its outcome is taken as it is. Past that point its state holds decisions the replay has
   * already made again; the actions before the date it changed that the replay does not decide
   * again (processed before the player's first action from the date) then stand as first
   * recorded, and are listed.
   */
  private earlierRecompute(player: Replayed, recomputed: PlayerRecomputed, at: RecordedEvent): void {
    if (this.from === undefined) return;
    const from = this.from;
    if (player.redecidedFrom) {
      for (const a of recomputed.actions)
        if (a.timestamp < from && !this.redecidedBeforeFrom.has(a.referenceId))
          this.problem(
            at,
            recomputed.playerId,
            `action ${a.referenceId} before the start was changed by recompute ${recomputed.recomputeUid}, after actions decided again here: it stands as first recorded`,
          );
      return;
    }
    const event: PlayerEvent = { type: 'PlayerRecomputed', data: recomputed };
    const had = activationsHeld(player.after);
    evolveInPlace(player.after, { ...event, revision: at.revision });
    // The activations of limited triggers the earlier recompute moved.
    const has = activationsHeld(player.after);
    for (const uid of new Set([...had.keys(), ...has.keys()]))
      this.activations.move(uid, (has.get(uid) ?? 0) - (had.get(uid) ?? 0));
    for (const a of recomputed.actions) {
      player.reversible.set(a.referenceId, a);
      player.changedActions.set(a.referenceId, a);
    }
    this.score(this.after, player.boardsAfter, this.boards, player.before.playerId, event, at.position);
    if (this.recompute) contribute(player.scoresAfter, event);
  }

  /** The action decided again from its recorded inputs; a refusal under the draft leaves it out. */
  private redecideAction(player: Replayed, recorded: ActionProcessed, at: RecordedEvent): PlayerEvent[] {
    const state = player.after;
    this.actionsRedecided += 1;
    player.redecidedFrom = true;
    const cmd: ProcessActionCommand = {
      playerId: recorded.playerId,
      referenceId: recorded.referenceId,
      name: recorded.actionName,
      timestamp: recorded.timestamp,
      multiplier: recorded.multiplier,
      details: recorded.details,
    };
    const env = this.env.of(recorded, at.createdAt);
    // Read as the handler reads: the player as replayed, before this event; the referenceId not taken.
    const read = this.answers.stateOf(processActionDecider, cmd, env, state, at.revision - 1, null);
    // A share of a split replay notes each count of activations its decisions consult (sharesAgree), and a decision
    // consults a trigger's only when it would fire: the counts read are consulted through the replay's, which note them.
    const decided = processActionDecider.decide(
      cmd,
      this.activations.notes ? { ...read, activationsTaken: this.activations } : read,
      env,
    );
    if (!decided.ok) {
      this.problem(
        at,
        recorded.playerId,
        `action ${recorded.referenceId} (${recorded.actionName}) is refused under the draft (${decided.failure.code} ${decided.failure.message}): it earns nothing`,
      );
      return [];
    }
    const written = decided.value.writes.find((w) => w.stream === playerStream(recorded.playerId))!
      .events as PlayerEvent[];
    for (const e of written) evolveInPlace(state, { ...e, revision: at.revision });
    const processed = written.find(
      (e): e is Extract<PlayerEvent, { type: 'ActionProcessed' }> => e.type === 'ActionProcessed',
    )!.data;
    player.reversible.set(recorded.referenceId, reversedAction(processed));
    if (this.recompute) {
      const kept = forReversal(processed);
      if (!sameForReversal(kept, recorded)) player.changedActions.set(recorded.referenceId, kept);
    }
    this.countActivations(processed.awards, 1);
    // A recorded activation the draft's limit no longer leaves room for.
    if (recorded.awards.some((a) => a.limited)) this.checkActivations(recorded, processed, at);
    return written;
  }

  private checkActivations(recorded: ActionProcessed, processed: ActionProcessed, at: RecordedEvent): void {
    // The limits of the game the action was decided under: the player's variant may limit a trigger the base does not.
    const game = catalogForPlayer(this.draft, processed.experiments ?? []);
    for (const trigger of limitedTriggersOf(game, recorded.actionName)) {
      const wasAwarded = recorded.awards.some((a) => a.uid === trigger.uid);
      if (
        wasAwarded &&
        !processed.awards.some((a) => a.uid === trigger.uid) &&
        (this.activations.get(trigger.uid) ?? 0) >= trigger.limit
      ) {
        this.problem(
          at,
          recorded.playerId,
          `action ${recorded.referenceId}: the activation of limited trigger ${trigger.uid} is beyond its limit of ${trigger.limit} under the draft; not awarded`,
        );
      }
    }
  }

  /** The reversal decided again: it takes back what the re-decided action gave. */
  private redecideReversal(player: Replayed, recorded: ActionReversed, at: RecordedEvent): PlayerEvent[] {
    const state = player.after;
    const original = player.reversible.get(recorded.referenceId);
    // Refused under the draft: there is nothing to take back.
    if (!original) return [];
    const cmd = { playerId: recorded.playerId, referenceId: recorded.referenceId, name: recorded.actionName };
    const env = { catalog: this.draft, now: recorded.reversedAt, random: nothingDrawn, newUid: nothingDrawn };
    // Read as the handler reads: the referenceId's record and the action it names are the replayed action's.
    const read = this.answers.stateOf(reverseActionDecider, cmd, env, state, at.revision - 1, original);
    const decided = reverseActionDecider.decide(cmd, read, env);
    if (!decided.ok) {
      this.problem(
        at,
        recorded.playerId,
        `the reversal of action ${recorded.referenceId} is impossible under the draft (${decided.failure.message}); left out`,
      );
      return [];
    }
    const reversed: PlayerEvent = { type: 'ActionReversed', data: decided.value.answer };
    evolveInPlace(state, { ...reversed, revision: at.revision });
    this.countActivations(decided.value.answer.revokedAwards, -1);
    return [reversed];
  }

  /** A fact that is not a decision stands as recorded; what the draft makes impossible in it is listed. */
  private applyRecorded(player: Replayed, event: PlayerEvent, at: RecordedEvent): PlayerEvent[] {
    const state = player.after;
    if (
      (event.type === 'PowerupActivated' || event.type === 'PowerupDeactivated') &&
      !state.powerups.has(event.data.powerupUid)
    ) {
      this.problem(
        at,
        state.playerId,
        `${event.type} of powerup ${event.data.powerupUid}, which the player would not own under the draft`,
      );
    }
    evolveInPlace(state, { ...event, revision: at.revision });
    if (event.type === 'ActionProcessed') {
      player.reversible.set(event.data.referenceId, reversedAction(event.data));
      this.countActivations(event.data.awards, 1);
    }
    for (const b of event.data.effects.balances) {
      const balance = state.balances.get(b.deliverableUid) ?? 0;
      if (b.amount >= 0 || balance >= 0) continue;
      const what =
        event.type === 'BundlePurchased'
          ? `the purchase ${event.data.provisionUid} of bundle ${event.data.bundleUid}: the player could no longer afford it`
          : `${event.type}`;
      this.problem(at, state.playerId, `${what}; the balance of ${b.deliverableUid} would be ${balance}`);
    }
    return [event];
  }

  private countActivations(awards: readonly { uid: string; limited: boolean }[], delta: 1 | -1): void {
    for (const a of awards) if (a.limited) this.activations.move(a.uid, delta);
  }

  private score(
    standings: Standings,
    contributions: BoardContributions,
    boards: readonly BoardDoc[],
    playerId: string,
    event: PlayerEvent,
    position: number,
  ): void {
    if (!this.ranked || !isScoring(event)) return;
    for (const board of boards) {
      for (const change of boardChanges(event, board))
        if (periodOf(board, change.ts) !== null) standings.apply(board._id, playerId, contributions, change, position);
    }
  }

  /** An erased player: the boards rank as if the player were gone, as the live ones do. */
  private forgetErased(playerId: string, tally: PlayerTally, event: PlayerEvent): void {
    if (event.type !== 'PlayerErased') return;
    this.before.forget(playerId, tally.boardsBefore);
    this.after.forget(playerId, tally.boardsAfter);
  }

  private problem(at: RecordedEvent, playerId: string, message: string): void {
    if (this.problems.length < MAX_PROBLEMS)
      this.problems.push({ position: at.position, playerId, type: at.type, message });
    else this.problemsLeftOut += 1;
  }

  /** The report of a whole replay. */
  report(top: number): SimulationReport {
    return reportOf([this.part(top)], top);
  }

  /** What this replay reports, to be merged with the other shares' by reportOf: the players most changed, the boards' leaders, the first problems. */
  part(top: number): ReplayPart {
    if (!this.ranked) throw new Error('a replay that ranks no boards makes no report');
    const players: PlayerChange[] = [];
    const totals = { pointsBefore: 0, pointsAfter: 0, badgesGained: 0, badgesLost: 0, levelsChanged: 0 };
    const experiments = variantTotalsOf(this.draft);
    for (const [playerId, { before, after }] of this.players) {
      // An erased player is never recomputed, and the boards no longer rank them: not reported.
      if (after.erased) continue;
      totals.pointsBefore = addAmounts(totals.pointsBefore, before.points);
      totals.pointsAfter = addAmounts(totals.pointsAfter, after.points);
      const had = badgesOf(before);
      const has = badgesOf(after);
      const badgesGained = [...has].filter((uid) => !had.has(uid));
      const badgesLost = [...had].filter((uid) => !has.has(uid));
      const levelBefore = levelOf(before);
      const levelAfter = levelOf(after);
      const balances = balanceChangesOf(before, after);
      // Each experiment of the draft the player joins in the replay (or had joined): their variant's totals.
      for (const experiment of experiments) {
        const variant = experiment.variants.find((v) => v.uid === after.experiments.get(experiment.uid)?.variant);
        if (variant)
          addPlayer(variant, before.points, after.points, badgesGained, badgesLost, levelBefore !== levelAfter);
      }
      const affected =
        before.points !== after.points ||
        levelBefore !== levelAfter ||
        badgesGained.length > 0 ||
        badgesLost.length > 0 ||
        balances.length > 0;
      if (!affected) continue;
      totals.badgesGained += badgesGained.length;
      totals.badgesLost += badgesLost.length;
      if (levelBefore !== levelAfter) totals.levelsChanged += 1;
      players.push({
        playerId,
        pointsBefore: before.points,
        pointsAfter: after.points,
        levelBefore,
        levelAfter,
        badgesGained,
        badgesLost,
        balances,
      });
    }
    return {
      eventsReplayed: this.eventsReplayed,
      actionsRedecided: this.actionsRedecided,
      playersAffected: players.length,
      totals,
      players: players.sort(mostChangedFirst).slice(0, top),
      boards: this.boards.map((b) => ({
        leaderboardUid: b._id,
        before: this.before.leaders(b._id, BOARD_TOP),
        after: this.after.leaders(b._id, BOARD_TOP),
      })),
      problems: this.problems,
      problemsLeftOut: this.problemsLeftOut,
      activations: this.activations.notes,
      experiments,
    };
  }
}

/** Each experiment of the draft with its variants' totals at zero (none for a catalog published before experiments). */
const variantTotalsOf = (draft: Catalog): ExperimentTotals[] =>
  (draft.experiments ?? []).map((e) => ({
    uid: e.uid,
    variants: e.variants.map((v) => ({
      uid: v.uid,
      players: 0,
      pointsBefore: 0,
      pointsAfter: 0,
      badgesGained: 0,
      badgesLost: 0,
      levelsChanged: 0,
    })),
  }));

function addPlayer(
  into: VariantTotals,
  pointsBefore: number,
  pointsAfter: number,
  gained: readonly string[],
  lost: readonly string[],
  levelChanged: boolean,
): void {
  into.players += 1;
  into.pointsBefore = addAmounts(into.pointsBefore, pointsBefore);
  into.pointsAfter = addAmounts(into.pointsAfter, pointsAfter);
  into.badgesGained += gained.length;
  into.badgesLost += lost.length;
  if (levelChanged) into.levelsChanged += 1;
}

/** One replay's share of a report (Replay.part). */
export interface ReplayPart {
  eventsReplayed: number;
  actionsRedecided: number;
  playersAffected: number;
  totals: ReportTotals;
  /** The `top` players most changed. */
  players: PlayerChange[];
  boards: { leaderboardUid: string; before: Leader[]; after: Leader[] }[];
  /** The first problems, in the log's order, and how many more. */
  problems: ReplayProblem[];
  problemsLeftOut: number;
  /** A share's reads and moves of the limited triggers' activations (null for a whole replay). */
  activations: ActivationNote[] | null;
  /** The draft's experiments, each variant's totals over this share's players. */
  experiments: ExperimentTotals[];
}

/** Largest change of points first; in a tie, by playerId. */
const mostChangedFirst = (a: PlayerChange, b: PlayerChange): number => {
  const change = (p: PlayerChange) => Math.abs(subtractAmounts(p.pointsAfter, p.pointsBefore));
  return change(b) - change(a) || (a.playerId < b.playerId ? -1 : 1);
};

/**
 * The report of a replay from its parts: one for a whole replay, one per share of a split one
 * (which must agree first: sharesAgree). Each share's `top` most changed players and board
 * leaders hold the whole's: the shares' players are distinct.
 */
export function reportOf(parts: readonly ReplayPart[], top: number): SimulationReport {
  const sum = (of: (p: ReplayPart) => number) => parts.reduce((n, p) => n + of(p), 0);
  const totals = { pointsBefore: 0, pointsAfter: 0, badgesGained: 0, badgesLost: 0, levelsChanged: 0 };
  for (const { totals: t } of parts) {
    totals.pointsBefore = addAmounts(totals.pointsBefore, t.pointsBefore);
    totals.pointsAfter = addAmounts(totals.pointsAfter, t.pointsAfter);
    totals.badgesGained += t.badgesGained;
    totals.badgesLost += t.badgesLost;
    totals.levelsChanged += t.levelsChanged;
  }
  // Sorted by position: one event's problems come from one share, in their order (the sort is stable).
  const found = parts.flatMap((p) => p.problems).sort((a, b) => a.position - b.position);
  const leftOut = sum((p) => p.problemsLeftOut) + Math.max(0, found.length - MAX_PROBLEMS);
  const problems = found.slice(0, MAX_PROBLEMS);
  if (leftOut) problems.push({ position: 0, playerId: '', type: '', message: `and ${leftOut} more problems` });
  return {
    eventsReplayed: sum((p) => p.eventsReplayed),
    actionsRedecided: sum((p) => p.actionsRedecided),
    playersAffected: sum((p) => p.playersAffected),
    totals,
    players: parts
      .flatMap((p) => p.players)
      .sort(mostChangedFirst)
      .slice(0, top),
    boards: (parts[0]?.boards ?? []).map((board, i) => ({
      leaderboardUid: board.leaderboardUid,
      before: ranked(parts.flatMap((p) => p.boards[i].before)),
      after: ranked(parts.flatMap((p) => p.boards[i].after)),
    })),
    problems,
    ...(parts[0]?.experiments.length ? { experiments: experimentsOf(parts) } : {}),
  };
}

/** The shares' totals per experiment and variant, added up (every share has the draft's experiments, in its order). */
function experimentsOf(parts: readonly ReplayPart[]): ExperimentTotals[] {
  return parts[0].experiments.map((experiment, i) => ({
    uid: experiment.uid,
    variants: experiment.variants.map((variant, j) => {
      const sum = {
        ...variant,
        players: 0,
        pointsBefore: 0,
        pointsAfter: 0,
        badgesGained: 0,
        badgesLost: 0,
        levelsChanged: 0,
      };
      for (const part of parts) {
        const v = part.experiments[i].variants[j];
        sum.players += v.players;
        sum.pointsBefore = addAmounts(sum.pointsBefore, v.pointsBefore);
        sum.pointsAfter = addAmounts(sum.pointsAfter, v.pointsAfter);
        sum.badgesGained += v.badgesGained;
        sum.badgesLost += v.badgesLost;
        sum.levelsChanged += v.levelsChanged;
      }
      return sum;
    }),
  }));
}

/** The first BOARD_TOP leaders ranked: tied scores share a rank (1, 2, 2, 4). */
function ranked(leaders: Leader[]): RankedLeader[] {
  const first = leaders.sort(aheadFirst).slice(0, BOARD_TOP);
  return first.map((e) => ({
    rank: first.findIndex((x) => x.points === e.points) + 1,
    userId: e.userId,
    points: e.points,
  }));
}

/**
 * Whether the shares of a split replay decided as one replay would have: each read of a limited
 * trigger's activations (a share counts the other shares' as recorded) is checked against all the
 * shares' moves before it, replayed in the log's order. Only whether the trigger was exhausted
 * matters to a decision. When they agree, every decision of every share is the whole replay's
 * (by induction over the log: the first read that differs would be found); when not, the log is
 * replayed whole.
 */
export function sharesAgree(draft: Catalog, parts: readonly ReplayPart[]): boolean {
  const limits = triggerLimitsOfAnyGame(draft);
  // One event's notes come from one share, in their order (the sort is stable).
  const notes = parts.flatMap((p) => p.activations ?? []).sort((a, b) => a[0] - b[0]);
  const taken = new Map<string, number>();
  for (const [, uid, kind, value] of notes) {
    const count = taken.get(uid) ?? 0;
    if (kind === 'moved') taken.set(uid, Math.max(0, count + value));
    // A read does not say which game decided: under each limit the trigger has, the count read and the whole's must agree.
    else if (limits.get(uid)?.some((limit) => value >= limit !== count >= limit)) return false;
  }
  return true;
}

/**
 * The limits of each trigger limited in any game of the catalog, by uid: the base's and each
 * variant's (a patch may make a trigger limited, or change its limit). The live handler reads the
 * stock of each of them, whichever game the player plays (process-action/decider.ts): the replay
 * counts the activations of each.
 */
export function triggerLimitsOfAnyGame(catalog: Catalog): Map<string, number[]> {
  const limits = new Map<string, number[]>();
  for (const game of gamesOf(catalog))
    for (const trigger of game.triggers) {
      if (!trigger.limited) continue;
      const known = limits.get(trigger.uid);
      if (!known) limits.set(trigger.uid, [trigger.limit]);
      else if (!known.includes(trigger.limit)) known.push(trigger.limit);
    }
  return limits;
}

/**
 * A limited trigger's activations read by a decision, or moved by one (taken 1, given back -1, an
 * earlier recompute's move), at a position of the log.
 */
export type ActivationNote = [position: number, uid: string, kind: 'read' | 'moved', value: number];

/**
 * The activations of each limited trigger taken so far, as the replay's decisions read them. A
 * share of a split replay cannot see what the other shares' decisions take: it counts theirs as
 * recorded (each activation's event names its player), right as long as the draft changes none
 * of them, and notes each count it read and each move it made, for sharesAgree.
 */
class ActivationCounts implements ActivationsTaken, CountedActivations {
  /** Moved by this replay's decisions, from what the players not replayed hold. */
  private readonly own = new Map<string, number>();
  /** Taken by the other shares' players, as recorded up to the event replayed. */
  private readonly others = new Map<string, number>();
  /** The position of the event replayed. */
  position = 0;
  readonly notes: ActivationNote[] | null;

  constructor(draft: Catalog, standing: ReadonlyMap<string, number>, shared: boolean) {
    // The decider takes a trigger it is given no count for as exhausted: every one limited in any game starts at 0.
    for (const uid of triggerLimitsOfAnyGame(draft).keys()) this.own.set(uid, standing.get(uid) ?? 0);
    this.notes = shared ? [] : null;
  }

  get(uid: string): number | undefined {
    const count = this.counted(uid);
    if (count !== undefined) this.notes?.push([this.position, uid, 'read', count]);
    return count;
  }

  counted(uid: string): number | undefined {
    const own = this.own.get(uid);
    return own === undefined ? undefined : own + (this.others.get(uid) ?? 0);
  }

  move(uid: string, delta: number): void {
    this.own.set(uid, Math.max(0, (this.own.get(uid) ?? 0) + delta));
    this.notes?.push([this.position, uid, 'moved', delta]);
  }

  recordedElsewhere(uid: string, delta: number): void {
    this.others.set(uid, (this.others.get(uid) ?? 0) + delta);
  }
}

/** Follows an event's contributions to a points board, by reference. */
function contribute(scores: Contributions, event: PlayerEvent): void {
  if (!isScoring(event)) return;
  for (const change of boardChanges(event, POINTS_BOARD)) {
    const c = scores.get(change.ref);
    if (change.kind === 'add')
      scores.set(change.ref, {
        ts: change.ts,
        points: change.points,
        ...(event.type === 'ActionProcessed' && event.data.attributes ? { attributes: event.data.attributes } : {}),
      });
    else if (change.kind === 'remove') scores.delete(change.ref);
    else if (c) {
      const left = subtractAmounts(c.points, change.points);
      if (left > 0) c.points = left;
      else scores.delete(change.ref);
    }
  }
}

/** An erased player's action with details: each value reads [erased] (their key is gone). */
const detailsErased = (action: ActionProcessed): boolean =>
  action.details.length > 0 && action.details.every((d) => d.value === ERASED_FIELD);

/** What a kept record leaves out: one empty array shared by them all, frozen since nothing may write to it. */
const LEFT_OUT = Object.freeze([]) as never[];

/**
 * What a later reversal reads of an action (ReversedAction) and nothing more: a replay keeps one
 * per action of the log, hundreds of thousands, that live as long as it does.
 */
const reversedAction = (e: ActionProcessed): ReversedAction => ({
  referenceId: e.referenceId,
  actionName: e.actionName,
  timestamp: e.timestamp,
  actionPoints: e.actionPoints,
  actionGrants: e.actionGrants.length ? e.actionGrants : LEFT_OUT,
  cost: e.cost,
  timesCapped: e.timesCapped,
  experiments: e.experiments,
  effects: { powerupUses: e.effects.powerupUses.length ? e.effects.powerupUses : LEFT_OUT, lots: e.effects.lots },
  streaks: e.streaks?.map((s) => ({ uid: s.uid })),
  missions: e.missions?.map((m) => ({ uid: m.uid, period: m.period })),
});

/**
 * A re-decided action as a recompute writes it when it changed: its own points, grants, cost and
 * powerup uses (what it awarded is in the player's holdings). The rest (inputs, progress, the
 * answer) is left out.
 */
const forReversal = (e: ActionProcessed): ActionProcessed => ({
  ...e,
  details: LEFT_OUT,
  progress: LEFT_OUT,
  awards: LEFT_OUT,
  levels: LEFT_OUT,
  result: {
    playerId: e.playerId,
    referenceId: e.referenceId,
    badges: null,
    triggers: null,
    achievedLevel: null,
    earnedPoints: e.result.earnedPoints,
    deliverables: null,
  },
  effects: { ...e.effects, balances: LEFT_OUT, powerupsGranted: LEFT_OUT, powerupsRemoved: LEFT_OUT },
  // Read by no reversal; and one recorded before the decision's time was kept has none.
  decidedAt: undefined,
});

/** The fields forReversal leaves out or replaces: compared apart, or not at all. */
const NOT_KEPT = new Set(['details', 'progress', 'awards', 'levels', 'result', 'effects', 'decidedAt']);
const EFFECTS_NOT_KEPT = new Set(['balances', 'powerupsGranted', 'powerupsRemoved']);
const NONE: ReadonlySet<string> = new Set();

/** Whether `recorded` reads as `kept` (forReversal of a re-decision) once reduced the same way, without reducing it. */
function sameForReversal(kept: ActionProcessed, recorded: ActionProcessed): boolean {
  return (
    kept.result.earnedPoints === recorded.result.earnedPoints &&
    sameJsonBut(kept, recorded, NOT_KEPT) &&
    sameJsonBut(kept.effects, recorded.effects, EFFECTS_NOT_KEPT)
  );
}

function sameJsonBut(a: object, b: object, left: ReadonlySet<string>): boolean {
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let defined = 0;
  for (const key in x) {
    if (left.has(key) || x[key] === undefined) continue;
    defined += 1;
    if (!sameJson(x[key], y[key])) return false;
  }
  for (const key in y) if (!left.has(key) && y[key] !== undefined) defined -= 1;
  return defined === 0;
}

/**
 * Whether two values read the same as JSON (an undefined property is no property), without
 * writing either out: compared once per action, two strings each time were much of the garbage.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => sameJson(x, b[i]));
  }
  return sameJsonBut(a, b, NONE);
}

/** All-time boards: a Standard board has one period for its whole life. Scoped boards have one standings per value, not one top to compare: left out. */
const allTime = (catalog: Catalog): BoardDoc[] => boardsOfCatalog(catalog).filter((b) => b.type === 0 && !b.scope);

function levelOf(state: PlayerState): number | null {
  let level: number | null = null;
  for (const l of state.levelsReached.values()) if (level === null || l > level) level = l;
  return level;
}

/** A reversal takes back what was recorded: it draws no roll and makes no uid. */
const nothingDrawn = (): never => {
  throw new Error('a reversal draws nothing');
};

/**
 * The outside world of a re-decision, as it was: the time the decision used (the store's time of
 * the append for an action recorded before that was kept), the uids the action made (its cost's
 * provision, then its powerups: the order the decider asks for them), and the rolls that make
 * each randomized prize pick what was recorded. Past those, uids and rolls derived from the
 * referenceId, so a replay is the same every time. One per replay, moved to each action in turn
 * (a decision reads it synchronously): an env per action was a fair share of the garbage, and
 * most decisions ask for neither a uid nor a roll.
 */
class ReplayEnv implements DecideEnv {
  now = 0;
  private recorded: ActionProcessed | null = null;
  private uids: string[] | null = null;
  private rolls: number[] | null = null;
  private derived = 0;

  constructor(readonly catalog: Catalog) {}

  /** The env of the decision on `recorded`, recorded by the store at `createdAt`. */
  of(recorded: ActionProcessed, createdAt: number): this {
    this.recorded = recorded;
    this.now = recorded.decidedAt ?? createdAt;
    this.uids = null;
    this.rolls = null;
    this.derived = 0;
    return this;
  }

  readonly newUid = (): string => {
    const recorded = this.recorded!;
    this.uids ??= [
      ...(recorded.cost ? [recorded.cost.provisionUid] : []),
      ...recorded.effects.powerupsGranted.map((p) => p.uid),
    ];
    return (
      this.uids.shift() ??
      derivedDigest(recorded.referenceId, (this.derived += 1))
        .toString('hex')
        .slice(0, 32)
    );
  };

  readonly random = (): number => {
    const recorded = this.recorded!;
    this.rolls ??= recordedRolls(recorded, this.catalog);
    return this.rolls.shift() ?? derivedDigest(recorded.referenceId, (this.derived += 1)).readUIntBE(0, 6) / 2 ** 48;
  };
}

/** The nth value derived from a referenceId. */
const derivedDigest = (referenceId: string, n: number): Buffer =>
  createHash('sha256').update(`${referenceId}:${n}`).digest();

/** For each randomized prize the action won, the roll that picks the same deliverable under the draft. */
function recordedRolls(recorded: ActionProcessed, draft: Catalog): number[] {
  const rolls: number[] = [];
  for (const award of recorded.awards) {
    if (award.kind !== 'trigger' || award.grants.length !== 1) continue;
    const trigger = draft.triggers.find((t) => t.uid === award.uid);
    if (!trigger || !('randomizedPrize' in trigger) || !trigger.randomizedPrize) continue;
    const refs = trigger.deliverables;
    const index = refs.findIndex((x) => x.deliverable === award.grants[0].uid);
    // As the decider weighs a prize: its weight, 1 when it has none.
    if (index >= 0)
      rolls.push(rollPicking(refs, (x) => ('weight' in x && typeof x.weight === 'number' ? x.weight : 1), index));
  }
  return rolls;
}

/** A player on a board: the score, and the position of the last contribution (who reached a score first is ahead). */
interface Leader {
  userId: string;
  points: number;
  reachedAt: number;
}

/** Highest score first; in a tie, who reached it first (no two players' events share a position). */
const aheadFirst = (a: Leader, b: Leader): number => b.points - a.points || a.reachedAt - b.reachedAt;

/** A player's live contributions to each board (action, chest opening), by board and reference: where on the log each was made, and its points. */
export type BoardContributions = Map<string, Map<string, { at: number; points: number }>>;

/** Where a player's contributions to the boards are kept, as recorded and as replayed. */
type PlayerTally = Pick<Replayed, 'boardsBefore' | 'boardsAfter'>;

/** A player's score on a board: the sum of their live contributions, and the last position among them. */
interface Standing {
  points: number;
  reachedAt: number;
}

/**
 * Standings of the boards: each player's score on each board, what ranking reads. The
 * contributions summed into it are the player's (BoardContributions, in their record): the
 * standings stay as large as the players and boards, not the log. Amounts are exact to 6 places
 * (domain/amount.ts), so a sum kept as contributions come and go equals their sum.
 */
class Standings {
  private readonly standings = new Map<string, Map<string, Standing>>();

  apply(
    board: string,
    playerId: string,
    contributions: BoardContributions,
    change: BoardChange,
    position: number,
  ): void {
    let live = contributions.get(board);
    if (!live) contributions.set(board, (live = new Map()));
    let players = this.standings.get(board);
    if (!players) this.standings.set(board, (players = new Map()));
    let standing = players.get(playerId);
    if (!standing) players.set(playerId, (standing = { points: 0, reachedAt: 0 }));
    const c = live.get(change.ref);
    if (change.kind === 'add') {
      if (c) standing.points = subtractAmounts(standing.points, c.points);
      live.set(change.ref, { at: position, points: change.points });
      standing.points = addAmounts(standing.points, change.points);
      // The log is applied in order: no live contribution was made later.
      standing.reachedAt = position;
      return;
    }
    if (!c) return;
    const left = subtractAmounts(c.points, change.points);
    if (change.kind === 'reduce' && left > 0) {
      c.points = left;
      standing.points = subtractAmounts(standing.points, change.points);
      return;
    }
    live.delete(change.ref);
    standing.points = subtractAmounts(standing.points, c.points);
    // The last contribution gone: the score was reached when the latest of the others was made.
    if (c.at === standing.reachedAt) {
      standing.reachedAt = 0;
      for (const other of live.values()) standing.reachedAt = Math.max(standing.reachedAt, other.at);
    }
  }

  /** An erased player, off every board. */
  forget(playerId: string, contributions: BoardContributions): void {
    for (const players of this.standings.values()) players.delete(playerId);
    contributions.clear();
  }

  /** The first `n` players of a board, each with the last position their score moved at. */
  leaders(board: string, n: number): Leader[] {
    const entries: Leader[] = [];
    for (const [userId, { points, reachedAt }] of this.standings.get(board) ?? [])
      // As the projector's standings: a score an adjustment took to 0 or below is out of them.
      if (points > 0) entries.push({ userId, points, reachedAt });
    return entries.sort(aheadFirst).slice(0, n);
  }
}
