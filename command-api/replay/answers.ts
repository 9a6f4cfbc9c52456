/**
 * The reads of a decision made again, answered from the replay: the replay runs a use case's own
 * `read` (command-api/use-case.ts), as its handler does through the command pipeline and its tests
 * through their given streams, and answers each request from what it holds in memory instead of
 * from the event store. So it decides on the state the handler would make of the same streams. A
 * read it holds nothing for throws, naming the stream: a use case that comes to read more fails
 * the replay loudly rather than being answered wrong.
 */
import type { DeepReadonly } from '../../domain/deep-readonly';
import type { RecordedEvent } from '../../domain/events/recorded';
import { PLAYER_FOLD } from '../../domain/player/fold';
import type { PlayerState } from '../../domain/player/state';
import { REFERENCE_FOLD, type ReferenceRecord } from '../../domain/reference';
import { STOCK_FOLD, type StockState } from '../../domain/stock/stock';
import { playerStream, referenceStream, stockStream, TRIGGER_ACTIVATIONS } from '../../domain/streams';
import type { Folded } from '../../domain/stream-fold';
import type { DecideEnv } from '../decision';
import type { ReversedAction } from '../reverse-action/decider';
import { answerReadsNow, type ReadRequest, type UseCase } from '../use-case';

/** The activations of each limited trigger the replay counts, read without being noted (ActivationCounts). */
export interface CountedActivations {
  /** The activations taken of a trigger limited in any game of the draft (base or variant); undefined for any other. */
  counted(uid: string): number | undefined;
}

const ACTIVATIONS = stockStream(TRIGGER_ACTIVATIONS, '');

/**
 * Where the replay's record of a reversed action's referenceId says the action is on the player's
 * stream. The replay keeps each action by its referenceId (Replayed.reversible), not at its
 * revision: the record names this one, no stream's, and the read there is answered with the
 * action kept.
 */
const KEPT_ACTION = -1;

/** What an event read from the replay carries besides its type and data: nothing a decision reads. */
const REPLAYED = { correlationId: 'replay', causationId: 'replay', keyName: 'replay', catalogVersion: 0 };

/**
 * The replay's answers to the reads of one decision at a time: one per replay, moved to each
 * decision in turn (as its ReplayEnv), since the decisions of a replay are read one after the other.
 */
export class ReplayAnswers {
  private playerId = '';
  private player: PlayerState | null = null;
  private playerRevision = -1;
  private referenceId = '';
  private taken: DeepReadonly<ReversedAction> | null = null;

  constructor(
    private readonly activations: CountedActivations,
    /** The limited triggers' stocks as recorded up to the event replayed, by stream: their revisions. */
    private readonly stocks: ReadonlyMap<string, { revision: number }>,
  ) {}

  /**
   * The state a use case's command is decided on, its reads answered from the replay: `player`, as
   * replayed, at `playerRevision` of their stream; the command's referenceId is not taken when
   * `taken` is null (an action decided again), and is the action `taken` otherwise (a reversal's,
   * as the replay decided it).
   */
  stateOf<Command extends { playerId: string; referenceId: string }, State>(
    useCase: Pick<UseCase<Command, State, unknown>, 'read'>,
    command: Command,
    env: DecideEnv,
    player: PlayerState,
    playerRevision: number,
    taken: DeepReadonly<ReversedAction> | null,
  ): DeepReadonly<State> {
    this.playerId = command.playerId;
    this.player = player;
    this.playerRevision = playerRevision;
    this.referenceId = command.referenceId;
    this.taken = taken;
    try {
      return answerReadsNow(useCase.read(command, env), this.answer);
    } finally {
      // A replay holds hundreds of thousands of states: none is kept here past its decision.
      this.player = null;
      this.taken = null;
    }
  }

  private readonly answer = (request: ReadRequest): unknown => {
    const { stream } = request;
    if (request.kind === 'eventAt') {
      if (this.taken && stream === playerStream(this.playerId) && request.revision === KEPT_ACTION)
        return this.keptAction(stream, this.taken);
    } else if (request.fold === PLAYER_FOLD) {
      if (stream === playerStream(this.playerId))
        return { state: this.player!, revision: this.playerRevision } satisfies Folded<PlayerState>;
    } else if (request.fold === REFERENCE_FOLD) {
      if (stream === referenceStream(this.referenceId)) return this.reference();
    } else if (request.fold === STOCK_FOLD && stream.startsWith(ACTIVATIONS)) {
      // The replay counts every trigger limited in any game of the draft, as many as the handler reads.
      const taken = this.activations.counted(stream.slice(ACTIVATIONS.length));
      if (taken !== undefined)
        return { state: { taken }, revision: this.stocks.get(stream)?.revision ?? -1 } satisfies Folded<StockState>;
    }
    throw new Error(`the replay cannot answer a read of ${stream} (${request.kind})`);
  };

  /** The referenceId's record: none for an action decided again; the action's, not reversed yet, for a reversal. */
  private reference(): Folded<ReferenceRecord | null> {
    return this.taken
      ? { state: { playerId: this.playerId, playerRevision: KEPT_ACTION, reversed: false }, revision: 0 }
      : { state: null, revision: -1 };
  }

  /** The action a reversal takes back, as the event the player's stream would hold. */
  private keptAction(stream: string, action: DeepReadonly<ReversedAction>): RecordedEvent {
    return {
      id: `${stream}-${action.referenceId}`,
      type: 'ActionProcessed',
      data: action,
      metadata: REPLAYED,
      streamName: stream,
      revision: KEPT_ACTION,
      position: 0,
      createdAt: 0,
    };
  }
}
